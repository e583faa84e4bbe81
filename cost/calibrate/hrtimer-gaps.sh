#!/bin/sh
# hrtimer-gaps.sh [RUNS]: how late this machine's cpu-clock hrtimer fires
# (the figures for modelling timer-interrupt latency, issue 19). Runs
# `perf record -e cpu-clock -c 10000` on spin.c's 300,000,000-iteration loop
# RUNS times (default 3) and prints, over all runs, how many consecutive
# samples of the loop were 1, 2, 3... periods of 10 us apart (perf script's
# time; a gap of k periods is an expiry hrtimer_forward_now() skipped k-1
# periods past: the interrupt ran more than a period late), and the THROTTLE
# records per run (a 4 ms tick throttles at its 400th sample: each skipped
# period makes that less likely), and how many ticks apart consecutive
# THROTTLEs are (the input of cost.FitHrtimerLate: after a throttle the next
# tick holds 399 expiries, then each tick with no late expiry throttles).
# cost/testdata/hrtimer-gaps.txt is its output:
# `sh cost/calibrate/hrtimer-gaps.sh > cost/testdata/hrtimer-gaps.txt`.
# Needs cc, perf in PATH, and root.
set -e
runs=${1:-3}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/spin" "$dir/spin.c"
cd "$tmp"
echo "# cost/calibrate/hrtimer-gaps.sh $runs on $(date -u +%Y-%m-%d): kernel $(uname -r), $(perf version)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; CONFIG_HZ=$( (zcat /proc/config.gz 2>/dev/null || cat /boot/config-"$(uname -r)" 2>/dev/null) | sed -n 's/^CONFIG_HZ=//p'); load average $(cut -d' ' -f1-3 /proc/loadavg) (gaps over 1 period include preemption by other tasks)"
: >gaps
: >spacing
i=0
while [ $i -lt "$runs" ]; do
	perf record -q -e cpu-clock -c 10000 -o p.data -- ./spin 300000000 >/dev/null 2>&1
	echo "throttle.run$i $(perf report -i p.data --stats 2>/dev/null | awk '$1 == "THROTTLE" {print $3; f = 1} END {if (!f) print 0}')"
	echo "samples.run$i $(perf report -i p.data --stats 2>/dev/null | awk '$1 == "SAMPLE" {print $3; exit}')"
	perf report -i p.data -D 2>/dev/null | awk '$NF == "unhandled!" && $(NF-1) == "PERF_RECORD_THROTTLE:" {if (prev) printf "%d\n", ($1 - prev) / 4e6 + 0.5; prev = $1}' >>spacing
	perf script -i p.data -F time 2>/dev/null | tr -d ' :' | awk 'NR > 1 {printf "%d\n", ($1 - prev) * 1e6 / 10 + 0.5} {prev = $1}' >>gaps
	i=$((i + 1))
done
echo "# gap.K N: N consecutive samples K periods (10 us) apart, all runs"
sort -n gaps | uniq -c | awk '{printf "gap.%d %d\n", $2, $1}'
echo "# spacing.K N: N consecutive THROTTLE records K ticks (4 ms) apart, all runs"
sort -n spacing | uniq -c | awk '{printf "spacing.%d %d\n", $2, $1}'
