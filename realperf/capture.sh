#!/bin/sh
# capture.sh [CASE...]: rerun the real side of the paired cases (all by
# default): build each workload, run its perf line in a scratch directory
# (case.txt's `runs N` times) and write testdata/CASE/real.txt, the summary of
# each real perf.data ("# run I" before each when there are several) with the
# kernel, the perf version and the command on its first lines. Needs perf in
# PATH, root (or perf_event_paranoid <= -1) and tracefs.
set -e
dir=$(cd "$(dirname "$0")" && pwd)
cd "$dir"
go build -o /tmp/perfsim-summarize ./summarize
[ $# -gt 0 ] || set -- $(ls testdata)
for name in "$@"; do
	case_dir=$dir/testdata/$name
	tmp=$(mktemp -d)
	cp "$case_dir"/workload.* "$tmp"/
	perfline=$(grep '^perf ' "$case_dir/case.txt")
	build=$(grep '^build ' "$case_dir/case.txt" | sed 's/^build //')
	[ -n "$build" ] || build="cc -O2 -o workload workload.c"
	(
		cd "$tmp"
		sh -c "$build"
		# shellcheck disable=SC2086
		set -- $perfline
		shift 2 # "perf record"
		runs=$(sed -n 's/^runs //p' "$case_dir/case.txt")
		{
			echo "# kernel $(uname -r), $(perf version)"
			echo "# \$ $perfline"
			i=1
			while [ "$i" -le "${runs:-1}" ]; do
				perf record -o "$tmp/perf.data" "$@" >/dev/null 2>"$tmp/perf.err" || { cat "$tmp/perf.err" >&2; exit 1; }
				[ "${runs:-1}" -eq 1 ] || echo "# run $i"
				/tmp/perfsim-summarize "$tmp/perf.data"
				i=$((i + 1))
			done
		} >"$case_dir/real.txt"
	)
	rm -rf "$tmp"
	echo "$name: $(grep -vc '^#' "$case_dir/real.txt") figures"
done
