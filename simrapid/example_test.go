package simrapid_test

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"perfsim/runner"
	"perfsim/simrapid"
)

// A rapid property over schedules: rapid draws the interleaving (the NMIs'
// places) from *rapid.T through simrapid.Chooser, and when the property fails
// it shrinks the schedule to the fewest, earliest disturbances. In a test, pass
// the same function to rapid.Check(t, ...); Find runs it outside a test and
// returns rapid's report instead of failing.
func Example() {
	f, err := runner.Open("aux-pause-resume-nmi")
	if err != nil {
		fmt.Println(err)
		return
	}
	var shrunk []runner.Decision
	report, err := simrapid.Find("aux-pause-guard-off", simrapid.Options{Checks: 300}, func(t *rapid.T) {
		r, res, err := runner.RunOnce(f, runner.Options{
			Knobs:           map[string]string{"aux-pause-guard": "off"},
			Chooser:         &simrapid.Chooser{T: t},
			StopAtViolation: true,
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range res.Violations {
			shrunk = r.Disturbing() // rapid runs the minimal failing schedule last
			t.Fatalf("%s", v.Invariant)
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("failed:", strings.Contains(report, "pmu-pause-resume-exclusive"))
	fmt.Println("disturbing decisions after shrinking:", len(shrunk))
	for _, d := range shrunk {
		fmt.Println(" ", d)
	}
	// Output:
	// failed: true
	// disturbing decisions after shrinking: 2
	//   0.000128917 cpu0 choice  nmi-skid: option 1 of 2 (decision #2)
	//   0.000129097 cpu0 choice  pt_event_start:resume-allowed: option 1 of 2 (decision #4)
}
