package explore

import (
	"testing"
)

// perf_event_release_kernel()'s put of the file's reference records the
// event it puts (pmu/core_hotplug.go's perfGlobal.releasePut), which a
// tracepoint's destroy reads to know what it returns into: a memo of the
// call in flight, set and cleared by the one task's release, not state
// another context sees.
//
// perf_event_open() records likewise that its body is annotated
// (perfGlobal.openAudited), for perf_trace_init()'s return; and the first
// perf user of a tracepoint counts a registration (perfGlobal.tpRegisters,
// the observable tracepoint.registers), which nothing in the run reads.
func init() {
	auditSkip = append(auditSkip, "pmu.perfGlobal.releasePut", "pmu.perfGlobal.openAudited", "pmu.perfGlobal.tpRegisters")
}

// TestWriteAuditExit: a tracepoint event's destroy
// ("perf_trace_destroy:event_mutex", pmu/footprint_tp_destroy.go) and the
// fragments that run do_exit() (exit_to_user_mode_loop's, a syscall
// entry's for exit(2) and exit_group(2), task_work_run's return into it:
// sched/footprint_exit.go, pmu/footprint_exit.go) write nothing they do
// not annotate, on built-ins that close or exit with perf events and on
// c2's shape. Each run checks the fragments it lists at least once.
func TestWriteAuditExit(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	destroy := []string{"perf_trace_init:event_mutex", "perf_trace_destroy:event_mutex"}
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"tp-target-task-wakeup", "", destroy},
		{"sigtrap-vs-exit", "", nil},
		{"c2", c2Shape, destroy},
		// threads that exit (signal->live, exit_notify()'s autoreap)
		{"attach-pid-thread-exit", "", nil},
		{"close-vs-sample", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
