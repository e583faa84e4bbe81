#!/bin/sh
# capture.sh: build workload.c, record it with the real perf and keep what
# perf script prints (real.txt; first line: the versions and the command).
# Needs root, perf in PATH and tracefs at /sys/kernel/tracing.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/workload" "$dir/workload.c"
cd "$tmp"
events=syscalls:sys_enter_close,syscalls:sys_exit_close,syscalls:sys_enter_prctl,syscalls:sys_exit_prctl,syscalls:sys_enter_write,syscalls:sys_exit_write,syscalls:sys_enter_mmap,syscalls:sys_exit_mmap
perf record -o "$tmp/perf.data" -e "$events" -- ./workload >/dev/null 2>&1
{
	echo "# kernel $(uname -r), $(perf version): perf record -e $events -- ./workload ; perf script"
	perf script -i "$tmp/perf.data" 2>&1
} >"$dir/real.txt"
