package explore

import (
	"pgregory.net/rapid"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/simrapid"
)

// exploreRapid lets rapid draw the schedules (simrapid.Chooser, at most Budget
// disturbances each) and shrink a failing one. The counts cover the schedules
// up to the first failure; rapid's shrinking runs are not counted. An
// interruption is seen between schedules: rapid takes a panic in a run for a
// failure, so a run under way finishes.
func exploreRapid(f *scenarios.File, o Options, ex *Result) error {
	horizon, err := quietHorizon(f, o)
	if err != nil {
		return err
	}
	var (
		failing     []int
		sig         string
		firstAt     int
		buildErr    error
		calls       int
		interrupted bool
	)
	// The search is a function of --seed: rapid draws from it, not from the
	// scenario's name (simrapid.Find's default for tests).
	_, err = simrapid.Find(ex.Scenario, simrapid.Options{Seed: max(o.Seed, 1), Checks: o.Runs}, func(t *rapid.T) {
		if buildErr != nil {
			return
		}
		if o.stopped() {
			interrupted = true
			return // a pass: rapid runs out its checks (or its shrinking) at once
		}
		calls++
		r, res, err := runner.RunOnce(f, o.runOptions(&simrapid.Chooser{T: t, Horizon: horizon, Max: o.Budget}, false))
		if err != nil {
			buildErr = err
			return
		}
		if firstAt == 0 {
			ex.count(res)
			ex.tally(r, ex.Schedules)
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
	if err != nil {
		return err // not under go test
	}
	if buildErr != nil {
		return buildErr
	}
	if failing == nil {
		ex.Interrupted = interrupted
		return nil
	}
	fd, err := describeSchedule(f, o, trimZeros(failing))
	if err != nil {
		return err
	}
	fd.Schedule, fd.Seed, fd.Original, fd.ShrinkRuns = firstAt, o.Seed, len(failing), calls-firstAt
	fd.OriginalDisturbing = disturbing(failing)
	fd.ShrinkInterrupted = interrupted
	_ = sig
	ex.Found = fd
	return nil
}
