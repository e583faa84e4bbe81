#!/bin/sh
# capture.sh > real.txt: run the workload for each case at read_ahead_kb
# 128 and 8192 on the disk /var/tmp is on (root: it sets and restores
# /sys/block/DEV/queue/read_ahead_kb), three runs each.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/populate" "$dir/workload.c"
dev=$(basename "$(df --output=source /var/tmp | tail -1)")
q=/sys/block/$dev/queue/read_ahead_kb
orig=$(cat "$q")
echo "# mm/testdata/populate/capture.sh on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $(df --output=fstype /var/tmp | tail -1) ($dev, read_ahead_kb $orig)"
echo "# N KIND pmdoff minflt majflt, per read_ahead_kb"
for kb in 128 8192; do
	echo "$kb" >"$q"
	echo "read_ahead_kb $kb"
	for n in 16 100 1000; do
		for kind in anon-rw anon-ro cold-ro hot-ro cold-rw cold-shared; do
			for r in 1 2 3; do "$tmp/populate" "$n" "$kind"; done
		done
	done
done
echo "$orig" >"$q"
