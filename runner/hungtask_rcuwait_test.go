package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// victimRCUWait is what the hung-task reports of sigtrap-close-hang say victim
// waits for, from the step point on.
const victimRCUWait = "asleep after step perf_pending_task_sync:rcuwait_wait_event on cpu0: " +
	"rcuwait_wait_event(&event->pending_work_wait, !event->pending_work) in perf_pending_task_sync() from _free_event(): " +
	"event 1's perf_pending_task() is queued on victim/101 itself, in the batch its own task_work_run() took off task->task_works " +
	"(so task_work_cancel() could not find it) behind the work that is freeing the event: only victim/101 can run it and it sleeps here; " +
	"wait chain: victim/101 -> itself (a self-deadlock)"

// TestSigtrapCloseHang: sigtrap-close-hang on today's kernel sends the
// SIGTRAP and frees the event with no report; before 56799bc03565 victim
// sleeps in D in perf_pending_task_sync() forever: the timed check
// (hung-task-timeout, 10ms by default) reports it while bystander still
// runs and ends the run there; with the timed check off the end-of-run check
// reports it once bystander is done (50ms); with the detector off the run is
// the deadlock the runner reports.
func TestSigtrapCloseHang(t *testing.T) {
	f := loadBuiltin(t, "sigtrap-close-hang")
	for _, tc := range []struct {
		knobs   map[string]string
		want    []string
		sigtrap int64
	}{
		{map[string]string{}, nil, 1},
		{map[string]string{"pending-task-sync": "pre-56799bc03565"}, []string{"hung-task at 10.018803ms: INFO: task victim:101 blocked for more than 10ms " +
			"(hung-task-timeout=10ms: the kernel's hung_task_timeout_secs=120 in the run's time scale) in D since 18.803us, " + victimRCUWait +
			"; other tasks still run (bystander/102), so the run would go on to its time limit: it ends here"}, 0},
		{map[string]string{"pending-task-sync": "pre-56799bc03565", "hung-task-timeout": "1ms"}, []string{"hung-task at 1.018803ms: INFO: task victim:101 blocked for more than 1ms " +
			"(hung-task-timeout=1ms: the kernel's hung_task_timeout_secs=120 in the run's time scale) in D since 18.803us, " + victimRCUWait +
			"; other tasks still run (bystander/102), so the run would go on to its time limit: it ends here"}, 0},
		{map[string]string{"pending-task-sync": "pre-56799bc03565", "hung-task-timeout": "off"}, []string{"hung-task at 50.043708ms: INFO: task victim:101 blocked in D since 18.803us " +
			"(for 50.024905ms when the run ran out of work; khungtaskd reports after hung_task_timeout_secs=120), " + victimRCUWait +
			"; nothing left can wake it: every other task exited or is blocked, no timer armed"}, 0},
	} {
		_, res, err := RunOnce(f, Options{Knobs: tc.knobs, Chooser: sim.NewRandom(1)})
		if err != nil {
			t.Fatalf("%v: %v", tc.knobs, err)
		}
		got := violationStrings(res.Violations)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v: violations (-want +got):\n%s", tc.knobs, d)
		}
		if res.Failed {
			t.Errorf("%v: the built-in's outcomes failed: %+v", tc.knobs, res.Outcomes)
		}
		if res.Observables["signals.sigtrap"] != tc.sigtrap {
			t.Errorf("%v: signals.sigtrap = %d, want %d", tc.knobs, res.Observables["signals.sigtrap"], tc.sigtrap)
		}
	}
	_, res, err := RunOnce(f, Options{Knobs: map[string]string{"pending-task-sync": "pre-56799bc03565", "hung-task": "off"}, Chooser: sim.NewRandom(1)})
	var le *LimitError
	if !errors.As(err, &le) || res != nil {
		t.Fatalf("hung-task=off: RunOnce = %v, %v; want a hang", res, err)
	}
	if le.Limit != HangLimit || !strings.Contains(le.Detail, "victim/101 (rcuwait_wait_event(&event->pending_work_wait") {
		t.Errorf("hung-task=off: %+v, want the deadlock naming victim's rcuwait", le)
	}
}

// TestPendingTaskSyncWakes: on sigtrap-vs-close before 56799bc03565 the
// closer's release finds victim's perf_pending_task() queued on victim, so
// perf_pending_task_sync() sleeps in D on event->pending_work_wait until
// victim's return to user runs the work, whose rcuwait_wake_up() ends the
// wait: no hang, the SIGTRAP sent, the event freed (3a5465418f5f's design
// works when the work is on another task that runs).
func TestPendingTaskSyncWakes(t *testing.T) {
	f := loadBuiltin(t, "sigtrap-vs-close")
	_, res, err := RunOnce(f, Options{Knobs: map[string]string{"pending-task-sync": "pre-56799bc03565"}, Chooser: sim.NewRandom(1)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, k := range []string{"sigtrap.sync-waits", "sigtrap.sync-cancels", "signals.sigtrap", "events.freed", "kernel.oops"} {
		got[k] = res.Observables[k]
	}
	want := map[string]int64{"sigtrap.sync-waits": 1, "sigtrap.sync-cancels": 0, "signals.sigtrap": 1, "events.freed": 1, "kernel.oops": 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("observables (-want +got):\n%s", d)
	}
	if len(res.Violations) != 0 || !res.AllExited {
		t.Errorf("violations %v, all exited %v; want none, true", res.Violations, res.AllExited)
	}
}
