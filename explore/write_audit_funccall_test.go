package explore

import "testing"

// TestWriteAuditFuncCall: the cross-CPU function call's fragments, declared
// complete (pmu/footprint_funccall.go, pmu/footprint_read.go), write
// nothing they do not annotate: the IPI's handler up to the remote
// function's first step point or its return (enter:call_function_single:
// the close's __perf_remove_from_context(), the install's, the read's
// __perf_event_read()), the removal from its step point
// (__perf_remove_from_context), perf_event_read()'s look at the state and what it
// does for it (perf_event_read:state-read), read(2)'s own step points
// (perf_read:fdget, perf_event_read_value:lock), and the wait's rounds, those
// that come back and those that return into read(2)'s group or single
// read through to the return to user mode (smp_call_function_single:wait).
// Each run checks the fragments it lists at least once.
func TestWriteAuditFuncCall(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	for _, tc := range []struct {
		name string
		want []string // the fragments checked at least once
	}{
		// A group leader closed (its removal by IPI) while another CPU
		// samples and a reader reads the group by IPI.
		{"group-leader-close-sample-read", []string{"enter:call_function_single", "perf_event_read:state-read", "smp_call_function_single:wait", "__perf_remove_from_context", "perf_read:fdget"}},
		// read(2) of a counter ACTIVE on another CPU, whose NMI lands in
		// the IPI's handler.
		{"ipi-read-vs-nmi", []string{"enter:call_function_single", "perf_event_read:state-read", "smp_call_function_single:wait", "perf_read:fdget", "perf_event_read_value:lock", "__perf_event_read:active"}},
		// A group read against a sibling's open: the install by IPI.
		{"group-read-vs-sibling-add", []string{"enter:call_function_single", "perf_event_read:state-read", "smp_call_function_single:wait", "perf_read:fdget"}},
		// read(2) of an inherited counter while a child exits: the
		// children's values (perf_event_read_value:child).
		{"inherit-exit-vs-read", []string{"perf_event_read:state-read", "perf_read:fdget", "perf_event_read_value:lock", "perf_event_read_value:child"}},
		// The close against the sample: the removal by IPI.
		{"close-vs-sample", []string{"enter:call_function_single", "smp_call_function_single:wait", "__perf_remove_from_context"}},
		// The open's install and the close's removal of one pmu context.
		{"pmu-ctx-put-vs-open", []string{"enter:call_function_single", "smp_call_function_single:wait", "__perf_remove_from_context"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, tc.name), tc.want)
		})
	}
}
