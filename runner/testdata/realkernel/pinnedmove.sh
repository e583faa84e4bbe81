#!/bin/sh
# pinnedmove.sh: the pinned_vm a ring's last munmap() in another process
# takes from that process's mm (pmu knob mmap-pinned-mm;
# docs/upstream/mmap-pinned-other-mm.md). Each line runs pinnedmove.c as a
# fresh unprivileged uid (setpriv, as root), so that the user's locked_vm
# starts at 0. Its output is pinnedmove.txt:
# `sh runner/testdata/realkernel/pinnedmove.sh > runner/testdata/realkernel/pinnedmove.txt`.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/pinnedmove" "$dir/pinnedmove.c"
chmod 755 "$tmp" "$tmp/pinnedmove"
base=$((50000 + $$ % 10000 * 2))
echo "# runner/testdata/realkernel/pinnedmove.sh on $(date -u +%Y-%m-%d): kernel $(uname -r), $(nproc) cpus online, perf_event_mlock_kb $(cat /proc/sys/kernel/perf_event_mlock_kb), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid), RLIMIT_MEMLOCK $(ulimit -l) kB"
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
i=0
for k in 0 1 3; do
	as $((base + i)) "$tmp/pinnedmove" $k
	i=$((i + 1))
done
