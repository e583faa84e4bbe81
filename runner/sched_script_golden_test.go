package runner

import (
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestSchedScriptGolden is perf script on testdata/run-script/sched-tracepoints.sim:
// every sched:* tracepoint the scheduler fires, with its fields as
// libtraceevent prints them (comm, pid, prio, prev_state, target_cpu,
// orig/dest cpu, filename), each child under its parent's comm.
func TestSchedScriptGolden(t *testing.T) {
	src, err := scenarios.Open("testdata/run-script/sched-tracepoints.sim")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(src)
	if err != nil {
		t.Fatal(err)
	}
	r, res, err := RunOnce(f, Options{Chooser: ScheduleChooser(1, 0)})
	if err != nil || !res.AllExited {
		t.Fatalf("RunOnce: %v", err)
	}
	var b strings.Builder
	if err := r.Script(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sched_switch:", "sched_wakeup:", "sched_wakeup_new:", "sched_migrate_task:",
		"sched_process_fork:", "sched_process_exit:", "sched_process_exec:", "prev_state=S", "prev_state=R"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %s in:\n%s", want, b.String())
		}
	}
	golden(t, "testdata/run-script/sched-tracepoints.golden", b.String())
}
