#!/bin/sh
# reader-wakeups.sh [RUNS]: what perf record's reader costs per wake-up on
# this machine, and how it loses records when it shares a CPU with the
# workload it reads (issue 19: the reader, PERF_RECORD_LOST). For -m 1, 2
# and 4 (a watermark of 2, 4 and 8 KiB: half the ring), RUNS times each
# (default 3), it runs
#   taskset -c 1 perf record -m N -e syscalls:sys_enter_close -- ./closeloop 300000
# (perf and its child on one CPU, as CFS's wake-affine placement puts them
# when perf is not pinned) with sched:sched_switch traced on that CPU in a
# tracefs instance of its own, and prints, over all runs of each N:
#   reader.mN.run_ns    the mean time perf ran per wake-up (sched_switch
#                       from the workload to perf, to perf's sched_switch
#                       back to it going to sleep: the pass that found data,
#                       the one that found none, the write(2)s and poll(2),
#                       and the switch's share on each side of
#                       trace_sched_switch()), over the runs shorter than
#                       100 us; a mean, as the trace's timestamps are whole
#                       microseconds
#   reader.mN.bytes     bytes perf copied per wake-up: (SAMPLE and LOST
#                       records) x their size / FINISHED_ROUND records
#   reader.mN.rounds, .lost_records, .lost, .samples: the medians of the
#                       runs' FINISHED_ROUND and LOST records, the samples
#                       the LOSTs counted, and the SAMPLEs kept
#   reader.mN.stalls    the median count of perf's waits over 500 us from
#                       its sched_waking to its switch-in (the wake-up did
#                       not preempt the workload: it waited for the tick)
# cost.FitReader fits ReaderRound and ReaderPerKiB from run_ns and bytes.
# cost/testdata/reader-wakeups.txt is its output:
# `sh cost/calibrate/reader-wakeups.sh > cost/testdata/reader-wakeups.txt`.
# Needs cc, taskset, perf in PATH, root and tracefs at /sys/kernel/tracing.
set -e
runs=${1:-3}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
inst=/sys/kernel/tracing/instances/reader-wakeups-$$
trap 'rmdir "$inst" 2>/dev/null; rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/closeloop" "$dir/closeloop.c"
cd "$tmp"
mkdir "$inst"
echo 16384 >"$inst/buffer_size_kb"
echo local >"$inst/trace_clock"
echo 'cpu == 1' >"$inst/events/sched/sched_switch/filter"
echo 'target_cpu == 1' >"$inst/events/sched/sched_waking/filter"
echo 1 >"$inst/events/sched/sched_switch/enable"
echo 1 >"$inst/events/sched/sched_waking/enable"
echo "# cost/calibrate/reader-wakeups.sh $runs on $(date -u +%Y-%m-%d): kernel $(uname -r), $(perf version)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "# \$ taskset -c 1 perf record -m N -e syscalls:sys_enter_close -- ./closeloop 300000 (N = 1, 2, 4), sched_switch and sched_waking traced on cpu 1"
# med FILE: the median of FILE's numbers.
med() { sort -n "$1" | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for m in 1 2 4; do
	: >runns
	for f in rounds lost_records lost samples stalls bytes; do : >"$f"; done
	i=0
	while [ $i -lt "$runs" ]; do
		echo >"$inst/trace"
		echo 1 >"$inst/tracing_on"
		taskset -c 1 perf record -q -m $m -o p.data -e syscalls:sys_enter_close -- ./closeloop 300000 >/dev/null 2>&1
		echo 0 >"$inst/tracing_on"
		# perf's pid: the process named perf in the trace
		awk '$0 ~ /sched_switch:/ {
			t = $0; sub(/.* ([0-9]+\.[0-9]+): sched_switch: /, "", t)
			ts = $0; sub(/: sched_switch:.*/, "", ts); n = split(ts, a, " "); ts = a[n] * 1e9
			prev = t; sub(/ prev_pid=.*/, "", prev); sub(/^prev_comm=/, "", prev)
			next_ = t; sub(/.*next_comm=/, "", next_); sub(/ next_pid=.*/, "", next_)
			# a clean cycle: in from the workload, out to it, asleep (poll)
			if (prev == "perf" && in_ > 0 && next_ == "closeloop" && t ~ /prev_state=S /) printf "%d\n", ts - in_ >"runns"
			if (prev == "perf") in_ = 0
			if (next_ == "perf") { in_ = (prev == "closeloop") ? ts : 0; if (wk > 0 && ts - wk > 500000) stalls++; wk = 0 }
		}
		$0 ~ /sched_waking: comm=perf / { ts = $0; sub(/: sched_waking:.*/, "", ts); n = split(ts, a, " "); wk = a[n] * 1e9 }
		END {print stalls + 0 >"stalls.one"}' "$inst/trace"
		cat stalls.one >>stalls
		perf report -i p.data --stats 2>/dev/null >st.txt
		perf report -i p.data -D 2>/dev/null >dump.txt
		r=$(awk '$1 == "FINISHED_ROUND" {print $3; exit}' st.txt)
		echo "$r" >>rounds
		awk '$1 == "LOST" {print $3; f = 1; exit} END {if (!f) print 0}' st.txt >>lost_records
		awk '$1 == "SAMPLE" {print $3; exit}' st.txt >>samples
		awk '/PERF_RECORD_LOST:/ {sub(/.*lost:/, ""); n += $1} END {print n + 0}' dump.txt >>lost
		# the ring's bytes per wake-up: the SAMPLE and LOST records' sizes
		awk -v r="$r" 'function hex(h, v, k) {v = 0; for (k = 1; k <= length(h); k++) v = v * 16 + index("0123456789abcdef", substr(h, k, 1)) - 1; return v}
			/\]: PERF_RECORD_(SAMPLE|LOST)[(:]/ {s = $0; sub(/.*\[0x/, "", s); sub(/\].*/, "", s); n += hex(s)} END {printf "%d\n", n / r}' dump.txt >>bytes
		i=$((i + 1))
	done
	echo "reader.m$m.run_ns $(awk '$1 < 100000 {s += $1; n++} END {printf "%.0f", s / n}' runns) # the mean time perf ran per wake-up under 100 us, ns (all runs: $(awk '$1 < 100000' runns | wc -l) of $(wc -l <runns) wake-ups)"
	echo "reader.m$m.bytes $(med bytes) # bytes copied per wake-up (the median run)"
	for f in rounds lost_records lost samples stalls; do
		echo "reader.m$m.$f $(med $f) # the median of $(tr '\n' ' ' <$f)"
	done
done
