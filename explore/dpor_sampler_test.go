package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// samplerTieSrc: an "at TIME" outcome whose sampler (a lane of no CPU,
// runner/outcome.go) is due at the instant task a leaves cpu0: which of the
// two runs first decides what it sees.
const samplerTieSrc = `scenario sampler-tie
cpus 2
kernel cost-model=free
task a cpu0
  compute 10us
  migrate cpu1
  compute 5us
task b cpu1
  compute 20us
sometimes task.a.cpu == 1 at 10us
sometimes task.a.cpu == 0 at 10us
`

// TestDPOROutcomeSampler: dpor takes the outcome sampler for an agent of
// its own whose fragment touches everything (porRun.Other), so both orders
// of the sampler and cpu0's migration are run and each outcome is seen
// both ways, as in the full tree. (Before, the tie's agent of no CPU made
// dpor index past the CPUs: a violation with no name at schedule 1.)
func TestDPOROutcomeSampler(t *testing.T) {
	f, err := scenarios.Parse("sampler-tie.sim", []byte(samplerTieSrc))
	if err != nil {
		t.Fatal(err)
	}
	full, fruns, fex := builtinResults(t, f, nil, false, 5000)
	got, runs, ex := builtinResults(t, f, nil, true, 5000)
	if !fex || !ex {
		t.Fatalf("not exhaustive within 5000 schedules: full tree %v, dpor %v", fex, ex)
	}
	if d := cmp.Diff(full, got); d != "" {
		t.Errorf("final results (-full tree +dpor):\n%s", d)
	}
	if d := cmp.Diff([]string{"FT ", "TF "}, got); d != "" {
		t.Errorf("dpor's final results (-want +got): each outcome true in one order, false in the other:\n%s", d)
	}
	t.Logf("full tree %d schedules, dpor %d; results %q", fruns, runs, got)
}
