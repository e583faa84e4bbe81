package runner

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestPTKnobPaths runs the intel_pt built-ins under today's code and under
// the knob value of the code before each fix: today no invariant breaks; the
// earlier code breaks the invariant the fix is about, from the run's own
// trace (rb/aux_invariants.go).
func TestPTKnobPaths(t *testing.T) {
	for _, tc := range []struct {
		scenario, knob, value string
		want                  []string // the invariants violated
	}{
		{"pt-full-buffer-zero-size", "pt-wrapped", "today", nil},
		{"pt-full-buffer-zero-size", "pt-wrapped", "pre-5b590160d2cf", []string{"aux-bytes-accounted"}},
		{"pt-sample-vs-stop", "pt-snapshot-stop", "today", nil},
		{"pt-sample-vs-stop", "pt-snapshot-stop", "pre-d92792a4b26e", []string{"aux-sample-is-newest"}},
		{"aux-pause-resume-nmi", "pt-pause-resume", "today", nil},
		{"pt-pause-vs-pmi", "pt-pause-resume", "today", nil},
		{"pt-pause-vs-pmi", "pt-pause-resume", "pre-08c7454ceb94", []string{"aux-write-in-transaction"}},
		{"aux-sample-vs-sched", "pt-snapshot-stop", "today", nil},
		{"aux-sample-vs-sched", "pt-snapshot-stop", "pre-d92792a4b26e", []string{"aux-sample-is-newest"}},
	} {
		f := loadBuiltin(t, tc.scenario)
		_, res, err := RunOnce(f, Options{Knobs: map[string]string{tc.knob: tc.value}, Chooser: sim.NewRandom(1)}) // simrun run's seed 1
		if err != nil {
			t.Fatalf("%s %s=%s: %v", tc.scenario, tc.knob, tc.value, err)
		}
		var got []string
		seen := map[string]bool{}
		for _, v := range res.Violations {
			if !seen[v.Invariant] {
				seen[v.Invariant] = true
				got = append(got, v.Invariant)
			}
		}
		sort.Strings(got)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s with %s=%s: violated invariants (-want +got):\n%s\n%v", tc.scenario, tc.knob, tc.value, d, res.Violations)
		}
	}
}

// TestAuxPauseGuardOffFound: random schedules find the overlapping callbacks of
// aux-pause-resume-nmi without the guard (the CLI test checks the replay file).
func TestAuxPauseGuardOffFound(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	found := false
	for seed := uint64(1); seed <= 200 && !found; seed++ {
		_, res, err := RunOnce(f, Options{Knobs: map[string]string{"aux-pause-guard": "off"}, Chooser: sim.NewRandom(seed)})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Violations {
			found = found || v.Invariant == "pmu-pause-resume-exclusive"
		}
	}
	if !found {
		t.Error("aux-pause-guard=off: no pmu-pause-resume-exclusive violation in 200 random schedules")
	}
}
