package cpu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// unsettled hides a chooser's sim.Settler: every question is asked in full.
type unsettled struct{ inner sim.Chooser }

func (u unsettled) Choose(n int, what string) int { return u.inner.Choose(n, what) }

// passCounter is a sim.Settler that counts the questions passed.
type passCounter struct {
	*sim.Limited
	passes int
}

func (p *passCounter) Pass() { p.passes++; p.Limited.Pass() }

// TestSettledSameRun: a step point or a tie that asks a settled chooser
// Pass (sim.Settler: a random schedule's budget spent) takes the run the
// full question would: the same trace, decisions, lane runs and steps as
// with the question asked, and the passes are most of the decisions.
func TestSettledSameRun(t *testing.T) {
	for _, cpus := range []int{2, 3, 8} {
		for seed := range uint64(4) {
			for _, budget := range []int{0, 3} {
				asked, eAsked := settledRun(t, cpus, unsettled{&sim.Limited{Inner: sim.NewRandom(seed), Budget: budget}})
				pc := &passCounter{Limited: &sim.Limited{Inner: sim.NewRandom(seed), Budget: budget}}
				passed, ePassed := settledRun(t, cpus, pc)
				if d := cmp.Diff(asked, passed); d != "" {
					t.Fatalf("%d CPUs, seed %d, budget %d: trace (-asked +passed):\n%s", cpus, seed, budget, d)
				}
				if eAsked.Decisions != ePassed.Decisions || eAsked.Runs != ePassed.Runs || eAsked.Steps() != ePassed.Steps() {
					t.Fatalf("%d CPUs, seed %d, budget %d: decisions %d/%d, runs %d/%d, steps %d/%d (asked/passed)", cpus, seed, budget,
						eAsked.Decisions, ePassed.Decisions, eAsked.Runs, ePassed.Runs, eAsked.Steps(), ePassed.Steps())
				}
				if pc.passes == 0 || 2*pc.passes < ePassed.Decisions {
					t.Fatalf("%d CPUs, seed %d, budget %d: %d of %d decisions passed", cpus, seed, budget, pc.passes, ePassed.Decisions)
				}
			}
		}
	}
}

func settledRun(t *testing.T, cpus int, ch sim.Chooser) ([]sim.Record, *sim.Engine) {
	t.Helper()
	recs, e, pv, err := handoffRunWith(cpus, ch, 0)
	if err != nil || pv != nil {
		t.Fatalf("%d CPUs: %v, panic %v", cpus, err, pv)
	}
	return recs, e
}
