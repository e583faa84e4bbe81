package pmu

import (
	"fmt"
	"testing"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// retryRace runs one race of tracer (cpu0) against sleeper (cpu1): sleeper
// computes 5us, sleeps wake, then computes 30us; at 20us tracer calls call
// (a perf_event_open() of a task event on sleeper, or an ioctl on one it
// opened at 1us). The livelock bound is 1ns, so any retry round of a loop
// is reported: it returns the lockups seen.
func retryRace(t *testing.T, wake sim.Duration, ioctl bool) []sched.Lockup {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, nil)
	t.Cleanup(m.Close)
	cfg := ExactSleeps()
	cfg.HungTaskTimeout = sim.Nanosecond
	s := sched.New(m, cfg)
	k := NewKernel(s, DefaultOptions(2))
	var got []sched.Lockup
	s.OnLockup = func(l sched.Lockup) { got = append(got, l) }
	sleeper := s.Spawn("sleeper", sched.MaskOf(1), sched.Compute(5*sim.Microsecond), sched.Sleep(wake), sched.Compute(30*sim.Microsecond))
	a := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_TASK_CLOCK}
	fd := -1
	open := func(tk *sched.Task) {
		var err error
		if fd, err = k.PerfEventOpen(tk, &a, sleeper.PID, -1, -1, 0); err != nil {
			t.Errorf("open: %v", err)
		}
	}
	prog := []sched.Op{sched.Sleep(20 * sim.Microsecond), sched.Call(open)}
	if ioctl {
		prog = []sched.Op{sched.Sleep(sim.Microsecond), sched.Call(open), sched.Sleep(19 * sim.Microsecond),
			sched.Call(func(tk *sched.Task) {
				if _, err := k.Ioctl(tk, fd, uapi.PERF_EVENT_IOC_DISABLE, 0); err != nil {
					t.Errorf("DISABLE: %v", err)
				}
			})}
	}
	s.Spawn("tracer", sched.MaskOf(0), prog...)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFuncCallRetryLockup: the retry loops of perf_install_in_context() and
// event_function_call() go round when the task they aim at is asleep as the
// IPI lands (task_function_call() -> -ESRCH) and running again when the
// caller looks under ctx->lock (task_curr(), ctx->is_active). Each round is
// a sched.SpinRound at the loop's step point: with a livelock bound of 1ns
// the first retry is reported, on the caller's CPU, at
// perf_install_in_context:retry or event_function_call:retry, saying what
// the loop found. Sleeper's wake-up is swept across the IPI in 5ns steps:
// with the default costs 20 of the 80 wake-ups (a window of 100ns) land
// between the IPI's -ESRCH and the caller's look under ctx->lock, and only
// those make a round and a report.
func TestFuncCallRetryLockup(t *testing.T) {
	for _, tc := range []struct {
		ioctl bool
		label string
		raced int    // wake-ups that went round the loop
		what  string // the start of the report's What
	}{
		{false, "perf_install_in_context:retry", 20, "perf_install_in_context() of event 1: task_function_call() on sleeper/101 fails (-ESRCH) while task_curr() says it runs"},
		{true, "event_function_call:retry", 20, "event_function_call() for event 1: task_function_call() on sleeper/101 fails (-ESRCH) while ctx->is_active is 0x7 under ctx->lock"},
	} {
		t.Run(tc.label, func(t *testing.T) {
			raced, calm := 0, 0
			for wake := 14900 * sim.Nanosecond; wake < 15300*sim.Nanosecond; wake += 5 * sim.Nanosecond {
				got := retryRace(t, wake, tc.ioctl)
				if len(got) == 0 {
					calm++
					continue
				}
				raced++
				l := got[0]
				if len(got) != 1 || l.Label != tc.label || l.CPU != 0 || l.Task.Comm != "tracer" || len(l.What) < len(tc.what) || l.What[:len(tc.what)] != tc.what {
					t.Errorf("wake %s: lockups %s, want one on cpu0 (tracer) at %s: %s...", wake, fmtLockups(got), tc.label, tc.what)
				}
			}
			if raced != tc.raced || calm != 80-tc.raced {
				t.Errorf("%d wake-ups went round the loop, %d did not: want %d and %d", raced, calm, tc.raced, 80-tc.raced)
			}
		})
	}
}

func fmtLockups(ls []sched.Lockup) string {
	s := ""
	for _, l := range ls {
		s += fmt.Sprintf("[%s cpu%d %s: %s]", l.Task, l.CPU, l.Label, l.What)
	}
	return s
}
