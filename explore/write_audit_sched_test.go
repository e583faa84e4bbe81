package explore

import "testing"

// TestWriteAuditPerfSched: perf's context-switch fragments, declared
// complete (pmu/footprint_sched.go), write nothing they do not annotate,
// on built-ins whose tasks switch with perf events on: a hardware counter
// sampling into a signal at exit (sigtrap-vs-exit), tracepoint events on
// a task woken on another CPU (tp-target-task-wakeup), a breakpoint's
// sigtrap against its close (breakpoint-sigtrap-vs-close), and the PMI
// against the sched-out (pmu-overflow-vs-sched-out, cut to 3 iterations:
// a few seconds rather than a minute). Each run checks the
// fragments it lists at least once; the paths nobody annotated are
// marked (cpu.CPU.Unaudited) and not checked.
func TestWriteAuditPerfSched(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	for _, tc := range []struct {
		name   string
		repeat int      // its loops cut to this many iterations (0: as shipped)
		want   []string // the fragments checked at least once
	}{
		{"sigtrap-vs-exit", 0, []string{"perf_event_task_sched_out", "perf_event_task_sched_in", "ctx_sched_in", "ctx_sched_out", "event_sched_out"}},
		{"tp-target-task-wakeup", 0, []string{"perf_event_task_sched_out", "perf_event_task_sched_in", "ctx_sched_in", "ctx_sched_out", "event_sched_out", "event_sched_out:del", "perf_event_context_sched_out:disabled"}},
		{"breakpoint-sigtrap-vs-close", 0, []string{"perf_event_task_sched_out", "perf_event_task_sched_in", "ctx_sched_in", "event_sched_out"}},
		// A child's inherited context against its parent's: the clone
		// check with both locked (the swap itself is not declared).
		{"sigtrap-inherit-vs-close", 0, []string{"perf_event_task_sched_out", "perf_event_context_sched_out:locked"}},
		// A task-clock event (its hrtimer) switched in and out.
		{"mmap-rb-vs-sched-out", 2, []string{"perf_event_task_sched_out", "perf_event_task_sched_in", "ctx_sched_in", "event_sched_out", "event_sched_out:del"}},
		// The one whose events go back on at a sched-in (event_sched_in:
		// elsewhere the install's, which returns into perf_event_open()).
		{"pmu-overflow-vs-sched-out", 3, []string{"perf_event_task_sched_out", "perf_event_task_sched_in", "ctx_sched_in", "ctx_sched_out", "event_sched_in", "event_sched_out", "event_sched_out:del", "perf_event_context_sched_out:disabled"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := loadBuiltin(t, tc.name)
			if tc.repeat > 0 {
				f = cutBuiltin(t, tc.name, tc.repeat)
			}
			auditChecked(t, f, tc.want)
		})
	}
}
