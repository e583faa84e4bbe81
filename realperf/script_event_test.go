package realperf

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
)

// TestScriptEvents: the simulated side of script-event is each event's
// perf.samples[EVENT] (none for an event without samples, as perf script
// prints no line for it), and it must agree with the samples Summarize
// counts in the perf.data the run wrote: a disagreement is an error, not
// a figure.
func TestScriptEvents(t *testing.T) {
	c, err := LoadCase(filepath.Join("testdata", "sigint-sleeping"))
	if err != nil {
		t.Fatal(err)
	}
	sim, err := c.Simulate()
	if err != nil {
		t.Fatal(err)
	}
	got := Summary{}
	for k, v := range sim {
		if strings.HasPrefix(k, ScriptEvent) || strings.HasPrefix(k, "samples ") {
			got[k] = v
		}
	}
	want := Summary{
		"samples syscalls:sys_enter_close": 102, "samples syscalls:sys_exit_close": 102, "samples syscalls:sys_enter_nanosleep": 1,
		"script-event syscalls:sys_enter_close": 102, "script-event syscalls:sys_exit_close": 102, "script-event syscalls:sys_enter_nanosleep": 1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("simulated samples and script-event (-want +got):\n%s", diff)
	}

	f, err := runner.Open(filepath.Join(c.Dir, "case.sim"))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := runner.RunOnce(f, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	file := Summary{"samples syscalls:sys_enter_close": 101, "samples syscalls:sys_exit_close": 102, "samples syscalls:sys_enter_nanosleep": 1}
	err = scriptEvents(file, r)
	const msg = "perf.samples[syscalls:sys_enter_close] is 102, but the perf.data the run wrote has 101 samples of syscalls:sys_enter_close"
	if err == nil || err.Error() != msg {
		t.Errorf("scriptEvents with a file of 101 samples = %v, want %q", err, msg)
	}
}

// TestScriptEventsNotCaptured: a case captured before capture.sh ran perf
// script -F event has no script-event figures; the simulated ones are
// dropped rather than reported as unexplained.
func TestScriptEventsNotCaptured(t *testing.T) {
	c, err := LoadCase(filepath.Join("testdata", "syscalls-close"))
	if err != nil {
		t.Fatal(err)
	}
	real, sim, err := c.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	if real.hasKey(ScriptEvent) {
		t.Skip("syscalls-close was captured with perf script -F event: pick a case that was not")
	}
	for k := range sim {
		if strings.HasPrefix(k, ScriptEvent) {
			t.Errorf("simulated %s kept for a case whose real side has no script-event figures", k)
		}
	}
	if _, ok := sim["samples syscalls:sys_enter_close"]; !ok {
		t.Error("the simulated summary lost its samples figures")
	}
}
