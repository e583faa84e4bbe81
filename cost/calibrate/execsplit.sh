#!/bin/sh
# execsplit.sh [N] [REPS] [TARGET]: where an execve() goes, for the cost
# model's exec costs (cost.FitExecSplit). forkexit.c's exec mode forks N
# children (default 2000) that each execv() TARGET (default /usr/bin/true,
# dynamically linked: the image and ld.so, as the model's Execve maps
# them), REPS times (default 5), recorded system-wide with the tracepoints
# that mark execve()'s parts; the median of each part's wall ns over the
# execs that were not switched out between sys_enter_execve and
# sys_exit_execve (exec does not sleep when its files are cached, so the
# wall time is CPU time; the recording's own samples and side band add a
# few per cent, as forkexit.c's clocks show for a static target). As root
# (perf record -a). Its output is cost/testdata/execsplit.txt:
# `sh cost/calibrate/execsplit.sh > cost/testdata/execsplit.txt`.
#
#   start  sys_enter_execve -> mmap:exit_mmap: do_execveat_common()'s
#          alloc_bprm() (do_open_execat(), bprm_mm_init()), copy_strings(),
#          bprm_execve() -> sched_exec(), exec_binprm() -> load_elf_binary()
#          reading the headers and opening the interpreter, begin_new_exec()
#          -> de_thread(), exec_mmap() -> mmput() of the fork's copy ->
#          exit_mmap(), which it ends
#   load   -> sched:sched_process_exec: the rest of begin_new_exec()
#          (perf_event_exec(), __set_task_comm(), do_close_on_exec()),
#          setup_new_exec(), setup_arg_pages(), the PT_LOAD mappings,
#          load_elf_interp(), map_vdso(), create_elf_tables(), start_thread()
#   end    -> sys_exit_execve: bprm_execve()'s and do_execveat_common()'s
#          cleanup
set -e
n=${1:-2000}
reps=${2:-5}
target=${3:-/usr/bin/true}
dir=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -pthread -o "$tmp/forkexit" "$dir/forkexit.c"
cd "$tmp"
echo "# cost/calibrate/execsplit.sh $n $reps $target on $(date -u +%Y-%m-%d): kernel $(uname -r)"
echo "# cpu: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cpus; wall ns between tracepoints under perf record -a (median over the execs of $reps runs of $n not switched out); load average $(cut -d" " -f1-3 /proc/loadavg)"
: >parts
i=0
while [ $i -lt "$reps" ]; do
	perf record -q -a -o rec.data -e syscalls:sys_enter_execve,mmap:exit_mmap,sched:sched_process_exec,syscalls:sys_exit_execve,sched:sched_switch \
		./forkexit exec "$n" "$target" >/dev/null 2>&1
	perf script --ns -i rec.data -F tid,time,event,trace 2>/dev/null | awk '
	{
		tid = $1; t = $2; sub(/:$/, "", t); t = t * 1e9; ev = $3
		if (ev == "sched:sched_switch:") {
			match($0, /prev_pid=[0-9]+/); pp = substr($0, RSTART + 9, RLENGTH - 9)
			if ((pp in enter) && !(pp in sysexit)) sw[pp] = 1
		} else if (ev == "syscalls:sys_enter_execve:") {
			if (!(tid in enter)) enter[tid] = t
		} else if (ev == "mmap:exit_mmap:") {
			if ((tid in enter) && !(tid in mm)) mm[tid] = t
		} else if (ev == "sched:sched_process_exec:") {
			if ((tid in enter) && !(tid in pexec)) pexec[tid] = t
		} else if (ev == "syscalls:sys_exit_execve:") {
			if ((tid in enter) && !(tid in sysexit)) sysexit[tid] = t
		}
	}
	END {
		for (p in sysexit) {
			if (!(p in mm) || !(p in pexec) || (p in sw))
				continue
			printf "%.0f %.0f %.0f %.0f\n", sysexit[p] - enter[p], mm[p] - enter[p], pexec[p] - mm[p], sysexit[p] - pexec[p]
		}
	}' >>parts
	i=$((i + 1))
done
k=1
for name in total start load end; do
	v=$(awk -v k=$k '{print $k}' parts | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
	case $name in
	total) what="sys_enter_execve to sys_exit_execve ($(wc -l <parts) execs)" ;;
	start) what="alloc_bprm(), copy_strings(), load_elf_binary() to begin_new_exec(), de_thread(), exec_mmap() -> mmput() of the fork's copy: to mmap:exit_mmap" ;;
	load) what="the rest of begin_new_exec(), setup_new_exec(), the mappings, create_elf_tables(): to sched_process_exec" ;;
	end) what="bprm_execve()'s cleanup: to sys_exit_execve" ;;
	esac
	echo "exec.$name $v # $what"
	k=$((k + 1))
done
