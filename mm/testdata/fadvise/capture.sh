#!/bin/sh
# capture.sh > real.txt: run the workload for each case at read_ahead_kb
# 128 and 8192 on the disk /var/tmp is on (root: it sets and restores
# /sys/block/DEV/queue/read_ahead_kb), two runs each.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/fadvise" "$dir/workload.c"
dev=$(basename "$(df --output=source /var/tmp | tail -1)")
q=/sys/block/$dev/queue
orig=$(cat "$q/read_ahead_kb")
echo "# mm/testdata/fadvise/capture.sh on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $(df --output=fstype /var/tmp | tail -1) ($dev, read_ahead_kb $orig, max_sectors_kb $(cat "$q/max_sectors_kb"))"
echo "# N ACTION OFF LEN resident pmdoff minflt majflt, per read_ahead_kb"
for kb in 128 8192; do
	echo "$kb" >"$q/read_ahead_kb"
	echo "read_ahead_kb $kb"
	for n in 100 3000; do
		for how in "none 0 0" "fwill 0 0" "fwill 10 50" "fwill 1500 0" "mwill 0 0" "mwill 10 50" "mwill 1500 0" \
			"fdrop 0 0" "fdrop 10 50" "fdropmapped 0 40" "fdropmapped 20 30" "fseq 0 0" "frandseq 0 0"; do
			# shellcheck disable=SC2086
			for r in 1 2; do "$tmp/fadvise" "$n" $how; done
		done
	done
done
echo "$orig" >"$q/read_ahead_kb"
