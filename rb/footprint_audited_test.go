package rb

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputAuditedCaller: a caller that annotates its own code after the
// record (PerfEventOutputAudited, pmu's __perf_event_output()) gets no mark
// where perf_output_end(), or a begin that found no room, returns into it;
// PerfEventOutput's callers keep it (TestOutputFootprints).
func TestOutputAuditedCaller(t *testing.T) {
	for _, tc := range []struct {
		name  string
		full  bool
		audit bool
		want  string // the last fragment
	}{
		{name: "audited: a sample", audit: true, want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r"},
		{name: "audited: no room", audit: true, full: true, want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r"},
		{name: "not audited: a sample", want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, UNAUDITED perf_output_end's caller"},
		{name: "not audited: no room", full: true, want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, UNAUDITED __perf_output_begin's caller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBuffer(1, 0, RingBufferWritable)
			if tc.full {
				b.head = b.DataSize() - 8 // data_tail 0: 7 bytes free
			}
			ev := &SimpleEvent{EventID: 1}
			l := &footprintLog{}
			b.SetAccessor(l)
			out := PerfEventOutput
			if tc.audit {
				out = PerfEventOutputAudited
			}
			err := out(l, b, ev, seqSample(1, 0), false)
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

// TestSidebandAuditedCaller is TestOutputAuditedCaller for a side-band
// record: PerfOutputSidebandAudited's caller gets no mark where
// perf_output_end() returns into it, PerfOutputSideband's does.
func TestSidebandAuditedCaller(t *testing.T) {
	for _, tc := range []struct {
		name  string
		full  bool
		audit bool
		want  string // the last fragment
	}{
		{name: "audited: a COMM", audit: true, want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r"},
		{name: "audited: no room", audit: true, full: true, want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r"},
		{name: "not audited: a COMM", want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, UNAUDITED perf_output_end's caller"},
		{name: "not audited: no room", full: true, want: "perf_output_put_handle:nest-zero:, rb->head r, rb->wakeup r, UNAUDITED __perf_output_begin's caller"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mustBuffer(1, 0, RingBufferWritable)
			if tc.full {
				b.head = b.DataSize() - 8 // data_tail 0: 7 bytes free
			}
			ev := &SimpleEvent{EventID: 1}
			l := &footprintLog{}
			b.SetAccessor(l)
			out := PerfOutputSideband
			if tc.audit {
				out = PerfOutputSidebandAudited
			}
			err := out(l, b, ev, &Comm{Pid: 1, Tid: 1, Comm: "app"}, nil, false)
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
