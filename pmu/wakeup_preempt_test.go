package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestWakeupPreemptSwapsEvents: on one CPU hog computes 20ms; sleeper gets
// the CPU at the first tick (4ms: hog used its 3ms slice and sleeper waits),
// opens its task-clock and sleeps 5ms while hog runs again. When the timer
// wakes sleeper, hog has run 5ms, more than its slice, since it was picked,
// so check_preempt_wakeup_fair() marks it (RUN_TO_PARITY no longer
// protects it) and it switches at the timer interrupt's return to user
// mode: perf_event_task_sched_out() takes hog's task-clock off (INACTIVE,
// its count updated to all it ran) and sleeper's is scheduled in. Without
// wakeup preemption sleeper would wait for hog's next tick (up to 4ms).
func TestWakeupPreemptSwapsEvents(t *testing.T) {
	mc := newMachine(t, 1, sim.NewReplay(nil), pmu.Knobs{})
	type view struct {
		SleeperRanAtWake bool           // within 50us of the end of its 5ms sleep
		HogState         pmu.EventState // hog's task-clock when sleeper runs
		HogCountUpdated  bool           // its count, updated at the switch, is all hog ran: within 50us of now
		SleeperState     pmu.EventState
	}
	var got view
	var hogEv *pmu.Event
	a := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
	mc.s.Spawn("hog", sched.MaskOf(0),
		sched.Call(func(tk *sched.Task) {
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			hogEv = mc.k.EventOf(tk, fd)
		}),
		sched.Compute(20*sim.Millisecond))
	mc.s.Spawn("sleeper", sched.MaskOf(0),
		sched.Call(func(tk *sched.Task) {
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			ev := mc.k.EventOf(tk, fd)
			start := mc.m.Now()
			mc.s.RunOps(tk, []sched.Op{sched.Sleep(5 * sim.Millisecond)})
			now := mc.m.Now()
			got.SleeperRanAtWake = now-start >= 5*sim.Millisecond && now-start < 5*sim.Millisecond+50*sim.Microsecond
			got.HogState = hogEv.State()
			got.HogCountUpdated = int64(now)-hogEv.Count() >= 0 && int64(now)-hogEv.Count() < int64(50*sim.Microsecond)
			got.SleeperState = ev.State()
		}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := view{SleeperRanAtWake: true, HogState: pmu.StateInactive, HogCountUpdated: true, SleeperState: pmu.StateActive}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("a wakeup after hog's slice (-want +got):\n%s", diff)
	}
}
