package rb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputAuditedCaller: a caller that annotates its own code after the
// record (PerfEventOutputAudited, pmu's __perf_event_output();
// PerfOutputSidebandAudited, a side-band record's) gets no mark where
// perf_output_end(), or a begin that found no room, returns into it;
// PerfEventOutput's and PerfOutputSideband's callers keep it
// (TestOutputFootprints).
func TestOutputAuditedCaller(t *testing.T) {
	sample := func(audit bool) func(l *footprintLog, b *Buffer, ev Event) error {
		out := PerfEventOutput
		if audit {
			out = PerfEventOutputAudited
		}
		return func(l *footprintLog, b *Buffer, ev Event) error { return out(l, b, ev, seqSample(1, 0), false) }
	}
	comm := func(audit bool) func(l *footprintLog, b *Buffer, ev Event) error {
		out := PerfOutputSideband
		if audit {
			out = PerfOutputSidebandAudited
		}
		return func(l *footprintLog, b *Buffer, ev Event) error {
			return out(l, b, ev, &Comm{Pid: 1, Tid: 1, Comm: "app"}, nil, false)
		}
	}
	const written = "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r"
	for _, tc := range []struct {
		name   string
		full   bool
		output func(l *footprintLog, b *Buffer, ev Event) error
		want   string // the last fragment
	}{
		{name: "audited: a sample", output: sample(true), want: written},
		{name: "audited: a sample, no room", full: true, output: sample(true), want: written},
		{name: "not audited: a sample", output: sample(false), want: written + ", UNAUDITED perf_output_end's caller"},
		{name: "not audited: a sample, no room", full: true, output: sample(false), want: written + ", UNAUDITED __perf_output_begin's caller"},
		{name: "audited: a COMM", output: comm(true), want: written},
		{name: "audited: a COMM, no room", full: true, output: comm(true), want: written},
		{name: "not audited: a COMM", output: comm(false), want: written + ", UNAUDITED perf_output_end's caller"},
		{name: "not audited: a COMM, no room", full: true, output: comm(false), want: written + ", UNAUDITED __perf_output_begin's caller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBuffer(1, 0, RingBufferWritable)
			if tc.full {
				b.head = b.DataSize() - 8 // data_tail 0: 7 bytes free
			}
			ev := &SimpleEvent{EventID: 1}
			l := &footprintLog{}
			b.SetAccessor(l)
			err := tc.output(l, b, ev)
			if (err != nil) != tc.full {
				t.Fatalf("output: %v, want an error %v", err, tc.full)
			}
			frags := l.done()
			if diff := cmp.Diff(tc.want, frags[len(frags)-1]); diff != "" {
				t.Errorf("the fragment back into the caller (-want +got):\n%s", diff)
			}
		})
	}
}
