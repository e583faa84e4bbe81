package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

// TestNotJudgedWhenHolds: explore's "not judged" line names only the
// outcomes whose when asks for other knob values: one whose when holds for
// the search's knobs and that no schedule judged (an outcome at a time
// after every run stopped at its violation) is not sent to be judged with
// the knobs it already has.
func TestNotJudgedWhenHolds(t *testing.T) {
	f, err := scenarios.Parse("hint.sim", []byte(`scenario hint
cpus 1
kernel timer-slack=0
task a cpu0
  compute 10us
when timer-slack=0
  always task.a.exited at 9us
when timer-slack=50us
  always task.a.exited
`))
	if err != nil {
		t.Fatal(err)
	}
	ex := &Result{Schedules: 3, Outcomes: make([]OutcomeCount, 2), ResolvedKnobs: []string{"hung-task=on", "timer-slack=0"}}
	got := notJudged(f, ex)
	want := "not judged: 1 outcome is for other knob values; to judge: simrun explore hint.sim --kernel timer-slack=50us"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
