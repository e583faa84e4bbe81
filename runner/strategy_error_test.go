package runner

import (
	"errors"
	"strings"
	"testing"

	"perfsim/sim"
)

// nthCrash answers 0 to its first decisions and then crashes, as a
// strategy with an indexing bug does.
type nthCrash struct{ left int }

func (c *nthCrash) Choose(n int, what string) int {
	if c.left == 0 {
		var none []int
		return none[n]
	}
	c.left--
	return 0
}

// TestStrategyCrashIsNoVerdict: a strategy that crashes part way through
// aux-pause-resume-nmi ends Execute with the *sim.StrategyError and the
// replay token of the decisions before it; the run has no oops and no
// violation, so no strategy bug is ever reported as a kernel oops.
func TestStrategyCrashIsNoVerdict(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	r, err := Build(f, Options{Chooser: &nthCrash{left: 3}})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Execute()
	var se *sim.StrategyError
	if !errors.As(err, &se) || se.Crash == nil {
		t.Fatalf("Execute = %v, want the strategy's crash", err)
	}
	if r.Oops() != nil {
		t.Errorf("the strategy's crash was also an oops: %v", r.Oops())
	}
	if want := "replay token s2."; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q names no replay token", err)
	}
	if len(r.violations) != 0 {
		t.Errorf("the strategy's crash left violations: %v", r.violations)
	}
}
