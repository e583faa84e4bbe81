package pmu

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// stopRun is what stopRace saw of one perf_event_stop(event, 1).
type stopRun struct {
	Err         error      // perf_event_stop()'s return
	Retries     uint64     // funccall.stop-eagain
	RetrySteps  []string   // "cpuN task" at each perf_event_stop:retry
	IPIs        uint64     // call_function_single IPIs the stop took
	State       EventState // the event after it
	OnCPU       int
	Lockups     []string // "label on cpuN by task: what"
	HeldTakenOn int      // the CPU the held IPI was released on, or -1
	StartAt     sim.Time // when tracer called perf_event_stop()
	RetryAt     sim.Time // when tracer reached perf_event_stop:retry (the last time)
}

// stopRace: app (task-clock event, opened by tracer at 1us) computes on
// cpu1 until 10us, wakes bystander (pinned to cpu1) through a pipe and
// moves to cpu2; bystander then makes system calls on cpu1. At 5us tracer
// (cpu0) calls perf_event_stop(event, 1): it reads event->oncpu == 1 and
// IPIs cpu1. With hold, cpu1 holds that IPI back (HoldIRQ, as a scenario's
// "ipi cpu1 at LABEL") until one of bystander's syscall entries after the
// event went ACTIVE on cpu2; without, cpu1 takes it at once. timeout is
// the livelock bound (0: the default).
func stopRace(t *testing.T, hold bool, timeout sim.Duration) stopRun {
	m := cpu.NewMachine(cpu.Config{CPUs: 3}, nil)
	t.Cleanup(m.Close)
	cfg := ExactSleeps()
	if timeout != 0 {
		cfg.HungTaskTimeout = timeout
	}
	s := sched.New(m, cfg)
	k := NewKernel(s, DefaultOptions(3))
	run := stopRun{HeldTakenOn: -1}
	s.OnLockup = func(l sched.Lockup) {
		run.Lockups = append(run.Lockups, l.Label+" on cpu"+itoa(l.CPU)+" by "+l.Task.Comm+": "+l.What)
	}
	app := s.Spawn("app", sched.MaskOf(1), sched.Compute(10*sim.Microsecond), sched.PipeWrite("p", 1),
		sched.Migrate(2), sched.Compute(40*sim.Microsecond))
	s.Spawn("bystander", sched.MaskOf(1), sched.PipeRead("p", 1),
		sched.Loop(30, sched.Syscall("getppid"), sched.Compute(sim.Microsecond)))
	var e *Event
	m.AddStepHook(func(c *cpu.CPU, label string) {
		switch {
		case label == "perf_event_stop:retry":
			run.RetrySteps = append(run.RetrySteps, "cpu"+itoa(c.ID)+" "+sched.TaskOf(c.Curr()).Comm)
			run.RetryAt = c.Now()
		case hold && run.HeldTakenOn < 0 && c.ID == 1 && label == "syscall_enter_from_user_mode" &&
			e != nil && e.state == StateActive && e.oncpu == 2:
			if c.ExpediteIRQ(IPIName) {
				run.HeldTakenOn = c.ID
			}
			c.ReleaseIRQ(IPIName)
		}
	})
	a := Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_TASK_CLOCK}
	s.Spawn("tracer", sched.MaskOf(0), sched.Sleep(sim.Microsecond),
		sched.Call(func(tk *sched.Task) {
			if _, err := k.PerfEventOpen(tk, &a, app.PID, -1, -1, 0); err != nil {
				t.Fatalf("open: %v", err)
			}
			e = k.events[0]
		}),
		sched.Sleep(4*sim.Microsecond),
		sched.Call(func(tk *sched.Task) {
			if e.state != StateActive || e.oncpu != 1 {
				t.Errorf("at the stop the event is %v on cpu%d, want ACTIVE on cpu1", e.state, e.oncpu)
			}
			if hold {
				m.CPUs[1].HoldIRQ(IPIName)
			}
			ipis := k.stats.ipis
			run.StartAt = k.now()
			run.Err = k.perfEventStop(tk, e, true)
			run.IPIs = k.stats.ipis - ipis
			run.Retries = k.stats.stopRetries
			run.State, run.OnCPU = e.state, e.oncpu
		}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	return run
}

// TestPerfEventStopRetry: perf_event_stop()'s -EAGAIN loop. When cpu1 takes
// the IPI at once, __perf_event_stop() stops and restarts the event there:
// one IPI, no retry. When the IPI reaches cpu1 only after the event moved
// with its task to cpu2 (ACTIVE there), __perf_event_stop() returns
// -EAGAIN; perf_event_stop() goes round once (step point
// perf_event_stop:retry on tracer's cpu0), reads event->oncpu == 2 and
// stops and restarts it there: two IPIs, the event ACTIVE on cpu2, 0
// returned, and no report with the default livelock bound.
//
// The round is a soft-lockup round: with the livelock bound set to the time
// from the loop's start (5us) to the retry, the first look that reaches it
// is the retry's (csd_lock_wait()'s last look at the held IPI came before),
// and the report names the retry step, tracer's cpu0, both CPUs and cpu2's
// state.
func TestPerfEventStopRetry(t *testing.T) {
	moved := stopRun{Retries: 1, RetrySteps: []string{"cpu0 tracer"}, IPIs: 2, State: StateActive, OnCPU: 2, HeldTakenOn: 1}
	for _, tc := range []struct {
		name string
		hold bool
		want stopRun
	}{
		{"ipi-at-once", false, stopRun{IPIs: 1, State: StateActive, OnCPU: 1, HeldTakenOn: -1}},
		{"moved", true, moved},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := stopRace(t, tc.hold, 0)
			if len(got.Lockups) != 0 {
				t.Errorf("lockups %q, want none", got.Lockups)
			}
			got.StartAt, got.RetryAt = 0, 0
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("perf_event_stop() (-want +got):\n%s", d)
			}
		})
	}
	t.Run("moved-bound-at-retry", func(t *testing.T) {
		first := stopRace(t, true, 0)
		if first.RetryAt <= first.StartAt {
			t.Fatalf("retry at %s, want after the stop began at %s", first.RetryAt, first.StartAt)
		}
		got := stopRace(t, true, sim.Duration(first.RetryAt-first.StartAt))
		want := "perf_event_stop:retry on cpu0 by tracer: perf_event_stop() of event 1: __perf_event_stop() on cpu1 found it ACTIVE on cpu2 (-EAGAIN), " +
			"on every round since " + first.StartAt.String() + ": cpu2 runs app-101 (task context, irqs on, last step "
		if len(got.Lockups) != 1 || !strings.HasPrefix(got.Lockups[0], want) {
			t.Errorf("lockups %q, want one starting %q", got.Lockups, want)
		}
	})
}

