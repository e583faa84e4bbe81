package runner

import (
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
