package runner

import (
	"slices"
	"testing"

	"perfsim/scenarios"
)

// runQuiet parses src as the file name and runs it once on the quiet
// schedule (every decision its default), failing t on any error.
func runQuiet(t *testing.T, name, src string) (*Run, *Result) {
	t.Helper()
	f, err := scenarios.Parse(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, res, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

// returns are the values the first task's program bound with "as NAME",
// as the signed returns they are (an errno negated), but the names in skip
// (the fds it opened).
func returns(r *Run, skip ...string) map[string]int64 {
	out := map[string]int64{}
	for k, v := range r.S.Tasks[0].Vars {
		if !slices.Contains(skip, k) {
			out[k] = int64(v)
		}
	}
	return out
}
