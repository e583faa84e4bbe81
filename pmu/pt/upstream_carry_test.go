package pt_test

import (
	"strings"
	"testing"

	"perfsim/runner"
)

// TestResetMarkersCarryBuiltin runs the shipped built-in pt-reset-markers-carry
// (docs/upstream/pt-reset-markers-carry.md) as `simrun run` does. Today
// pt_buffer_reset_markers() puts STOP a lap behind the hardware: it writes
// [45568, 46992), past aux_tail + 32K = 45568 (aux-no-overwrite-unread), and
// perf copies only 1424 bytes after the 12800 it read first, a whole buffer
// (32768 bytes) short of the 46992 the hardware wrote in the task's 47us of user
// time, with no TRUNCATED record.
// With pt-reset-markers=proposed the hardware stops at 45056, the record says
// TRUNCATED, perf keeps all 45056 bytes the hardware wrote and no invariant
// breaks.
func TestResetMarkersCarryBuiltin(t *testing.T) {
	f, err := runner.Open("pt-reset-markers-carry")
	if err != nil {
		t.Fatal(err)
	}
	run := func(knob string) *runner.Result {
		t.Helper()
		_, res, err := runner.RunOnce(f, runner.Options{Knobs: map[string]string{"pt-reset-markers": knob}, Chooser: runner.ScheduleChooser(1, 0)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := run("today")
	if res.Failed {
		t.Errorf("today: the built-in states the bug as its outcome, yet it failed: %v", res.Violations)
	}
	if len(res.Violations) != 1 || res.Violations[0].Invariant != "aux-no-overwrite-unread" ||
		!strings.Contains(res.Violations[0].Message, "the hardware wrote AUX bytes [0xb200, 0xb790) past 0xb200") {
		t.Errorf("today: want aux-no-overwrite-unread over [0xb200, 0xb790) alone, got %v", res.Violations)
	}
	o := res.Observables
	if o["pt.produced"] != 46992 || o["perf.aux_bytes"] != 12800+1424 || o["aux.truncated"] != 0 {
		t.Errorf("today: want 46992 bytes traced, 14224 in perf.data, no TRUNCATED; got %d, %d, %d",
			o["pt.produced"], o["perf.aux_bytes"], o["aux.truncated"])
	}

	res = run("proposed")
	if res.Failed || len(res.Violations) != 0 {
		t.Errorf("proposed: want a clean run, got failed=%v %v", res.Failed, res.Violations)
	}
	o = res.Observables
	if o["pt.produced"] != 45056 || o["perf.aux_bytes"] != 45056 || o["aux.truncated"] == 0 {
		t.Errorf("proposed: want 45056 bytes traced, all in perf.data, and a TRUNCATED record; got %d, %d, %d",
			o["pt.produced"], o["perf.aux_bytes"], o["aux.truncated"])
	}
}
