#!/bin/sh
# timing.sh > timing.txt: timing.c's cold read of 1000 pages, five runs at
# read_ahead_kb 128 and 8192 on the disk /var/tmp is on (root: it sets and
# restores /sys/block/DEV/queue/read_ahead_kb).
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/timing" "$dir/timing.c"
dev=$(basename "$(df --output=source /var/tmp | tail -1)")
q=/sys/block/$dev/queue/read_ahead_kb
orig=$(cat "$q")
echo "# mm/testdata/filefaults/timing.sh on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $(df --output=fstype /var/tmp | tail -1) ($dev, read_ahead_kb $orig)"
for kb in 128 8192; do
	echo "$kb" >"$q"
	for r in 1 2 3 4 5; do echo "read_ahead_kb=$kb $("$tmp/timing" 1000)"; done
done
echo "$orig" >"$q"
