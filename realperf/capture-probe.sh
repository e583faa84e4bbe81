#!/bin/sh
# capture-probe.sh [PROBE...]: rerun the real side of the probes (the
# testdata directories with a probe.txt; all by default): build the
# workload, run each `variant` command and write testdata/PROBE/real.txt
# (`variant NAME delta N child-cpu N`, the workload's last line) with the
# kernel and the commands. Needs root (or perf_event_paranoid <= 1 for
# per-task software events).
set -e
dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir"
if [ $# -eq 0 ]; then
	for p in testdata/*/probe.txt; do set -- "$@" "$(basename "$(dirname "$p")")"; done
fi
for name in "$@"; do
	probe_dir=$dir/testdata/$name
	tmp=$(mktemp -d)
	cp "$probe_dir"/workload.* "$tmp"/
	build=$(sed -n 's/^build //p' "$probe_dir/probe.txt")
	(
		cd "$tmp"
		sh -c "${build:-cc -O2 -o workload workload.c}"
		echo "# kernel $(uname -r), $(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg)"
		grep '^variant ' "$probe_dir/probe.txt" | while read -r _ v _ _ cmd; do
			echo "# $v: \$ $cmd"
			# shellcheck disable=SC2086
			echo "variant $v $(sh -c "$cmd" | tail -1)"
		done
	) >"$tmp/real.txt"
	mv "$tmp/real.txt" "$probe_dir/real.txt"
	rm -rf "$tmp"
	echo "$name: $(grep -c '^variant' "$probe_dir/real.txt") variants"
done
