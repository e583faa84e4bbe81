#!/bin/sh
# perfmmap.sh [REPS] [N]: what mapping and unmapping a perf ring costs on
# this machine, for the cost model's RbAlloc*, PerfMmap* and PerfMunmap*
# (cost.FitPerfMmap): perfmmap.c's CPU time per call of a ring of 1 + P
# pages, for P = 1 .. 256 (a new ring's mmap(), a second mmap() of it, the
# second's munmap(), the last munmap()), each the median of REPS runs
# (default 5) of N rings (default 50). Its output is
# cost/testdata/perfmmap.txt: `sh cost/calibrate/perfmmap.sh > cost/testdata/perfmmap.txt`.
# Needs root (or kernel.perf_event_paranoid <= 2 and rings within
# perf_event_mlock_kb). Larger rings are left out, and the fit leaves out
# 256: from 256 pages on a new ring's figure grows faster than its pages
# and varies several times over from run to run (fresh guest memory the
# hypervisor backs: not the kernel's work).
set -e
reps=${1:-5}
n=${2:-50}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/perfmmap" "$dir/perfmmap.c"
echo "# cost/calibrate/perfmmap.sh $reps $n on $(date -u +%Y-%m-%d): kernel $(uname -r)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; ns of CPU time per call (median of $reps runs of $n rings); load average $(cut -d" " -f1-3 /proc/loadavg)"
for pages in 1 4 16 64 128 256; do
	: >"$tmp/runs"
	i=0
	while [ $i -lt "$reps" ]; do
		"$tmp/perfmmap" $pages "$n" | tr '\n' ' ' >>"$tmp/runs"
		echo >>"$tmp/runs"
		i=$((i + 1))
	done
	for step in new shared unmap last; do
		v=$(awk -v k="${step}_cpu_ns" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$tmp/runs" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
		case $step in
		new) what="mmap() of a new ring of 1 + $pages pages: perf_mmap() -> perf_mmap_rb(): rb_alloc() (zeroed pages), map_range()" ;;
		shared) what="a second mmap() of it: perf_mmap() -> perf_mmap_rb() shares the ring, map_range()" ;;
		unmap) what="the second's munmap(): perf_mmap_close(), not the ring's last" ;;
		last) what="the first's munmap(), the ring's last: perf_mmap_close() -> ring_buffer_put() -> rb_free()" ;;
		esac
		echo "perfmmap.$step.$pages $v # $what"
	done
done
