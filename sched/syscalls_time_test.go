package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// statLog records each sched_stat_runtime: the system call the task was in
// and the runtime reported.
type statLog struct {
	traceLog
	fired []string
	d     []sim.Duration
}

func (l *statLog) SchedStatRuntime(c *cpu.CPU, t *Task, d sim.Duration) {
	l.fired = append(l.fired, fmt.Sprintf("%s in %q", t.Comm, t.Syscall))
	l.d = append(l.d, d)
}

// TestClockGettimeCPUTimeUpdatesCurr: clock_gettime() of the caller's own
// CPU-time clocks (CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID and the
// pid-0 forms pthread_getcpuclockid()/clock_getcpuclockid() give) runs
// task_sched_runtime() -> update_curr(): sched_stat_runtime fires for the
// time since the task was last accounted (its compute and the syscall
// entry); CLOCK_MONOTONIC and another pid's clock do not.
func TestClockGettimeCPUTimeUpdatesCurr(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	l := &statLog{}
	s.TraceHooks = append(s.TraceHooks, l)
	clock := func(id int64) Op {
		return SyscallArgs("clock_gettime", 0, "", SysArg{Val: uint64(id)}, SysArg{Val: 0x1000})
	}
	const work = 7 * sim.Microsecond
	s.Spawn("app", CPUMask{},
		Compute(work), clock(3), // CLOCK_THREAD_CPUTIME_ID
		Compute(work), clock(2), // CLOCK_PROCESS_CPUTIME_ID
		Compute(work), clock(-2), // MAKE_THREAD_CPUCLOCK(0, CPUCLOCK_SCHED)
		Compute(work), clock(-6), // MAKE_PROCESS_CPUCLOCK(0, CPUCLOCK_SCHED)
		Compute(work), clock(1), // CLOCK_MONOTONIC (the vDSO's, made as a syscall)
		Compute(work), clock(^int64(1234)<<3|6), // pid 1234's thread clock
		Compute(work), clock(-8), // MAKE_THREAD_CPUCLOCK(0, CPUCLOCK_PROF): not the sched clock
	)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	in := `app in "clock_gettime"`
	if diff := cmp.Diff([]string{in, in, in, in}, l.fired[:min(4, len(l.fired))]); diff != "" {
		t.Errorf("sched_stat_runtime (-want +got):\n%s", diff)
	}
	for i, d := range l.d[:min(4, len(l.d))] {
		if want := work + s.Cfg.SyscallCost; d != want {
			t.Errorf("update_curr() %d reported %v, want %v: the compute since the last one and the syscall's time in the kernel before it", i, d, want)
		}
	}
	for _, f := range l.fired[min(4, len(l.fired)):] {
		if f == in {
			t.Errorf("sched_stat_runtime in a clock_gettime() that reads no own sched clock: %q", l.fired)
		}
	}
}
