#!/bin/sh
# calibrate.sh [REPS]: measure this machine's kernel for the cost model and
# print the figures cost.Fit reads (cost/testdata/this-machine.txt is this
# script's output: `sh cost/calibrate/calibrate.sh > cost/testdata/this-machine.txt`).
# Every figure is CPU time (getrusage: user + system) of the workload, the
# median of REPS runs (default 5), divided by the operations it did, so load
# from other processes does not count. Needs cc, taskset, perf in PATH, and
# root (or kernel.perf_event_paranoid <= -1) for tracepoints.
set -e
reps=${1:-5}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/closeloop" "$dir/closeloop.c"
cc -O2 -o "$tmp/spin" "$dir/spin.c"
cc -O2 -o "$tmp/yield" "$dir/yield.c"
cc -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$tmp/deep" "$dir/deep.c"
cd "$tmp"

# median CMD...: the median cpu_ns of REPS runs of CMD.
median() {
	i=0
	: >runs
	while [ $i -lt "$reps" ]; do
		"$@" 2>/dev/null | sed -n 's/^cpu_ns \([0-9]*\) .*/\1/p' >>runs
		i=$((i + 1))
	done
	sort -n runs | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
# per NAME NS OPS WHAT: print NAME, NS/OPS in ns, and what it is.
per() { awk -v n="$1" -v ns="$2" -v ops="$3" -v what="$4" 'BEGIN {printf "%s %.1f # %s\n", n, ns / ops, what}'; }
rec() { perf record -q -o /dev/null "$@"; }

N=3000000
echo "# cost/calibrate/calibrate.sh $reps on $(date -u +%Y-%m-%d): kernel $(uname -r), $(perf version)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; ns of CPU time per operation (median of $reps runs)"
echo "config.hz $( (zcat /proc/config.gz 2>/dev/null || cat /boot/config-"$(uname -r)" 2>/dev/null) | sed -n 's/^CONFIG_HZ=//p') # CONFIG_HZ of this kernel"
per closeloop.base "$(median ./closeloop $N)" $N "close(-1): syscall entry, fdget() failing, exit (./closeloop $N)"
per closeloop.enter_close "$(median rec -e syscalls:sys_enter_close -- ./closeloop $N)" $N "... and one syscalls:sys_enter_close sample of 88 bytes"
per closeloop.enter_close_filtered "$(median rec -e syscalls:sys_enter_close --filter 'fd == 12345' -- ./closeloop $N)" $N "... the tracepoint fired, its filter drops it (no output)"
per closeloop.raw_enter_filtered "$(median rec -e raw_syscalls:sys_enter --filter 'id == 12345' -- ./closeloop $N)" $N "... raw_syscalls:sys_enter fired (perf_trace_sys_enter), its filter drops it"
per closeloop.raw_exit_filtered "$(median rec -e raw_syscalls:sys_exit --filter 'id == 12345' -- ./closeloop $N)" $N "... raw_syscalls:sys_exit fired (perf_trace_sys_exit), its filter drops it"
per closeloop.raw_syscalls "$(median rec -e 'raw_syscalls:*' -- ./closeloop $N)" $N "seed 002: raw_syscalls:sys_enter and sys_exit samples (perf record -o /dev/null -e 'raw_syscalls:*')"
D=1000000
per deep0.enter_close "$(median rec -e syscalls:sys_enter_close -- ./deep 0 $D)" $D "close(-1) through a syscall insn at depth 0, one sample"
per deep0.enter_close_g "$(median rec -g -e syscalls:sys_enter_close -- ./deep 0 $D)" $D "... with -g: a 4-entry user callchain (PERF_CONTEXT_USER, ip, rec, main)"
per deep60.enter_close_g "$(median rec -g -e syscalls:sys_enter_close -- ./deep 60 $D)" $D "... at depth 60: a 64-entry user callchain"
Y=1000000
per yield.base "$(median taskset -c 0 ./yield $Y)" $Y "sched_yield() between two tasks on one CPU: the syscall and a context switch"
per yield.sched_switch "$(median rec -e sched:sched_switch -- taskset -c 0 ./yield $Y)" $Y "... and one sched:sched_switch sample per switch"
# split: where in a switch the time goes, from the timestamps of one
# recording: sys_enter_sched_yield -> sched_switch (do_sched_yield(), then
# __schedule() up to trace_sched_switch(): pick_next_task()) and
# sched_switch -> the next task's sys_exit_sched_yield (context_switch():
# prepare_task_switch() with perf's sched-out and sched-in, switch_mm,
# switch_to, finish_task_switch()); the medians of each interval.
perf record -q -o split.data -e syscalls:sys_enter_sched_yield -e syscalls:sys_exit_sched_yield -e sched:sched_switch -- taskset -c 0 ./yield 200000 >/dev/null 2>&1
perf script -i split.data -F time,event --ns 2>/dev/null | awk '{t = $1; sub(":", "", t); t = t * 1e9}
	$2 ~ /sys_enter/ {enter = t; st = 1; next}
	$2 ~ /sched_switch/ && st == 1 {print "A", t - enter >"split.a"; sw = t; st = 2; next}
	$2 ~ /sys_exit/ && st == 2 {print "B", t - sw >"split.b"; st = 0; next}
	{st = 0}'
echo "yield.enter_to_switch $(sort -k2n split.a | awk '{v[NR] = $2} END {printf "%.1f", v[int((NR + 1) / 2)]}') # sys_enter_sched_yield to sched_switch, median ns (each interval holds one tracepoint sample)"
echo "yield.switch_to_exit $(sort -k2n split.b | awk '{v[NR] = $2} END {printf "%.1f", v[int((NR + 1) / 2)]}') # sched_switch to the next task's sys_exit_sched_yield, median ns (... and perf's context switch)"
# reader NAME ARGS...: perf record's own CPU time (perf stat's task-clock of
# perf and its child, less the workload's own) with the bytes it wrote and
# its passes over the rings that found data (FINISHED_ROUND records), for
# perf record ARGS -- ./closeloop R; the medians of REPS runs.
R=300000
reader() {
	name=$1
	shift
	: >rruns
	i=0
	while [ $i -lt "$reps" ]; do
		perf stat -x, -e task-clock -o st.txt -- perf record -o r.data "$@" -- ./closeloop $R >out.txt 2>rec.err
		w=$(sed -n 's/^cpu_ns \([0-9]*\) .*/\1/p' out.txt)
		tc=$(awk -F, '/task-clock/ {printf "%d", $1 * 1000000}' st.txt)
		wk=$(perf report -i r.data --stats 2>/dev/null | awk '/FINISHED_ROUND events:/ {print $3; exit}')
		echo "$((tc - w)) $(stat -c %s r.data) ${wk:-0}" >>rruns
		i=$((i + 1))
	done
	for col in 1 2 3; do
		v=$(awk -v c=$col '{print $c}' rruns | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
		case $col in
		1) echo "reader.$name.ns $v # perf record $* -- ./closeloop $R: perf's own CPU time (ns), the median of $reps" ;;
		2) echo "reader.$name.bytes $v # ... the perf.data it wrote (bytes)" ;;
		3) echo "reader.$name.rounds $v # ... its passes that found data (FINISHED_ROUND records)" ;;
		esac
	done
}
R=0
reader startup -e syscalls:sys_enter_close
R=300000
reader default -e syscalls:sys_enter_close
reader nobuf --no-buffering -e syscalls:sys_enter_close

S=300000000
base=$(median ./spin $S)
echo "spin.base_ns $base # ./spin $S: the user loop alone, ns"
: >runs2
i=0
while [ $i -lt "$reps" ]; do
	ns=$(perf record -q -o perf.data -e cpu-clock -c 10000 -- ./spin $S 2>/dev/null | sed -n 's/^cpu_ns \([0-9]*\) .*/\1/p')
	n=$(perf report -i perf.data --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
	echo "$ns $n" >>runs2
	i=$((i + 1))
done
sort -n runs2 | awk -v base="$base" '{ns[NR] = $1; n[NR] = $2} END {m = int((NR + 1) / 2); printf "cpu_clock.sample %.1f # cpu-clock -c 10000 on ./spin: (cpu time - spin.base_ns) / samples (%d samples; the hrtimer irq, perf_swevent_hrtimer, the sample)\n", (ns[m] - base) / n[m], n[m]}'
