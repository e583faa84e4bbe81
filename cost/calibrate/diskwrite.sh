#!/bin/sh
# diskwrite.sh [ROUNDS]: how long this machine's disk takes to write back
# an fsync()'s dirty pages, by how many, for the cost model's
# DiskWriteBase and DiskWritePerKiB (cost.FitDiskWrite): diskwrite.c's
# median over ROUNDS rounds (default 15) of 1 page (4 KB) and 2048 pages
# (8192 KB), on /var/tmp's disk. Its output is cost/testdata/diskwrite.txt:
# `sh cost/calibrate/diskwrite.sh > cost/testdata/diskwrite.txt`.
set -e
rounds=${1:-15}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/diskwrite" "$dir/diskwrite.c"
dev=$(basename "$(df --output=source /var/tmp | tail -1)")
echo "# cost/calibrate/diskwrite.sh $rounds on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $dev ($(df --output=fstype /var/tmp | tail -1)); load average $(cut -d" " -f1-3 /proc/loadavg)"
for pages in 1 32 2048; do
	v=$("$tmp/diskwrite" $pages "$rounds" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
	echo "disk.write_$((pages * 4))kb_ns $v # an fsync() that writes back $((pages * 4)) KB, wall ns (median of $rounds)"
done
