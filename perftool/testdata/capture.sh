#!/bin/sh
# capture.sh CASES OUTDIR: run the real perf for every case and keep what -vv
# printed about the events it opened (attr blocks, opens, mmap sizes).
cases=$1; out=$2
grep -v '^#' "$cases" | grep -v '^$' | while IFS= read -r line; do
  name=${line%%:*}; args=${line#*: }
  # SELF: this shell's pid, a running single-threaded process for -p/-t
  args=$(echo "$args" | sed "s/SELF/$$/g")
  # shellcheck disable=SC2086
  perf record -vv -o /tmp/perfsim-capture.data $args >/tmp/perfsim-capture.out 2>&1
  echo "exit $?" >>/tmp/perfsim-capture.out
  sed -n -e '/^perf_event_attr:/,/^----/p' -e '/^sys_perf_event_open/p' -e '/^mmap size/p' -e '/^exit /p' \
    -e '/^Error/,$p' /tmp/perfsim-capture.out |
  sed -E -e 's/pid [0-9]+ /pid PID /' -e 's/pid [0-9]+$/pid PID/' -e 's/group_fd [0-9]+ /group_fd FD /' -e 's/ = [0-9]+$//' \
    >"$out/$name.golden"
done
rm -f /tmp/perfsim-capture.data /tmp/perfsim-capture.out
