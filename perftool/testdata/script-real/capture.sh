#!/bin/sh
# capture.sh: run the real perf record + perf script for each case and keep the
# output next to the command that produced it (NAME.txt, first line "# $ CMD").
# Needs root, perf in PATH and tracefs at /sys/kernel/tracing; builds the two
# workloads (closes.c: N close(1000+i) syscalls; spin.c: a user loop).
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/closes" "$dir/closes.c"
cc -O1 -o "$tmp/spin" "$dir/spin.c"
cd "$tmp"
run() {
	name=$1; shift
	perf record -o "$tmp/perf.data" "$@" >/dev/null 2>&1
	{
		echo "# $(perf version): perf record $* ; perf script"
		perf script -i "$tmp/perf.data" 2>&1
	} >"$dir/$name.txt"
}
run raw-syscalls-true -e raw_syscalls:sys_enter -- true
run raw-syscalls-closes -e raw_syscalls:sys_enter,raw_syscalls:sys_exit -- ./closes 3
run syscalls-close -e syscalls:sys_enter_close,syscalls:sys_exit_close -- ./closes 3
run cpu-clock -e cpu-clock -c 1000000 -- ./spin
run task-clock-page-faults -e task-clock,page-faults -c 1000000 -- ./spin
run cpu-clock-and-tracepoint -e cpu-clock,raw_syscalls:sys_enter -c 1000000 -- ./spin
run system-wide-close -a -e syscalls:sys_enter_close -- ./closes 3
