package explore

import (
	"strings"
	"testing"

	"perfsim/runner"
)

// TestDataHeadBackwardsReader: under the old perf_output_put_handle(),
// explore finds the schedule where the spinning simpleperf reader loads the
// NMI's data_head and then the older one, and names a reader invariant (not
// only data-head-monotonic, which the file judges); the shrunk schedule
// replays to it. Under today's code no schedule misleads the reader.
func TestDataHeadBackwardsReader(t *testing.T) {
	if testing.Short() {
		t.Skip("explores")
	}
	f := loadBuiltinForTest(t, "rb-data-head-backwards")
	old := map[string]string{"rb-put-handle": "pre-1b038c6e05ff"}
	ex, err := Explore(f, Options{Runs: 1000, Seed: 1, Knobs: old, MaxShrinkRuns: 300})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil {
		t.Fatalf("%v: no violation in %d schedules", old, ex.Schedules)
	}
	v := ex.Found.Violation
	if !strings.HasPrefix(v, "invariant read-record-was-written") && !strings.HasPrefix(v, "invariant record-accounted-once") {
		t.Errorf("explore found %q, want a reader invariant (read-record-was-written or record-accounted-once)", v)
	}
	if r := ex.Found.Result; r == nil || !r.Failed {
		t.Errorf("the shrunk schedule does not fail: %+v", r)
	}
	// Shrinking trades length for disturbances (a list with fewer disturbing
	// decisions may be longer: more undisturbed choice points before them).
	r, _, err := runner.RunOnce(f, runner.Options{Knobs: old, Chooser: runner.ScheduleChooser(ex.Found.Seed, 0), StopAtViolation: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, was := countNonZero(ex.Found.Decisions), countNonZero(r.Decisions()); n >= was {
		t.Errorf("shrunk to %d disturbing decisions, not fewer than the %d found", n, was)
	}

	ex, err = Explore(f, Options{Runs: 300, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Failed || ex.Found != nil {
		var b strings.Builder
		ex.WriteText(&b)
		t.Errorf("today's kernel: explore failed:\n%s", b.String())
	}
}
