#!/bin/sh
# capture-probe.sh [PROBE...]: rerun the real side of the probes (the
# testdata directories with a probe.txt or a probe-kv.txt; all by default):
# build the workload and write testdata/PROBE/real.txt with the kernel and
# the commands:
#   probe.txt:    each `variant` command; its last line becomes
#                 `variant NAME delta N child-cpu N`
#   probe-kv.txt: each `run` command; its "KEY VALUE" lines
# Needs root (or perf_event_paranoid <= 1 for per-task software events).
set -e
dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir"
if [ $# -eq 0 ]; then
	for p in testdata/*/probe.txt testdata/*/probe-kv.txt; do
		[ -e "$p" ] && set -- "$@" "$(basename "$(dirname "$p")")"
	done
fi
for name in "$@"; do
	probe_dir=$dir/testdata/$name
	spec=$probe_dir/probe.txt
	[ -e "$spec" ] || spec=$probe_dir/probe-kv.txt
	tmp=$(mktemp -d)
	cp "$probe_dir"/workload.* "$tmp"/
	build=$(sed -n 's/^build //p' "$spec")
	(
		cd "$tmp"
		sh -c "${build:-cc -O2 -o workload workload.c}"
		echo "# kernel $(uname -r), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"
		grep '^variant ' "$spec" | while read -r _ v _ _ cmd; do
			echo "# $v: \$ $cmd"
			echo "variant $v $(sh -c "$cmd" | tail -1)"
		done
		sed -n 's/^run //p' "$spec" | while read -r cmd; do
			echo "# \$ $cmd"
			sh -c "$cmd"
		done
	) >"$tmp/real.txt"
	mv "$tmp/real.txt" "$probe_dir/real.txt"
	rm -rf "$tmp"
	echo "$name: $(grep -vc '^#' "$probe_dir/real.txt") figures"
done