// TestRetryRoundCharge: a retry round (retryRound, the rounds of
// perf_event_stop(), event_function_call() and perf_install_in_context())
// passes its step point and, when the round itself passed no virtual time
// (an IPI taken at the instant it was sent), costs spinCost, so that a loop
// that never ends still reaches the livelock bound; a round that took time
// costs nothing more.
func TestRetryRoundCharge(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
	t.Cleanup(m.Close)
	s := sched.New(m, sched.DefaultConfig())
	k := NewKernel(s, DefaultOptions(1))
	steps := 0
	m.AddStepHook(func(c *cpu.CPU, label string) {
		if label == "perf_event_stop:retry" {
			steps++
		}
	})
	var got []sim.Duration
	s.Spawn("caller", sched.MaskOf(0), sched.Call(func(tk *sched.Task) {
		what := func() string { return "" }
		start := k.now()
		k.retryRound(tk, "perf_event_stop:retry", start, start, what) // a round of no time
		got = append(got, sim.Duration(k.now()-start))
		round := k.now()
		tk.Spend(ipiCost) // a round that waited for an IPI
		k.retryRound(tk, "perf_event_stop:retry", start, round, what)
		got = append(got, sim.Duration(k.now()-round))
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]sim.Duration{spinCost, ipiCost}, got); d != "" || steps != 2 {
		t.Errorf("round lengths (-want +got):\n%s\nstep points passed %d, want 2", d, steps)
	}
}
