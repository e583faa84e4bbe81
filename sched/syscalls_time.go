package sched

// clock_gettime() of a CPU-time clock: the vDSO answers the other clocks in
// user space (no system call at all), but not CLOCK_PROCESS_CPUTIME_ID,
// CLOCK_THREAD_CPUTIME_ID or a pid's CPU clock (clock_getcpuclockid(),
// pthread_getcpuclockid()): those enter the kernel, and reading the running
// task's runtime runs update_curr() on its run queue, which fires
// sched_stat_runtime for the time since it was last accounted:
//
//	thread clock:  posix_cpu_clock_get() -> cpu_clock_sample(CPUCLOCK_SCHED)
//	               -> task_sched_runtime(p): p->on_cpu and queued, so
//	               update_curr() under the rq lock
//	process clock: cpu_clock_sample_group() -> __thread_group_cputime() ->
//	               thread_group_cputime(): "if (same_thread_group(current,
//	               tsk)) (void) task_sched_runtime(current);" (the other
//	               threads' pending time is not accounted); with a process
//	               CPU timer armed (timers_active) it reads the cputimer
//	               instead: the model has no POSIX CPU timers.
//
// The model answers the caller's own clocks: CLOCK_PROCESS_CPUTIME_ID (2),
// CLOCK_THREAD_CPUTIME_ID (3) and their pid-0 forms MAKE_PROCESS_CPUCLOCK(0,
// CPUCLOCK_SCHED) and MAKE_THREAD_CPUCLOCK(0, CPUCLOCK_SCHED); another pid's
// CPU clock and the other clock ids fire their tracepoints and return 0.

// include/uapi/linux/time.h; include/linux/posix-timers_types.h
const (
	clockProcessCPUTimeID = 2
	clockThreadCPUTimeID  = 3
	cpuclockSched         = 2 // CPUCLOCK_SCHED
	cpuclockClockMask     = 3 // CPUCLOCK_CLOCK_MASK
)

func init() {
	// kernel/time/posix-timers.c: SYSCALL_DEFINE2(clock_gettime)
	sysModels["clock_gettime"] = func(s *Sched, t *Task, a *[6]uint64) int64 {
		if ownSchedClock(int32(a[0])) {
			if c := t.CPU(); c != nil {
				s.updateCurr(c, t) // kernel/sched/core.c: task_sched_runtime() -> update_curr()
			}
		}
		return 0
	}
}

// ownSchedClock reports whether clk is the caller's own thread or process
// CPU-time clock (CPUCLOCK_SCHED), which task_sched_runtime(current) reads.
// include/linux/posix-timers_types.h: MAKE_PROCESS_CPUCLOCK(), CPUCLOCK_PID()
func ownSchedClock(clk int32) bool {
	switch {
	case clk == clockProcessCPUTimeID || clk == clockThreadCPUTimeID:
		return true
	case clk >= 0:
		return false
	}
	pid := ^(clk >> 3) // CPUCLOCK_PID(): ~(clock >> 3)
	return pid == 0 && clk&cpuclockClockMask == cpuclockSched
}
