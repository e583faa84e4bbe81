#!/bin/sh
# fileio.sh [ROUNDS]: the CPU time this machine's read(2) and write(2) of a
# regular file spend a KiB through the page cache, for the cost model's
# FileReadPerKiB and FileWritePerKiB (cost.FitFileIO): fileio.c's median
# over ROUNDS rounds (default 9) of 256 MB written in 64 KB calls and read
# back cached. Its output is cost/testdata/fileio.txt:
# `sh cost/calibrate/fileio.sh > cost/testdata/fileio.txt`.
set -e
rounds=${1:-9}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/fileio" "$dir/fileio.c"
echo "# cost/calibrate/fileio.sh $rounds on $(date -u +%Y-%m-%d): kernel $(uname -r), /var/tmp on $(df --output=fstype /var/tmp | tail -1); $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average $(cut -d" " -f1-3 /proc/loadavg)"
"$tmp/fileio" 256 "$rounds" >"$tmp/out"
med() { awk -v k="$1" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$tmp/out" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "file.write_ns_per_kib $(med write_ns_per_kib) # write(2) of a regular file, 64 KB calls, pages cached and dirtied: CPU ns a KiB (median of $rounds)"
echo "file.read_ns_per_kib $(med read_ns_per_kib) # read(2) of a cached regular file, 64 KB calls: CPU ns a KiB (median of $rounds)"
