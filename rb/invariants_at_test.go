package rb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestViolationAt: a violation names the log event that showed it, or -1 when
// it was judged at the end of the log.
func TestViolationAt(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  []TraceEvent
		f    Final
		want []Violation
	}{{
		name: "hardware enabled outside a transaction",
		log: []TraceEvent{
			{Kind: TraceAuxBegin, Pos: 0},
			{Kind: TraceAuxCommit, Pos: 0, Size: 0},
			{Kind: TraceAuxHWEnable, Pos: 0x40},
		},
		want: []Violation{{"aux-write-in-transaction", "the PMU enabled tracing into the AUX area at AUX position 0x40 with no AUX transaction open (tracing re-enabled after perf_aux_output_end)", 2}},
	}, {
		name: "write after the commit",
		log: []TraceEvent{
			{Kind: TraceAuxBegin, Pos: 0},
			{Kind: TraceAuxWrite, Pos: 0, Size: 16, Rec: make([]byte, 16)},
			{Kind: TraceAuxCommit, Pos: 0, Size: 16},
			{Kind: TraceAuxWrite, Pos: 16, Size: 16, Rec: make([]byte, 16)},
		},
		want: []Violation{{"aux-write-in-transaction", "the hardware wrote 16 AUX bytes at AUX position 0x10 with no AUX transaction open (tracing left on after perf_aux_output_end)", 3}},
	}, {
		name: "lost counts judged at the end",
		f:    Final{Lost: 2},
		want: []Violation{{"lost-conserved", "0 counted lost, 0 reported by PERF_RECORD_LOST, 2 pending", -1}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Check(tc.log, tc.f)); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}
