#!/bin/sh
# mmapextra.sh: what the kernel on this machine charges for extra mmap()s of
# one ring (pmu knob mmap-extra-account; docs/upstream/mmap-extra-locked-vm.md).
# Each line runs mmapextra.c as a fresh unprivileged uid (setpriv, as root),
# so that the user's locked_vm starts at 0; a sleeper of that uid holds its
# user_struct for the two runs of the last case. Its output is
# mmapextra.txt: `sh runner/testdata/realkernel/mmapextra.sh > runner/testdata/realkernel/mmapextra.txt`.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/mmapextra" "$dir/mmapextra.c"
chmod 755 "$tmp" "$tmp/mmapextra"
base=$((40000 + $$ % 10000 * 2))
echo "# runner/testdata/realkernel/mmapextra.sh on $(date -u +%Y-%m-%d): kernel $(uname -r), $(nproc) cpus online, perf_event_mlock_kb $(cat /proc/sys/kernel/perf_event_mlock_kb), perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid), RLIMIT_MEMLOCK $(ulimit -l) kB"
as() { u=$1; shift; setpriv --reuid="$u" --regid="$u" --clear-groups "$@"; }
i=0
for n in 0 10 27 28 29 40; do
	as $((base + i)) "$tmp/mmapextra" $n
	i=$((i + 1))
done
# the same user: 8 MiB of ring before and after 40 extra mappings
u=$((base + i))
as "$u" sleep 30 &
sleeper=$!
sleep 0.2
as "$u" "$tmp/mmapextra" 0 big
as "$u" "$tmp/mmapextra" 40 >/dev/null
as "$u" "$tmp/mmapextra" 0 big
kill $sleeper 2>/dev/null || true
