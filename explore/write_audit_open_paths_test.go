package explore

import "testing"

// The epcs' free count (pmu.Kernel.epcStats, the observable
// pmu-ctx.freed), which a move_group's last put_pmu_ctx() adds to
// (pmu/footprint_move_group.go), is read only by Observe after the run,
// never by the model: not state another context sees.
func init() { auditSkip = append(auditSkip, "pmu.Kernel.epcStats") }

// TestWriteAuditOpenPaths: the paths of perf_event_open(2) h16-d
// annotated (pmu/footprint_tp_init.go: a tracepoint's event_init;
// footprint_move_group.go: move_group; footprint_open.go: openFailEarly, an
// error return before the event is made; footprint_mm_alloc.go, sched's
// too: the model's first mm of a task) inside the declared syscall entry,
// and perf_event_enable_on_exec's fragment (footprint_enable_on_exec.go),
// write nothing they do not annotate, on the built-ins that run them and on
// c2's shape (whose perf record opens a tracepoint, moves its group, has
// an open fail, maps its first buffer and enables on its workload's exec).
// Each run checks the fragments it lists at least once.
func TestWriteAuditOpenPaths(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	const entry = "syscall_enter_from_user_mode"
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"c2", c2Shape, []string{entry, "perf_event_enable_on_exec", "perf_trace_init:event_mutex"}},
		{"tp-target-task-wakeup", "", []string{entry, "perf_trace_init:event_mutex"}},
		{"pin-count-open-race", "", []string{entry}},
		{"group-sample-vs-sibling-add", "", []string{entry}},
		{"group-read-vs-sibling-add", "", []string{entry}},
		{"exec-vs-munmap-shared-rb", "", []string{entry}},
		{"remove-on-exec-inherit-lost", "", []string{entry}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
