package explore

import (
	"testing"

	"perfsim/scenarios"
)

// intel_pt's counters of pt_event_add()'s -EBUSY and of a TraceEn left on
// after pt_event_stop(): observables, which no model code reads (the
// driver state they describe is annotated: pmu/pt/footprint_addel.go).
func init() { auditSkip = append(auditSkip, "pt.PMU.AddBusy", "pt.PMU.TraceAfterStop") }

// TestWriteAuditPTAddDel: the fragments that start at pt_config:started
// (pause_allowed set, the return through pt_event_start() and
// pt_event_add() into event_sched_in()'s rest) and at
// pt_event_stop:config-stopped (hw.state, the buffer's positions,
// perf_aux_output_end() up to its record or nest-zero step), and perf's
// event_sched_in/event_sched_out, which now run pt_event_add() and
// pt_event_del() annotated (pmu/pt/footprint_addel.go), write nothing they
// do not annotate, on intel_pt built-ins and on c2's shape. Each run
// checks the fragments it lists at least once.
func TestWriteAuditPTAddDel(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	addDel := []string{"pt_config:started", "pt_event_stop:config-stopped", "event_sched_in", "event_sched_out"}
	for _, tc := range []struct {
		name   string
		src    string   // the scenario's text ("": the built-in name)
		repeat int      // its loops cut to this many iterations (0: as shipped)
		want   []string // the starts checked at least once
	}{
		{"aux-pause-resume-nmi", "", 4, addDel},
		{"pt-pause-vs-pmi", "", 0, addDel},
		// snapshot mode: pt_event_stop()'s handle.head exchange is marked
		{"pt-sample-vs-stop", "", 0, append([]string{"pt_config:started"}, addDel[2:]...)},
		{"c2", c2Shape, 0, addDel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *scenarios.File
			if tc.repeat > 0 {
				f = cutBuiltin(t, tc.name, tc.repeat)
			} else {
				f = auditScenario(t, tc.name, tc.src)
			}
			auditChecked(t, f, tc.want)
		})
	}
}
