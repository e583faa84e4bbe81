package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
	"perfsim/uapi"
)

// TestHeadTailReader: simpleperf's reader copies [data_tail, data_head) as
// the masked positions say and gives it back. It reads records, across the
// wrap too, while data_head >= data_tail; once data_head is below a tail it
// advanced (1b038c6e05ff), it copies stale bytes as a wrap and aborts on the
// size-0 header it finds there.
func TestHeadTailReader(t *testing.T) {
	a := bs(hdr(uapi.PERF_RECORD_SAMPLE, 0, 16), uint64(0xa1))
	b := bs(hdr(uapi.PERF_RECORD_SAMPLE, 0, 24), uint64(0xb1), uint64(0xb2))
	type read struct {
		Pos  uint64
		Size int
	}
	type result struct {
		Recs    [][]byte
		Tail    uint64
		Aborted string
		Reads   []read
	}
	for _, tc := range []struct {
		name       string
		at         uint64 // where a then b are written
		head, tail uint64
		want       result
	}{
		{"head ahead", 0, 40, 0, result{Recs: [][]byte{a, b}, Tail: 40, Reads: []read{{0, 16}, {16, 24}}}},
		{"nothing new", 0, 40, 40, result{Tail: 40}},
		{"across the wrap", 4096 - 24, 4096 + 16, 4096 - 24,
			result{Recs: [][]byte{a, b}, Tail: 4096 + 16, Reads: []read{{4096 - 24, 16}, {4096 - 8, 24}}}},
		{"head below tail", 0, 16, 40, result{Tail: 4096 + 16, Aborted: "Check failed: 0u != header.size",
			Reads: []read{{40, 8}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := mustBuffer(1, 0, rb.RingBufferWritable)
			for i, x := range append(append([]byte(nil), a...), b...) {
				buf.Data()[(tc.at+uint64(i))&buf.Mask()] = x
			}
			buf.User.DataHead, buf.User.DataTail = tc.head, tc.tail
			r, err := NewHeadTailReader(buf)
			if err != nil {
				t.Fatal(err)
			}
			var got result
			r.Tracer = func(e rb.TraceEvent) {
				if e.Kind == rb.TraceRead {
					got.Reads = append(got.Reads, read{e.Pos, e.Size})
				}
			}
			got.Recs = r.Read(rb.NoSteps{})
			got.Tail, got.Aborted = buf.User.DataTail, r.Aborted
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if _, err := NewHeadTailReader(mustBuffer(1, 0, 0)); err == nil {
		t.Error("a read-only (overwrite) ring mapped for the head-tail reader")
	}
}
