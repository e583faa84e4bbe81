package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// hangToken is a schedule of fork-fail-vs-close (found by `simrun run
// fork-fail-vs-close --seed 278 --kernel free-task-wait=pre-74751ef5c191`,
// the first seed whose run reports the hang)
// where the fork killed in copy_process() waits for the child context's
// refcount while helper's release holds a reference on it, and the release's
// put_ctx() is the one that leaves the count at 1.
const hangToken = "s2.MwABAgIDAgACAgIAAQICAgIAAwICAAIDAgADAwABAwAWX5sgug"

func hangReplay(t *testing.T) sim.Chooser {
	t.Helper()
	d, err := sim.DecodeToken(hangToken)
	if err != nil {
		t.Fatal(err)
	}
	return sim.NewReplay(d)
}

// TestHungTaskOracle: on the schedule of hangToken, today's put_ctx() wakes
// perf_event_free_task() and every task exits; before 74751ef5c191 nothing
// wakes it, and the hung-task oracle reports the task in D with what it
// waits for and the put that left the count at 1 (the run ends with a result,
// not as a deadlock).
func TestHungTaskOracle(t *testing.T) {
	f := loadBuiltin(t, "fork-fail-vs-close")
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"today", nil},
		{"pre-74751ef5c191", []string{"hung-task at 40.2us: INFO: task parent:101 blocked in D since 20.2us (for 20us when the run ran out of work; " +
			"khungtaskd reports after hung_task_timeout_secs=120), asleep after step perf_event_free_task:wait_var_event on cpu0: wait_var_event(&ctx->refcount) in perf_event_free_task(): " +
			"the context of failed fork parent/104 has refcount 1, waiting for 1; it went to 1 at perf_event_release_kernel on cpu1 by helper/102 in close " +
			"after step perf_event_task_sched_in at 20.2us, which woke nobody (no wake_up_var()); " +
			"nothing left can wake it: every other task exited or is blocked, no timer armed"}},
	} {
		_, res, err := RunOnce(f, Options{Knobs: map[string]string{"free-task-wait": tc.value}, Chooser: hangReplay(t)})
		if err != nil {
			t.Fatalf("free-task-wait=%s: %v", tc.value, err)
		}
		got := violationStrings(res.Violations)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("free-task-wait=%s: violations (-want +got):\n%s", tc.value, d)
		}
		if res.Failed {
			t.Errorf("free-task-wait=%s: the built-in's outcomes failed: %+v", tc.value, res.Outcomes)
		}
		if res.Observables["fork.perf-free-task"] != 1 {
			t.Errorf("free-task-wait=%s: fork.perf-free-task = %d, want 1 (the schedule kills the fork)", tc.value, res.Observables["fork.perf-free-task"])
		}
		if all := tc.value == "today"; res.AllExited != all {
			t.Errorf("free-task-wait=%s: all exited %v, want %v", tc.value, res.AllExited, all)
		}
	}
}

// TestHungTaskOff: with hung-task=off the same run is the deadlock the
// runner reports when nothing can run (a *LimitError "hang"), naming the
// wait.
func TestHungTaskOff(t *testing.T) {
	f := loadBuiltin(t, "fork-fail-vs-close")
	_, res, err := RunOnce(f, Options{Knobs: map[string]string{"free-task-wait": "pre-74751ef5c191", "hung-task": "off"}, Chooser: hangReplay(t)})
	var le *LimitError
	if !errors.As(err, &le) || res != nil {
		t.Fatalf("RunOnce = %v, %v; want a hang", res, err)
	}
	if le.Limit != HangLimit || !strings.HasPrefix(le.Detail, "deadlock: blocked forever: parent/101 (wait_var_event(&ctx->refcount) in perf_event_free_task(): ") {
		t.Errorf("limit %q, detail %q; want the hang naming parent's wait", le.Limit, le.Detail)
	}
}
