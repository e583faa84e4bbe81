package runner

import (
	"perfsim/scenarios"

	"flag"
	"strconv"
	"sync"
	"testing"

	"perfsim/sim"
	"pgregory.net/rapid"
)

// exploreRapid lets rapid draw the schedules (sim.Rapid) and shrink a failing
// one. The counts cover the schedules up to the first failure; rapid's
// shrinking runs are not counted.
func exploreRapid(f *scenarios.File, o ExploreOptions, ex *ExploreResult) error {
	// rapid asks testing.Short(), which panics outside a test binary until the
	// test flags are registered and parsed (simrun is not a test).
	if !testing.Testing() {
		initTesting.Do(func() {
			testing.Init()
			if !flag.Parsed() {
				_ = flag.CommandLine.Parse(nil)
			}
		})
	}
	defer setFlag("rapid.checks", strconv.Itoa(o.Runs))()
	defer setFlag("rapid.seed", strconv.FormatUint(max(o.Seed, 1), 10))()
	horizon, err := quietHorizon(f, o)
	if err != nil {
		return err
	}
	var (
		failing  []int
		sig      string
		firstAt  int
		buildErr error
		calls    int
	)
	sim.RapidFind(ex.Scenario, func(t *rapid.T) {
		if buildErr != nil {
			return
		}
		calls++
		r, res, err := RunOnce(f, o.runOptions(&sim.Rapid{T: t, Horizon: horizon}, false))
		if err != nil {
			buildErr = err
			return
		}
		if firstAt == 0 {
			ex.count(res)
			if o.Progress != nil {
				o.Progress(ex.Schedules, o.Runs)
			}
		}
		s := signature(r, res)
		if s == "" {
			return
		}
		if firstAt == 0 {
			firstAt, sig = calls, s
		}
		// rapid re-runs the minimal failing case last: keep the latest.
		failing = r.Decisions()
		t.Fatalf("%s", s)
	})
	if buildErr != nil {
		return buildErr
	}
	if failing == nil {
		return nil
	}
	fd, err := describeSchedule(f, o, trimZeros(failing))
	if err != nil {
		return err
	}
	fd.Schedule, fd.Seed, fd.Original, fd.ShrinkRuns = firstAt, o.Seed, len(failing), calls-firstAt
	fd.OriginalDisturbing = disturbing(failing)
	_ = sig
	ex.Found = fd
	return nil
}

// setFlag sets a flag of the default set (rapid's) and returns its restorer.
func setFlag(name, value string) func() {
	fl := flag.Lookup(name)
	if fl == nil {
		return func() {}
	}
	old := fl.Value.String()
	_ = fl.Value.Set(value)
	return func() { _ = fl.Value.Set(old) }
}

var initTesting sync.Once
