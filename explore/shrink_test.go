package explore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/sim"
)

// TestShrinkOneMinimal: on the PAUSE_OUTPUT oops (posted NULL check), the
// shrunk schedule keeps only the three switches at 20us that make the race
// (the dense-only shrinker left 15 disturbing decisions, most at t=0); it is
// 1-minimal (removing any one disturbance, by position, by skip distance or by
// step point, no longer gives the oops); its token replays to the same
// violation; and shrinking is deterministic.
func TestShrinkOneMinimal(t *testing.T) {
	if testing.Short() {
		t.Skip("explores")
	}
	const before = 15 // disturbing decisions left by the dense-only shrinker
	f := loadBuiltin(t, "pmu-pause-output-rb-check")
	knobs := map[string]string{"pause-output-rb-check": "posted"}
	o := Options{Runs: 1000, Seed: 1, Knobs: knobs}
	ex, err := Explore(f, o)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil {
		t.Fatal("no violation found")
	}
	fd := ex.Found
	d := fd.Decisions
	n := countNonZero(d)
	if n >= before || len(fd.Lines) != n {
		t.Errorf("shrunk to %d disturbing decisions (%d lines), want fewer than %d:\n%v", n, len(fd.Lines), before, fd.Lines)
	}

	// The signature the shrinker kept.
	r, res, err := runner.RunOnce(f, o.runOptions(sim.NewReplay(d), false))
	if err != nil {
		t.Fatal(err)
	}
	sig := signature(r, res)
	if sig == "" || describeFailure(r, res, sig) != fd.Violation {
		t.Fatalf("replay of the shrunk list: %q, want %q", describeFailure(r, res, sig), fd.Violation)
	}

	// 1-minimal, in every form the shrinker removes a disturbance.
	o.MaxShrinkRuns = 1 << 30
	s := &shrinker{f: f, o: o, sig: sig}
	if _, kept, err := s.failsWith(sim.NewReplay(d)); err != nil || !kept {
		t.Fatalf("kept %v, err %v", kept, err)
	}
	if failed, _, err := s.failsWith(&anchoredReplay{plan: s.anchors}); err != nil || !failed {
		t.Fatalf("the step-point form of the shrunk list does not fail (err %v)", err)
	}
	if failed, _, err := s.failsWith(&sparseReplay{plan: sparse(d)}); err != nil || !failed {
		t.Fatalf("the skip form of the shrunk list does not fail (err %v)", err)
	}
	for k, i := range nonZero(d) {
		for _, c := range []struct {
			name string
			ch   sim.Chooser
		}{
			{"position", sim.NewReplay(s.dense(i))},
			{"skip", &sparseReplay{plan: remove(sparse(d), k, 1)}},
			{"step", &anchoredReplay{plan: remove(s.anchors, k, 1)}},
		} {
			t.Run(fmt.Sprintf("without-%d-by-%s", i, c.name), func(t *testing.T) {
				failed, _, err := s.failsWith(c.ch)
				if err != nil {
					t.Fatal(err)
				}
				if failed {
					t.Errorf("still fails with %s without decision #%d: not 1-minimal", sig, i)
				}
			})
		}
	}

	// The token replays to the same violation.
	back, err := sim.DecodeToken(sim.EncodeToken(d))
	if err != nil {
		t.Fatal(err)
	}
	r, res, err = runner.RunOnce(f, runner.Options{Knobs: knobs, Chooser: sim.NewReplay(back), StopAtViolation: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := describeFailure(r, res, signature(r, res)); got != fd.Violation {
		t.Errorf("token replays to %q, want %q", got, fd.Violation)
	}

	// Deterministic.
	again, err := Explore(f, Options{Runs: 1000, Seed: 1, Knobs: knobs})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d, again.Found.Decisions); diff != "" || again.Found.ShrinkRuns != fd.ShrinkRuns {
		t.Errorf("second shrink differs (%d vs %d replays):\n%s", fd.ShrinkRuns, again.Found.ShrinkRuns, diff)
	}
}

// TestSmaller: the shrink order counts disturbances first, then options, then
// length.
func TestSmaller(t *testing.T) {
	for _, c := range []struct {
		a, b []int
		want bool
	}{
		{[]int{0, 0, 0, 1}, []int{1, 1}, true},
		{[]int{1, 1}, []int{0, 0, 0, 1}, false},
		{[]int{0, 1}, []int{2}, true},
		{[]int{1}, []int{0, 1}, true},
		{[]int{0, 1}, []int{0, 1}, false},
	} {
		if got := smaller(c.a, c.b); got != c.want {
			t.Errorf("smaller(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if got := sparse([]int{0, 2, 0, 0, 1}); !cmp.Equal(got, []disturbance{{1, 2}, {2, 1}}) {
		t.Errorf("sparse = %v", got)
	}
	p := &sparseReplay{plan: []disturbance{{1, 2}, {0, 5}}}
	var got []int
	for range 4 {
		got = append(got, p.Choose(3, "x"))
	}
	if want := []int{0, 2, 2, 0}; !cmp.Equal(got, want) {
		t.Errorf("sparseReplay answers %v, want %v", got, want)
	}
}

// TestShrinkRefusesWhatDoesNotRecur: a failure that its schedule, replayed
// as recorded, does not show again (here a signature the run never gives;
// in the field, a search's own chooser crashing inside the run) is no
// violation: shrink says so instead of reporting one with nothing in it.
func TestShrinkRefusesWhatDoesNotRecur(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	_, err := shrink(f, Options{Knobs: map[string]string{"aux-pause-guard": "off"}}, nil, "invariant no-such-invariant")
	if err == nil || !strings.Contains(err.Error(), "did not fail so when replayed as recorded: no violation reported") {
		t.Fatalf("shrink of a failure that does not recur: %v; want the refusal", err)
	}
}
