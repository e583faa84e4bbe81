package cpu

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// handoffRun runs threads on cpus CPUs, two a CPU switching between them,
// each spending times that tie and overlap the other CPUs' (ties are
// decisions of the random chooser of seed), passing step points, arming
// irq timers on other CPUs and raising NMIs, and returns the trace and the
// engine.
func handoffRun(t *testing.T, cpus int, seed uint64) ([]sim.Record, *sim.Engine) {
	t.Helper()
	m := NewMachine(Config{CPUs: cpus}, sim.NewRandom(seed))
	defer m.Close()
	m.Trace().Keep = true
	var tms []*Timer
	for i, c := range m.CPUs {
		tms = append(tms, c.NewTimer(false, Interrupt{Name: fmt.Sprint("tick", i), Fn: func(c *CPU) { note(c, "tick"); c.Spend(30) }}))
	}
	for i, c := range m.CPUs {
		var pair [2]*Thread
		for k := range pair {
			pair[k] = m.NewThread(fmt.Sprintf("t%d.%d", i, k), func(th *Thread) {
				for j := range 40 {
					th.Spend(sim.Duration(50 + 25*((i+j+k)%3)))
					th.Step("a")
					switch j % 7 {
					case 1:
						tms[(i+1)%cpus].Arm(m.Now() + sim.Time(60+j))
					case 3:
						th.CPU().RaiseNMI(Interrupt{Name: "pmi", Fn: func(c *CPU) { note(c, "nmi"); c.Spend(10) }})
					case 5:
						th.SwitchTo(pair[1-k])
					}
					th.Step("b")
				}
				for {
					th.Idle()
				}
			})
		}
		c.Start(pair[0])
	}
	if err := m.Run(sim.Never); err != nil {
		t.Fatal(err)
	}
	return m.Trace().Records, m.Eng
}

// TestHandoffSameRun: the runs a yielding thread hands straight to the
// next CPU's thread take the steps the engine would: with and without
// handoff, the same trace (every record: time, CPU, what), decisions and
// lane runs, and with it most runs are handed over.
func TestHandoffSameRun(t *testing.T) {
	defer func() { handoff = true }()
	for _, cpus := range []int{2, 3, 8} {
		for seed := range uint64(4) {
			handoff = false
			off, eOff := handoffRun(t, cpus, seed)
			handoff = true
			on, eOn := handoffRun(t, cpus, seed)
			if d := cmp.Diff(off, on); d != "" {
				t.Fatalf("%d CPUs, seed %d: trace (-engine only +handoff):\n%s", cpus, seed, d)
			}
			if eOff.Decisions != eOn.Decisions || eOff.Runs != eOn.Runs || eOff.Steps() != eOn.Steps() {
				t.Fatalf("%d CPUs, seed %d: decisions %d/%d, runs %d/%d, steps %d/%d (engine only/handoff)", cpus, seed,
					eOff.Decisions, eOn.Decisions, eOff.Runs, eOn.Runs, eOff.Steps(), eOn.Steps())
			}
			if eOff.Handoffs != 0 || eOn.Handoffs == 0 || eOn.Handoffs >= eOn.Runs {
				t.Fatalf("%d CPUs, seed %d: %d and %d of %d runs handed over (engine only, handoff)", cpus, seed, eOff.Handoffs, eOn.Handoffs, eOn.Runs)
			}
			t.Logf("%d CPUs, seed %d: %d records, %d decisions, %d of %d runs handed over", cpus, seed, len(on), eOn.Decisions, eOn.Handoffs, eOn.Runs)
		}
	}
}
