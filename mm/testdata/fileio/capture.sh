#!/bin/sh
# capture.sh > real.txt: run the workload for each case at read_ahead_kb
# 128 and 8192 on the disk /var/tmp is on (root: it sets and restores
# /sys/block/DEV/queue/read_ahead_kb), two runs each.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/fileio" "$dir/workload.c"
dev=$(basename "$(df --output=source /var/tmp | tail -1)")
q=/sys/block/$dev/queue
orig=$(cat "$q/read_ahead_kb")
echo "# mm/testdata/fileio/capture.sh on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $(df --output=fstype /var/tmp | tail -1) ($dev, read_ahead_kb $orig, max_sectors_kb $(cat "$q/max_sectors_kb"))"
echo "# N ACTION CHUNK TOTAL OFF done size resident, per read_ahead_kb"
for kb in 128 8192; do
	echo "$kb" >"$q/read_ahead_kb"
	echo "read_ahead_kb $kb"
	for how in "read 4096 4096" "read 4096 65536" "read 4096 1048576" "read 65536 1048576" "read 1048576 1048576" \
		"read 4096 4096 4000000" "read 4096 8192 4096000" "read 4096 65536 4096000" "read 100 5000" "read 4096 20000000" "read 12288000 12288000" "read 4096 8192 12283904" \
		"write 4096 1048576" "write 65536 1048576" "write 100 10000" "wsync 4096 1048576" "wsync 65536 1048576"; do
		# shellcheck disable=SC2086
		for r in 1 2; do "$tmp/fileio" 3000 $how; done
	done
done
echo "$orig" >"$q/read_ahead_kb"
