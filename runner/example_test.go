package runner_test

import (
	"fmt"

	"perfsim/runner"
)

// Run a built-in scenario once on today's kernel and read its outcomes, as
// `simrun run rb-data-head-backwards` does.
func Example() {
	f, err := runner.Open("rb-data-head-backwards")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, res, err := runner.RunOnce(f, runner.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Outcomes {
		fmt.Printf("%-8s %s\n", o.Status, o.Outcome)
	}
	fmt.Println("failed:", res.Failed)
	// Output:
	// held     when rb-put-handle=today always rb.data-head-backwards == 0 && perf.torn == 0
	// held     when rb-put-handle=today always samples == 30 && perf.samples == samples
	// held     when rb-put-handle=today always spin.records == samples + perf.comm + perf.exit + perf.mmap && spin.aborts == 0
	// not-applicable when rb-put-handle=pre-1b038c6e05ff always rb.data-head-backwards > 0
	// not-applicable when rb-put-handle=pre-1b038c6e05ff never data-head-monotonic
	// not-applicable when rb-put-handle=pre-1b038c6e05ff always samples == 30 + 1
	// failed: false
}

// The same scenario with the kernel knob that brings back the bug
// (rb-put-handle=pre-1b038c6e05ff, the code before 1b038c6e05ff), on the
// schedule of seed 1: data_head went backwards once, as the old-code outcomes
// of the scenario expect.
func ExampleRunOnce_knob() {
	f, err := runner.Open("rb-data-head-backwards")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, res, err := runner.RunOnce(f, runner.Options{
		Knobs:   map[string]string{"rb-put-handle": "pre-1b038c6e05ff"},
		Chooser: runner.ScheduleChooser(1, 0),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range res.Outcomes {
		if o.Status != runner.NotApplicable {
			fmt.Printf("%-8s %s\n", o.Status, o.Outcome)
		}
	}
	fmt.Println("rb.data-head-backwards:", res.Observables["rb.data-head-backwards"])
	// Output:
	// held     when rb-put-handle=pre-1b038c6e05ff always rb.data-head-backwards > 0
	// held     when rb-put-handle=pre-1b038c6e05ff never data-head-monotonic
	// held     when rb-put-handle=pre-1b038c6e05ff always samples == 30 + 1
	// rb.data-head-backwards: 1
}
