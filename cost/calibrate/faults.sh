#!/bin/sh
# faults.sh [REPS]: what a user page fault costs on this machine, by kind,
# for the cost model's fault costs (cost.FitFaults): faults.c's CPU time per
# fault (user + system over the faults getrusage counted), the median of
# REPS runs (default 5) of 20 rounds of 4096 pages. Its output is
# cost/testdata/faults.txt: `sh cost/calibrate/faults.sh > cost/testdata/faults.txt`.
# The file is made on /var/tmp.
set -e
reps=${1:-5}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/faults" "$dir/faults.c"
echo "# cost/calibrate/faults.sh $reps on $(date -u +%Y-%m-%d): kernel $(uname -r)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; ns of CPU time per fault (median of $reps runs of 20 x 4096 pages); load average $(cut -d" " -f1-3 /proc/loadavg)"
for mode in anon_write anon_read file_map file_cow; do
	: >"$tmp/runs"
	i=0
	while [ $i -lt "$reps" ]; do
		"$tmp/faults" $mode 4096 20 | awk '/^cpu_ns/ {c = $2} /^faults/ {f = $2} END {printf "%.1f %d\n", c / f, f}' >>"$tmp/runs"
		i=$((i + 1))
	done
	v=$(sort -n "$tmp/runs" | awk '{v[NR] = $1; f[NR] = $2} END {m = int((NR + 1) / 2); print v[m], f[m]}')
	case $mode in
	anon_write) what="a write to a private anonymous page: do_anonymous_page(), a zeroed page" ;;
	anon_read) what="a read of one: do_anonymous_page(), the zero page mapped read-only" ;;
	file_map) what="a read of a private mapping of a cached file: do_read_fault() -> do_fault_around(), filemap_map_pages() maps the 64 KB window" ;;
	file_cow) what="a write to a private mapping of a cached file: do_cow_fault(), the page-cache page copied" ;;
	esac
	echo "fault.$mode ${v% *} # $what (${v#* } faults a run)"
done
