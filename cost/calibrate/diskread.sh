#!/bin/sh
# diskread.sh [ROUNDS]: how long this machine's disk takes to serve a major
# fault, by how much it reads, for the cost model's DiskReadBase and
# DiskReadPerKiB (cost.FitDiskRead): diskread.c's median over ROUNDS rounds
# (default 15) at each read_ahead_kb of 0 (the page alone: 4 KB), 128 and
# 8192 (the read-around reads read_ahead_kb about the page). Root: it sets
# and restores /sys/block/DEV/queue/read_ahead_kb of /var/tmp's disk. Its
# output is cost/testdata/diskread.txt:
# `sh cost/calibrate/diskread.sh > cost/testdata/diskread.txt`.
set -e
rounds=${1:-15}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/diskread" "$dir/diskread.c"
dev=$(basename "$(df --output=source /var/tmp | tail -1)")
q=/sys/block/$dev/queue/read_ahead_kb
orig=$(cat "$q")
echo "# cost/calibrate/diskread.sh $rounds on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $dev ($(df --output=fstype /var/tmp | tail -1), read_ahead_kb $orig); load average $(cut -d" " -f1-3 /proc/loadavg)"
for kb in 0 128 8192; do
	echo "$kb" >"$q"
	pages=$((kb / 2 + 16)) # twice the window in pages (kb / 4 * 2), at least 16: the read-around about the middle page is whole
	v=$("$tmp/diskread" $pages "$rounds" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
	read=$((kb > 0 ? kb : 4))
	echo "disk.read_${read}kb_ns $v # a major fault whose read reads ${read} KB (read_ahead_kb $kb), wall ns (median of $rounds)"
done
echo "$orig" >"$q"
