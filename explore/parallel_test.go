package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Exploring with several jobs gives what one job gives: the same counts, the
// same first violation, shrunk to the same schedule.
func TestExploreJobsSameResult(t *testing.T) {
	for _, tc := range []struct {
		name     string
		strategy string
		knobs    map[string]string
		runs     int
	}{
		{"aux-pause-resume-nmi", "random", map[string]string{"aux-pause-guard": "off"}, 200},
		{"aux-pause-resume-nmi", "random", nil, 60},
		{"aux-mmap-vs-munmap", "sparse", nil, 40},
		{"rb-data-head-backwards", "bounded", map[string]string{"rb-put-handle": "pre-1b038c6e05ff"}, 200},
		{"task-work-nmi-race", "bounded", nil, 1000},
	} {
		t.Run(tc.name+"/"+tc.strategy, func(t *testing.T) {
			f := loadBuiltinForTest(t, tc.name)
			var results []*Result
			for _, jobs := range []int{1, 4} {
				ex, err := Explore(f, Options{Strategy: tc.strategy, Runs: tc.runs, Seed: 1, Knobs: tc.knobs, Jobs: jobs, MaxShrinkRuns: 200})
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, ex)
			}
			opts := cmp.Options{cmpopts.IgnoreFields(Result{}, "Elapsed"), cmpopts.IgnoreFields(Found{}, "Result", "ShrinkElapsed"), cmp.AllowUnexported(Questions{}, Result{}, lockGraph{}, lockEdge{}, lifetimeTally{}, raceTally{})}
			if d := cmp.Diff(results[0], results[1], opts); d != "" {
				t.Errorf("jobs 1 vs 4 (-1 +4):\n%s", d)
			}
		})
	}
}
