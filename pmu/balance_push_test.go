package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestBalancePushTaskEvents: tasks with per-task events on a CPU that goes
// down. Each task queued there is switched in on the dying CPU (its events
// scheduled in by perf_event_task_sched_in()), then switched out to
// migration/N, which moves it: one context switch and one migration more
// than a direct move from the run queue would count. a and b share cpu1
// in 10us slices; cpuhp/1, woken at 20us, preempts b at its tick and runs
// sched_cpu_deactivate() before it sleeps in sched_cpu_wait_empty(): a,
// then b, are switched in and pushed. perf reads at 25us from cpu3, which
// nothing else uses. Each counts its switch out to the stopper
// (context-switches) besides its preemption (a by b's turn, b by cpuhp/1);
// a also its move (cpu-migrations, counted at its sched-in on cpu0), b not
// yet (it waits on cpu2 behind c and c2). The old model moved b from the
// run queue without a switch ({0, 0}) and switched a out to idle once
// ({1, 1}).
// kernel/sched/core.c: balance_push(), __balance_push_cpu_stop(); kernel/events/core.c: perf_event_task_sched_out(), perf_event_task_sched_in()
func TestBalancePushTaskEvents(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 4}, nil)
	t.Cleanup(m.Close)
	cfg := ExactSleeps()
	cfg.Tick, cfg.Slice = 10*sim.Microsecond, 10*sim.Microsecond // cpuhp/1, woken at 20us, gets cpu1 within a slice or two
	s := sched.New(m, cfg)
	k := NewKernel(s, DefaultOptions(4))
	s.Spawn("c", sched.MaskOf(2), sched.Compute(100*sim.Microsecond))
	s.Spawn("c2", sched.MaskOf(2), sched.Compute(100*sim.Microsecond)) // cpu2 as loaded as cpu1: b starts on cpu1
	a := s.Spawn("a", sched.MaskOf(1), sched.Compute(100*sim.Microsecond))
	b := s.Spawn("b", sched.MaskOf(1, 2), sched.Compute(100*sim.Microsecond))
	type fds struct{ cs, mig int }
	open := map[*sched.Task]fds{}
	got := map[string][2]int64{}
	s.Spawn("perf", sched.MaskOf(3), sched.Call(func(tk *sched.Task) {
		for _, x := range []*sched.Task{a, b} {
			cs, mig := swAttrOf(uapi.PERF_COUNT_SW_CONTEXT_SWITCHES), swAttrOf(uapi.PERF_COUNT_SW_CPU_MIGRATIONS)
			f1, err1 := k.PerfEventOpen(tk, &cs, x.PID, -1, -1, 0)
			f2, err2 := k.PerfEventOpen(tk, &mig, x.PID, -1, -1, 0)
			if err1 != nil || err2 != nil {
				t.Fatalf("open on %s: %v %v", x.Comm, err1, err2)
			}
			open[x] = fds{f1, f2}
		}
	}), sched.Sleep(25*sim.Microsecond), sched.Call(func(tk *sched.Task) {
		for x, f := range open {
			got[x.Comm] = [2]int64{k.EventOf(tk, f.cs).Count(), k.EventOf(tk, f.mig).Count()}
		}
	}))
	s.Spawn("hotplug", sched.MaskOf(0), sched.Sleep(20*sim.Microsecond),
		sched.Call(func(tk *sched.Task) { s.Syscall(tk, "write", func(tk *sched.Task) { _ = s.CPUDown(tk, 1) }) }))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	// {context-switches, cpu-migrations} at 25us, cpu1 gone at 20us
	want := map[string][2]int64{
		"a": {2, 1}, // preempted for b, then switched out to migration/1; moved to cpu0
		"b": {2, 0}, // preempted for cpuhp/1, then switched out to migration/1; moved to cpu2, where it waits behind c and c2 (the migration counts at its sched-in there)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-task {context-switches, cpu-migrations} (-want +got):\n%s", diff)
	}
}

// swAttrOf is a software event's attr.
func swAttrOf(config uint64) Attr {
	return Attr{Type: uapi.PERF_TYPE_SOFTWARE, Size: uapi.AttrSize, Config: config}
}
