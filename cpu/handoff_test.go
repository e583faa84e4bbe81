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
// engine. piece > 0 runs the machine piece by piece (Run's until), as the
// runner's watchers do.
func handoffRun(t *testing.T, cpus int, seed uint64, piece sim.Time) ([]sim.Record, *sim.Engine) {
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
	until := sim.Never
	if piece > 0 {
		until = piece
	}
	for {
		if err := m.Run(until); err != nil {
			t.Fatal(err)
		}
		if !m.Eng.Pending() {
			break
		}
		until += piece
	}
	return m.Trace().Records, m.Eng
}

// TestHandoffSameRun: the runs a yielding thread hands straight to the
// next CPU's thread take the steps the engine would: with and without
// handoff, the same trace (every record: time, CPU, what), decisions and
// lane runs, and with it most runs are handed over.
func TestHandoffSameRun(t *testing.T) {
	defer func() { handoff = true }()
	for _, c := range []struct {
		cpus  int
		piece sim.Time
	}{{2, 0}, {3, 0}, {8, 0}, {3, 333}, {8, 97}} {
		cpus := c.cpus
		for seed := range uint64(4) {
			handoff = false
			off, eOff := handoffRun(t, cpus, seed, c.piece)
			handoff = true
			on, eOn := handoffRun(t, cpus, seed, c.piece)
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
			t.Logf("%d CPUs, runs of %d, seed %d: %d records, %d decisions, %d of %d runs handed over", cpus, c.piece, seed, len(on), eOn.Decisions, eOn.Handoffs, eOn.Runs)
		}
	}
}
