#!/bin/sh
# capture.sh [CASE...]: rerun the real side of the paired cases (all by
# default): build each workload, run its perf line in a scratch directory
# (case.txt's `runs N` times) and write testdata/CASE/real.txt, the summary of
# each real perf.data ("# run I" before each when there are several), with
# what perf script -F event prints of each event (script-event EVENT N), and the
# kernel, the perf version and the command on its first lines. Needs perf in
# PATH, root (or perf_event_paranoid <= -1) and tracefs; a case with a
# `user UID` line runs perf as that uid (setpriv), unprivileged.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir"
go build -o /tmp/perfsim-summarize ./summarize
[ $# -gt 0 ] || set -- $(cd testdata && ls -d */case.txt | sed "s,/case.txt,,") # the probes (probe.txt, probe-kv.txt) have capture-probe.sh
# attach ARGS: a case with a `target CMD` line (perf record -p/-t): start
# CMD with two more arguments, a file and a fifo; CMD writes "PID TID" (its
# pid and its second thread's tid) to the file and then blocks reading the
# fifo. perf record ARGS runs with $PID and $TID in ARGS replaced; once perf
# has its events open (and a second more for its synthesis), a byte to the
# fifo lets CMD go on; perf ends when CMD's threads have exited.
attach() {
	rm -f "$tmp/tids" "$tmp/go"
	mkfifo "$tmp/go"
	# shellcheck disable=SC2086
	$target "$tmp/tids" "$tmp/go" &
	wpid=$!
	while [ ! -s "$tmp/tids" ]; do sleep 0.01; done
	read -r PID TID <"$tmp/tids"
	args=$(echo "$*" | sed "s/\$PID/$PID/g; s/\$TID/$TID/g")
	# shellcheck disable=SC2086
	perf record -o "$tmp/perf.data" $args >/dev/null 2>"$tmp/perf.err" &
	ppid=$!
	until ls -l /proc/$ppid/fd 2>/dev/null | grep -q perf_event; do sleep 0.01; done
	sleep 1
	echo >"$tmp/go"
	wait $ppid || { cat "$tmp/perf.err" >&2; exit 1; }
	wait $wpid
}

# stopped ARGS: a case with a `stop SECONDS` line: perf record ARGS in the
# background and, SECONDS after its workload exec'd (perf's child, named
# perf-exec until then, is named workload), SIGINT to the pid this shell
# started (^C; never a perf found by name: other perf processes on the
# machine are not ours). Timed from the exec, not from perf's start: on
# this loaded machine perf takes from tens of ms to a second to get there.
# perf's exit status ($status) is a figure, whatever it is.
stopped() {
	${pin:+taskset -c "$pin"} perf record -o "$tmp/perf.data" "$@" >/dev/null 2>"$tmp/perf.err" &
	ppid=$!
	until [ "$(ps -o comm= --ppid "$ppid")" = workload ] || ! kill -0 "$ppid" 2>/dev/null; do sleep 0.005; done
	sleep "$stop"
	kill -INT "$ppid"
	status=0
	wait "$ppid" || status=$?
}

for name in "$@"; do
	case_dir=$dir/testdata/$name
	tmp=$(mktemp -d)
	cp "$case_dir"/workload.* "$tmp"/
	perfline=$(grep '^perf ' "$case_dir/case.txt")
	build=$(grep '^build ' "$case_dir/case.txt" | sed 's/^build //')
	[ -n "$build" ] || build="cc -O2 -o workload workload.c"
	(
		cd "$tmp"
		sh -c "$build"
		# the perf line's words as the shell reads them: a quoted argument
		# (--filter 'fd == 1001') stays one; $PID and $TID stay as they are
		# for attach to replace
		eval "set -- $(printf '%s' "$perfline" | sed 's/\$/\\$/g')"
		shift 2 # "perf record"
		runs=$(sed -n 's/^runs //p' "$case_dir/case.txt")
		target=$(sed -n 's/^target //p' "$case_dir/case.txt")
		# pin N: perf (and the workload it forks) on CPU N only
		pin=$(sed -n 's/^pin //p' "$case_dir/case.txt")
		# stop SECONDS: SIGINT to perf SECONDS after its workload's exec (stopped)
		stop=$(sed -n 's/^stop //p' "$case_dir/case.txt")
		# user UID: perf (and its workload) run as that uid, with no
		# capabilities (setpriv): perf_event_paranoid binds; the scratch
		# directory is theirs to write, and root's perf script reads the
		# file they own with -f
		user=$(sed -n 's/^user //p' "$case_dir/case.txt")
		asuser=""
		if [ -n "$user" ]; then
			chmod 777 "$tmp"
			asuser="setpriv --reuid=$user --regid=$user --clear-groups --inh-caps=-all"
		fi
		{
			echo "# kernel $(uname -r), $(perf version)"
			echo "# \$ ${asuser:+$asuser }${pin:+taskset -c $pin }$perfline${stop:+ & (workload exec'd) sleep $stop; kill -INT \$!; wait \$!}"
			echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
			i=1
			while [ "$i" -le "${runs:-1}" ]; do
				if [ -n "$target" ]; then
					attach "$@"
				elif [ -n "$stop" ]; then
					stopped "$@"
				else
					# shellcheck disable=SC2086
					$asuser ${pin:+taskset -c "$pin"} perf record -o "$tmp/perf.data" "$@" >/dev/null 2>"$tmp/perf.err" || { cat "$tmp/perf.err" >&2; exit 1; }
				fi
				[ "${runs:-1}" -eq 1 ] || echo "# run $i"
				/tmp/perfsim-summarize "$tmp/perf.data"
				# script-event EVENT N: the samples perf script -F event
				# prints for EVENT (right-aligned "NAME: " lines), what
				# perf's reader attributes to each evsel by sample id
				perf script -f -i "$tmp/perf.data" -F event 2>/dev/null | sed -n 's/^ *\(.*\): *$/\1/p' | sort | uniq -c |
					awk '{ print "script-event " $2 " " $1 }'
				if [ -n "$stop" ]; then
					sed "s,$tmp/,,; s/^/# perf: /" "$tmp/perf.err"
					[ "$status" -eq 0 ] || echo "perf-status $status"
				fi
				i=$((i + 1))
			done
		} >"$case_dir/real.txt"
	)
	rm -rf "$tmp"
	echo "$name: $(grep -vc '^#' "$case_dir/real.txt") figures"
done
