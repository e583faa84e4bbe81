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
	recs, e, pv, err := handoffRunWith(cpus, sim.NewRandom(seed), piece)
	if err != nil || pv != nil {
		t.Fatalf("%d CPUs, seed %d: %v, panic %v", cpus, seed, err, pv)
	}
	return recs, e
}

// handoffRunWith is handoffRun's machine with chooser ch: the error Run
// returned or the value it panicked with end it.
func handoffRunWith(cpus int, ch sim.Chooser, piece sim.Time) (recs []sim.Record, eng *sim.Engine, pv any, err error) {
	m := NewMachine(Config{CPUs: cpus}, ch)
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
				defer func() {
					if !th.Unwinding() { // a panic through the thread's code, not Close
						note(c, "unwound")
					}
				}()
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
	defer func() {
		pv = recover()
		recs, eng = m.Trace().Records, m.Eng
	}()
	for {
		if err = m.Run(until); err != nil {
			return
		}
		if !m.Eng.Pending() {
			return
		}
		until += piece
	}
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

// tieTrap answers as the random chooser of its seed, and at its k-th
// decision between tied lanes (pick's "tie") panics with a value of its own
// (a strategy's control flow, like explore's stopRun) or, with oops,
// answers past the options (the engine's oops).
type tieTrap struct {
	inner sim.Chooser
	k     int
	oops  bool
	ties  int
}

type trapped struct{ K int }

func (c *tieTrap) Choose(n int, what string) int {
	if what == "tie" {
		if c.ties++; c.ties == c.k {
			if c.oops {
				return n
			}
			panic(trapped{K: c.k})
		}
	}
	return c.inner.Choose(n, what)
}

// TestHandoffTiePanics: a Chooser that panics (or answers out of range) at
// a tie decided in a yielding lane's handoff ends the run as it does when
// the engine decides it: the same panic value or oops, trace, decisions and
// steps, and no lane's model code unwound by it (a panic through a lane's
// coroutine would end that thread: the runs would then differ when Close
// kills the rest).
func TestHandoffTiePanics(t *testing.T) {
	defer func() { handoff = true }()
	for _, oops := range []bool{false, true} {
		for _, k := range []int{1, 3, 10} {
			type result struct {
				Recs            []sim.Record
				Err             string
				Panic           any
				Decisions, Runs int
				Steps           uint64
			}
			var got [2]result
			for i, on := range []bool{false, true} {
				handoff = on
				recs, e, pv, err := handoffRunWith(8, &tieTrap{inner: sim.NewRandom(7), k: k, oops: oops}, 0)
				r := result{Recs: recs, Panic: pv, Decisions: e.Decisions, Runs: int(e.Runs), Steps: e.Steps()}
				if err != nil {
					r.Err = err.Error()
				}
				got[i] = r
			}
			if d := cmp.Diff(got[0], got[1]); d != "" {
				t.Fatalf("oops %v, tie %d: (-engine only +handoff):\n%s", oops, k, d)
			}
			if oops && got[1].Err == "" || !oops && got[1].Panic != (trapped{K: k}) {
				t.Fatalf("oops %v, tie %d: the run ended with %q, panic %v", oops, k, got[1].Err, got[1].Panic)
			}
		}
	}
}
