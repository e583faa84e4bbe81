package explore

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// observableValues runs every schedule of the full tree (dpor false) or the
// dpor walk over the built-in cut to repeat iterations, and returns, per
// observable, the sorted values it ended with (each schedule to its end),
// and whether the walk finished within maxRuns.
func observableValues(t *testing.T, tc dporBuiltinCase, dpor bool, maxRuns int) (map[string][]int64, bool) {
	t.Helper()
	f := cutBuiltin(t, tc.name, tc.repeat)
	seen := map[string]map[int64]bool{}
	one := func(ch sim.Chooser, attach func(*cpu.Machine)) {
		r := walkedRun(t, f, tc.knobs, ch, attach)
		for k, v := range r.Observables() {
			if seen[k] == nil {
				seen[k] = map[int64]bool{}
			}
			seen[k][v] = true
		}
	}
	exhausted := walkTree(t, dpor, maxRuns, one)
	out := map[string][]int64{}
	for k, vs := range seen {
		for v := range vs {
			out[k] = append(out[k], v)
		}
		slices.Sort(out[k])
	}
	return out, exhausted
}

// TestDPORObservablesSameValues: a finer check than
// TestDPORBuiltinSameResults, whose built-ins end in one result in every
// schedule: on two-CPU built-ins whose CPUs switch with perf events on
// (perf's context-switch fragments declared complete:
// pmu/footprint_sched.go), every observable (signals, samples, the events
// freed, the CPUs' busy time and step points, the data-race reports, ...)
// ends with the same set of values under dpor as over the full tree, but
// trace.choices (the decisions made: fewer where dpor cut a class short).
// A missing annotation that let dpor skip a class whose run ends
// elsewhere shows as a value the full tree reaches and dpor does not.
func TestDPORObservablesSameValues(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the full decision trees of two built-ins, every observable of every schedule")
	}
	for _, tc := range []dporBuiltinCase{
		{"sigtrap-vs-exit", 0, nil, false},
		{"sigtrap-inherit-vs-close", 0, nil, false},
	} {
		t.Run(fmt.Sprintf("%s/repeat%d", tc.name, tc.repeat), func(t *testing.T) {
			full, fex := observableValues(t, tc, false, 5000)
			if !fex {
				t.Fatalf("full tree: more than 5000 schedules")
			}
			got, ex := observableValues(t, tc, true, 5000)
			if !ex {
				t.Fatalf("dpor: not exhausted within 5000 schedules")
			}
			if len(full["trace.choices"]) <= len(got["trace.choices"]) {
				t.Errorf("trace.choices: full tree %v, dpor %v: dpor cut no class short", full["trace.choices"], got["trace.choices"])
			}
			delete(full, "trace.choices")
			delete(got, "trace.choices")
			if d := cmp.Diff(full, got); d != "" {
				t.Errorf("observables' values (-full tree +dpor):\n%s", d)
			}
		})
	}
}
