package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/explore"
)

// TestSweepCLI: the no-false-positive sweep explores a built-in with the three
// strategies on today's kernel and reports each search's schedules and
// violations, and the exhaustive claims of random (its tree of schedules
// run) and bounded (its bound cut none) agree on the scenario's 27
// schedules; a name that is not a built-in is a usage error.
func TestSweepCLI(t *testing.T) {
	out, stderr, code := cli(t, t.TempDir(), "sweep", "task-work-nmi-race", "--runs", "200", "--bounded-runs", "200")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		"task-work-nmi-race                 random         200          0  exhaustive: all 27 schedules of the scenario reached",
		"task-work-nmi-race                 sparse         200          0",
		"task-work-nmi-race                 bounded         27          0  exhaustive: the budget cut no schedule",
		"0 violations in 1 built-ins x 3 strategies",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep output lacks %q:\n%s", want, out)
		}
	}
	if _, stderr, code := cli(t, t.TempDir(), "sweep", "no-such-built-in"); code != exitUsage || !strings.Contains(stderr, `no built-in scenario "no-such-built-in"`) {
		t.Errorf("sweep of an unknown name: exit %d, stderr %q", code, stderr)
	}
}

// TestExploreStopsAtLimit: a schedule that reaches a limit ends explore with
// status 3 and the limit's message, not a verdict and not a usage error.
func TestExploreStopsAtLimit(t *testing.T) {
	_, stderr, code := cli(t, t.TempDir(), "explore", "task-work-nmi-race", "--max-steps", "10", "-q")
	if code != exitLimit || !strings.Contains(stderr, "stopped at the step limit of 10 steps") || !strings.Contains(stderr, "(raise it with --max-steps)") {
		t.Errorf("exit %d, stderr %q; want 3 and the step limit's message", code, stderr)
	}
}

// TestExhaustiveClaims: the sweep takes as a claim of every schedule only
// what a search says it ran in full, and two such claims with different
// counts are an inconsistency it reports.
func TestExhaustiveClaims(t *testing.T) {
	for _, tc := range []struct {
		name string
		ex   explore.Result
		n    int
		ok   bool
	}{
		{"no decision", explore.Result{Strategy: "random", Exhausted: true, NoDecisions: true, Schedules: 1}, 1, true},
		{"random's tree", explore.Result{Strategy: "random", Exhausted: true, Distinct: 7, Schedules: 200}, 7, true},
		{"random, no claim", explore.Result{Strategy: "random", Schedules: 200}, 0, false},
		{"bounded, cut none", explore.Result{Strategy: "bounded", Exhausted: true, Schedules: 27}, 27, true},
		{"bounded, focused", explore.Result{Strategy: "bounded", Exhausted: true, Schedules: 5, Focus: []string{"x"}}, 0, false},
		{"bounded, complete up to", explore.Result{Strategy: "bounded", CompleteUpTo: 2, Schedules: 15}, 0, false},
		{"a violation", explore.Result{Strategy: "bounded", Exhausted: true, Schedules: 3, Found: &explore.Found{}}, 0, false},
	} {
		n, ok := exhaustiveCount(&tc.ex)
		if n != tc.n || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, n, ok, tc.n, tc.ok)
		}
	}
	got := []string{
		disagreeing(nil),
		disagreeing([]exhaustiveClaim{{"random", 7}}),
		disagreeing([]exhaustiveClaim{{"random", 7}, {"bounded", 7}}),
		disagreeing([]exhaustiveClaim{{"random", 7}, {"sparse", 7}, {"bounded", 9}}),
	}
	want := []string{"", "", "", "random 7, sparse 7, bounded 9"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("disagreeing (-want +got):\n%s", diff)
	}
}
