package explore

import (
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// exploreSparse runs the sparse strategy (Sparse): seeds Seed..Seed+Runs-1,
// each a plan of at most Budget disturbances placed uniformly over the
// decisions of the quiet run, which one run measures first (the horizon). A
// violation is shrunk and recorded as for random: its dense decision list.
func exploreSparse(f *scenarios.File, o Options, ex *Result) error {
	horizon, err := quietHorizon(f, o)
	if err != nil {
		return err
	}
	return exploreSeeds(f, o, ex, func(seed uint64) sim.Chooser { return NewSparse(seed, horizon, o.Budget) })
}

// quietHorizon is the number of decisions of f's quiet run (every decision 0).
// It is not counted among the schedules.
func quietHorizon(f *scenarios.File, o Options) (int, error) {
	r, _, err := runner.RunOnce(f, o.runOptions(sim.NewReplay(nil), false))
	if err != nil {
		return 0, err
	}
	return r.NumDecisions(), nil
}
