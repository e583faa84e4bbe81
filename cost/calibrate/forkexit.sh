#!/bin/sh
# forkexit.sh [REPS] [N]: what task creation and teardown cost on this
# machine, for the cost model's Clone*, Exit* and Wait4Reap (cost.FitForkExit):
# forkexit.c's figures (ns of CPU time per operation, read from the thread
# and process CPU clocks), each the median of REPS runs (default 5) of N
# operations (default 5000). Its output is cost/testdata/forkexit.txt:
# `sh cost/calibrate/forkexit.sh > cost/testdata/forkexit.txt`.
set -e
reps=${1:-5}
n=${2:-5000}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/forkexit" "$dir/forkexit.c"
cd "$tmp"
echo "# cost/calibrate/forkexit.sh $reps $n on $(date -u +%Y-%m-%d): kernel $(uname -r)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; ns of CPU time per operation (median of $reps runs of $n), clock reads taken off; load average $(cut -d" " -f1-3 /proc/loadavg)"
for mode in fork thread; do
	: >runs
	i=0
	while [ $i -lt "$reps" ]; do
		./forkexit $mode "$n" >>runs
		i=$((i + 1))
	done
	for key in $(awk '$1 != "clock.pair" {print $1}' runs | sort -u); do
		v=$(awk -v k="$key" '$1 == k {print $2}' runs | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
		case $key in
		fork.parent) what="fork(): the parent's CPU time in it (kernel_clone(): copy_process() with dup_mm(), wake_up_new_task())" ;;
		fork.child) what="each child's whole CPU time, getrusage(RUSAGE_CHILDREN)/N: it _exit(0)s at once (ret_from_fork, the COW faults of returning from fork(), do_exit() with exit_mmap(), its switches)" ;;
		wait4.reap) what="waitpid() of a child already a zombie (waitid(WNOWAIT) first): do_wait() -> wait_task_zombie() -> release_task()" ;;
		thread.create) what="pthread_create() of a thread that returns at once: the creator's CPU time (clone3(CLONE_VM|CLONE_THREAD|...), its stack from glibc's cache)" ;;
		thread.life) what="each such thread's whole CPU time (the process clock less the main thread's): ret_from_fork, start_thread(), exit(), do_exit() of a thread, its switches" ;;
		esac
		echo "$key $v # $what"
	done
done
