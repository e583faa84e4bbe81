package explore

import (
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

func init() {
	cpu.DeclareComplete("start:canceler", "start:sleeper", "cancel-test:a", "cancel-test:b", "cancel-test:c", "enter:cancel-test-timer")
}

// TestDPORTimerCancel: a CPU cancelling another CPU's timer at the time it
// is due (hrtimer_cancel() of a timer queued on another CPU) races with its
// expiry: whichever comes first decides whether the handler runs. Every
// fragment is declared complete and none annotates an access, so only the
// cancel's post to the timer's CPU (cpu.Timer.Cancel) tells dpor the two are
// dependent; without it dpor ran one order and missed the other final state.
func TestDPORTimerCancel(t *testing.T) {
	var states map[string]bool
	run := func(ch sim.Chooser, attach func(*cpu.Machine)) {
		m := cpu.NewMachine(cpu.Config{CPUs: 2}, ch)
		defer m.Close()
		fired := false
		tm := m.CPUs[1].NewTimer(false, cpu.Interrupt{Name: "cancel-test-timer", Fn: func(*cpu.CPU) { fired = true }})
		canceler := m.NewThread("canceler", func(th *cpu.Thread) {
			th.Step("cancel-test:a")
			th.Spend(100 * sim.Nanosecond)
			th.Step("cancel-test:b")
			tm.Cancel()
			th.Step("cancel-test:c")
			for {
				th.Idle()
			}
		})
		sleeper := m.NewThread("sleeper", func(th *cpu.Thread) {
			for {
				th.Idle()
			}
		})
		m.CPUs[0].Start(canceler)
		m.CPUs[1].Start(sleeper)
		tm.Arm(100 * sim.Nanosecond)
		if attach != nil {
			attach(m)
		}
		if err := m.Run(sim.Never); err != nil {
			t.Fatal(err)
		}
		if fired {
			states["fired"] = true
		} else {
			states["cancelled"] = true
		}
	}
	states = map[string]bool{}
	full, ex := fullWalk(1000, -1, func(ch sim.Chooser) { run(ch, nil) })
	if !ex {
		t.Fatal("whole tree: not walked")
	}
	wantStates := slices.Sorted(maps.Keys(states))
	states = map[string]bool{}
	s, ex, err := porWalk(1000, run)
	if err != nil || !ex {
		t.Fatalf("dpor: exhausted %v, %v", ex, err)
	}
	if d := cmp.Diff([]string{"cancelled", "fired"}, wantStates); d != "" {
		t.Errorf("whole tree's final states (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantStates, slices.Sorted(maps.Keys(states))); d != "" {
		t.Errorf("final states (-whole tree +dpor):\n%s", d)
	}
	if d := cmp.Diff([]int{12, 2, 2}, []int{full, s.Runs - s.Blocked, s.Blocked}); d != "" {
		t.Errorf("whole tree, dpor's schedules, stopped as equivalent (-want +got):\n%s", d)
	}
	t.Logf("whole tree %d schedules, dpor %d (+%d blocked)", full, s.Runs-s.Blocked, s.Blocked)
}
