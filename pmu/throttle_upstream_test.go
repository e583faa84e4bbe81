package pmu_test

import (
	"fmt"
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
)

// cause is what the AUX invariants add when a throttle stop left the AUX
// transaction open (rb/aux_txn.go).
const cause = "(an AUX transaction left open by a throttle stop without PERF_EF_UPDATE: docs/upstream/pt-throttle-group.md)"

// runBuiltin runs the shipped built-in name, with each replacement old -> new
// applied to its text, on the schedule `simrun run` uses, with kernel knobs.
func runBuiltin(t *testing.T, name string, repl [][2]string, knobs map[string]string) *runner.Result {
	t.Helper()
	src, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src.Src)
	for _, r := range repl {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("%s: %q is not in the built-in", name, r[0])
		}
		text = strings.ReplaceAll(text, r[0], r[1])
	}
	src.Src = []byte(text)
	f, err := runner.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := runner.RunOnce(f, runner.Options{Knobs: knobs, Chooser: runner.ScheduleChooser(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// wantThrottleLeftOpen checks that res shows the upstream bug of
// docs/upstream/pt-throttle-group.md: exactly aux-bytes-accounted and
// aux-pages-lifetime broken, each naming the throttle stop as the cause, and
// perf_mmap_close()'s WARN_ON_ONCE on the leftover aux_refcount.
func wantThrottleLeftOpen(t *testing.T, what string, res *runner.Result) {
	t.Helper()
	got := map[string]string{}
	for _, v := range res.Violations {
		got[v.Invariant] = v.Message
	}
	if len(got) != 3 || !strings.HasSuffix(got["aux-bytes-accounted"], cause) || !strings.HasSuffix(got["aux-pages-lifetime"], cause) ||
		!strings.Contains(got["object-lifetime"], "has refcount 1 at the end, 0 events attached, its AUX area still allocated (aux_refcount 1, aux_mmap_count 0)") {
		// object-lifetime: the open transaction's ring_buffer_get() keeps the buffer too
		t.Errorf("%s: want aux-bytes-accounted and aux-pages-lifetime, both %s, and the buffer leaked (object-lifetime); got %v", what, cause, res.Violations)
	}
	o := res.Observables
	if o["throttles"] == 0 || o["aux.warn"] != 1 || o["perf.aux_bytes"] >= o["pt.produced"] {
		t.Errorf("%s: want a throttle, one AUX WARN and trace perf.data lacks; got throttles=%d aux.warn=%d perf.aux_bytes=%d pt.produced=%d",
			what, o["throttles"], o["aux.warn"], o["perf.aux_bytes"], o["pt.produced"])
	}
}

// wantClean checks a run with no violation, no AUX WARN, no -EBUSY from
// pt_event_add() and every traced byte in perf.data.
func wantClean(t *testing.T, what string, res *runner.Result) {
	t.Helper()
	o := res.Observables
	if res.Failed || len(res.Violations) != 0 || o["aux.warn"] != 0 || o["pt.add-ebusy"] != 0 || o["perf.aux_bytes"] != o["pt.produced"] {
		t.Errorf("%s: want a clean run, got failed=%v aux.warn=%d pt.add-ebusy=%d perf.aux_bytes=%d pt.produced=%d %v",
			what, res.Failed, o["aux.warn"], o["pt.add-ebusy"], o["perf.aux_bytes"], o["pt.produced"], res.Violations)
	}
}

// TestPtThrottleGroupBuiltin: the shipped pt-throttle-group on today's core
// throttles the intel_pt leader with pmu->stop(event, 0): the AUX transaction
// stays open (both invariants name the cause) and perf.data lacks the trace
// after it; with aux-throttle=proposed the run is clean and perf keeps more.
func TestPtThrottleGroupBuiltin(t *testing.T) {
	today := runBuiltin(t, "pt-throttle-group", nil, nil)
	if today.Failed {
		t.Errorf("today: the built-in states the bug as its outcome, yet it failed: %v", today.Violations)
	}
	wantThrottleLeftOpen(t, "today", today)
	if today.Observables["pt.add-ebusy"] == 0 {
		t.Errorf("today: want pt_event_add() to fail -EBUSY after the throttle")
	}
	// With this machine's costs perf reads late enough that, once the throttle
	// is fixed, the trace runs into pt_buffer_reset_markers()'s lost carry
	// (docs/upstream/pt-reset-markers-carry.md) at 1.19 ms: that fix too.
	proposed := runBuiltin(t, "pt-throttle-group", nil, map[string]string{"aux-throttle": "proposed", "pt-reset-markers": "proposed"})
	wantClean(t, "proposed", proposed)
	if a, b := today.Observables["perf.aux_bytes"], proposed.Observables["perf.aux_bytes"]; a >= b {
		t.Errorf("perf.aux_bytes: today %d, proposed %d: want the proposed run to keep the trace after the throttle", a, b)
	}
}

// TestAuxPauseResumeNMIThrottleSizes: aux-pause-resume-nmi at 30, 223 and 2000
// uname calls (the shipped file, its repeat count replaced; 2000 is the
// shipped aux-pause-resume-nmi-throttle). At 30 the cycles member never
// reaches max_samples_per_tick; from 223 on it throttles the group and today's
// stop leaves intel_pt's AUX transaction open; with aux-throttle=proposed
// every size is clean.
func TestAuxPauseResumeNMIThrottleSizes(t *testing.T) {
	for _, n := range []int{30, 223, 2000} {
		repl := [][2]string{{"repeat 30", fmt.Sprintf("repeat %d", n)}}
		today := runBuiltin(t, "aux-pause-resume-nmi", repl, nil)
		what := fmt.Sprintf("%d calls, today", n)
		if n < 223 {
			wantClean(t, what, today)
			if today.Observables["throttles"] != 0 {
				t.Errorf("%s: want no throttle, got %d", what, today.Observables["throttles"])
			}
		} else {
			wantThrottleLeftOpen(t, what, today)
		}
		wantClean(t, fmt.Sprintf("%d calls, proposed", n), runBuiltin(t, "aux-pause-resume-nmi", repl, map[string]string{"aux-throttle": "proposed"}))
	}
	today := runBuiltin(t, "aux-pause-resume-nmi-throttle", nil, nil)
	if today.Failed {
		t.Errorf("aux-pause-resume-nmi-throttle: the built-in states the bug as its outcome, yet it failed: %v", today.Violations)
	}
	wantThrottleLeftOpen(t, "aux-pause-resume-nmi-throttle, today", today)
	wantClean(t, "aux-pause-resume-nmi-throttle, proposed", runBuiltin(t, "aux-pause-resume-nmi-throttle", nil, map[string]string{"aux-throttle": "proposed"}))
}
