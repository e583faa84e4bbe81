#!/bin/sh
# exitsplit.sh [N] [REPS]: where a task's life goes, between its first switch
# in and its last switch out, for the cost model's exit costs
# (cost.FitExitSplit), which share cost/testdata/forkexit.txt's fork.child and
# thread.life out by these shares. forkexit.c's two runs of N (default 2000)
# each, REPS times (default 3), recorded system-wide (the exiting task's own
# events end at perf_event_exit_task()) with tracepoints that mark do_exit()'s
# parts; the median of each part's wall ns over the tasks whose life had one
# switch out, over the runs. As root (perf record -a). Its output is
# cost/testdata/exitsplit.txt:
# `sh cost/calibrate/exitsplit.sh > cost/testdata/exitsplit.txt`.
#
#   fork: a child that _exit(0)s at once
#     user    sched_switch in -> sys_enter_exit_group (ret_from_fork, the
#             faults of glibc's fork() return in the child, _exit())
#     start   -> sched_process_exit (do_exit() up to perf_event_exit_task():
#             exit_signals(), the group-dead timers, acct, taskstats)
#     mm      -> mmap:exit_mmap (perf_event_exit_task(), exit_mm(): the last
#             user's mmput() -> exit_mmap(), which it ends)
#     files   -> signal_generate of SIGCHLD (the rest of mmput(), exit_files()
#             closing the child's fds, exit_fs(), exit_task_work() with their
#             fput()s, cgroup_exit(), exit_notify() up to do_notify_parent())
#     dead    -> sched_switch out, prev_state Z (the rest of exit_notify(),
#             do_task_dead(), __schedule() up to trace_sched_switch())
#   thread: a thread whose start routine returns at once, joined
#     user    sched_switch in -> sys_enter_exit (ret_from_fork, start_thread(),
#             exit())
#     start   -> sched_process_exit
#     mm      -> sched_wakeup of the joiner (perf_event_exit_task(), exit_mm()
#             -> exit_mm_release(): the tid cleared and futex-woken)
#     rest    -> sched_switch out, prev_state X (futex_wake()'s end, mmput()
#             not the last, exit_files() of a shared table, exit_notify() with
#             release_task(), do_task_dead(), __schedule() up to
#             trace_sched_switch())
set -e
n=${1:-2000}
reps=${2:-3}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/forkexit" "$dir/forkexit.c"
cd "$tmp"
echo "# cost/calibrate/exitsplit.sh $n $reps on $(date -u +%Y-%m-%d): kernel $(uname -r)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; wall ns between tracepoints under perf record -a (median over the tasks of $reps runs of $n); load average $(cut -d" " -f1-3 /proc/loadavg)"
for mode in fork thread; do
	: >parts
	i=0
	while [ $i -lt "$reps" ]; do
		perf record -q -a -o rec.data -e syscalls:sys_enter_exit_group,syscalls:sys_enter_exit,sched:sched_process_exit,mmap:exit_mmap,signal:signal_generate,sched:sched_switch,sched:sched_wakeup \
			./forkexit $mode "$n" >/dev/null 2>&1
		perf script --ns -i rec.data -F tid,time,event,trace 2>/dev/null | awk -v mode=$mode '
		{
			tid = $1; t = $2; sub(/:$/, "", t); t = t * 1e9; ev = $3
			if (ev == "sched:sched_switch:") {
				match($0, /prev_pid=[0-9]+/); pp = substr($0, RSTART + 9, RLENGTH - 9)
				match($0, /next_pid=[0-9]+/); np = substr($0, RSTART + 9, RLENGTH - 9)
				if (!(np in in_)) in_[np] = t
				outs[pp]++
				if ($0 ~ /prev_state=[ZX]/) out[pp] = t
			} else if (ev == "syscalls:sys_enter_exit_group:" || ev == "syscalls:sys_enter_exit:") {
				if (!(tid in enter)) enter[tid] = t
			} else if (ev == "sched:sched_process_exit:") {
				if (!(tid in pexit)) pexit[tid] = t
			} else if (ev == "mmap:exit_mmap:") {
				if (!(tid in mm)) mm[tid] = t
			} else if (ev == "signal:signal_generate:" && $0 ~ /sig=17 /) {
				if (!(tid in sig)) sig[tid] = t
			} else if (ev == "sched:sched_wakeup:") {
				if ((tid in pexit) && !(tid in wake)) wake[tid] = t
			}
		}
		END {
			for (p in out) {
				if (!(p in in_) || !(p in enter) || !(p in pexit) || outs[p] != 1)
					continue
				if (mode == "fork" && (p in mm) && (p in sig))
					printf "%.0f %.0f %.0f %.0f %.0f %.0f\n", out[p] - in_[p], enter[p] - in_[p], pexit[p] - enter[p], mm[p] - pexit[p], sig[p] - mm[p], out[p] - sig[p]
				if (mode == "thread" && (p in wake))
					printf "%.0f %.0f %.0f %.0f %.0f\n", out[p] - in_[p], enter[p] - in_[p], pexit[p] - enter[p], wake[p] - pexit[p], out[p] - wake[p]
			}
		}' >>parts
		i=$((i + 1))
	done
	if [ $mode = fork ]; then
		names="life user start mm files dead"
	else
		names="life user start mm rest"
	fi
	k=1
	for name in $names; do
		v=$(awk -v k=$k '{print $k}' parts | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
		case $mode.$name in
		fork.life) what="first switch in to last switch out ($(wc -l <parts) children)" ;;
		fork.user) what="ret_from_fork, the faults of glibc's fork() return, _exit(): to sys_enter_exit_group" ;;
		fork.start) what="do_exit() to sched_process_exit: exit_signals(), the group-dead timers, acct, taskstats" ;;
		fork.mm) what="perf_event_exit_task(), exit_mm(): mmput() -> exit_mmap(), to mmap:exit_mmap" ;;
		fork.files) what="the rest of mmput(), exit_files(), exit_fs(), exit_task_work(), cgroup_exit(), exit_notify() to SIGCHLD's signal_generate" ;;
		fork.dead) what="the rest of exit_notify(), do_task_dead(), __schedule() to sched_switch (prev_state Z)" ;;
		thread.life) what="first switch in to last switch out ($(wc -l <parts) threads)" ;;
		thread.user) what="ret_from_fork, start_thread(), exit(): to sys_enter_exit" ;;
		thread.start) what="do_exit() to sched_process_exit" ;;
		thread.mm) what="perf_event_exit_task(), exit_mm() -> exit_mm_release(): to the joiner's sched_wakeup" ;;
		thread.rest) what="mmput() not the last, exit_files(), exit_notify() with release_task(), do_task_dead(), __schedule() to sched_switch (prev_state X)" ;;
		esac
		echo "exit.$mode.$name $v # $what"
		k=$((k + 1))
	done
done
