package rb

import (
	"strings"
	"testing"
)

// TestAuxThrottleLeftOpenCause: the AUX invariants name a throttle stop
// without PERF_EF_UPDATE as the cause when the transaction it left open is
// never closed (the upstream bug of docs/upstream/pt-throttle-group.md):
// aux-bytes-accounted for the bytes written in it, aux-pages-lifetime for the
// pages its aux_refcount keeps after the last munmap. A stop with
// PERF_EF_UPDATE (knob aux-throttle=proposed) commits first: nothing breaks.
// Bytes unaccounted before the open transaction, or a leak with no throttle,
// keep the plain messages.
func TestAuxThrottleLeftOpenCause(t *testing.T) {
	alloc := []TraceEvent{{Kind: TraceAuxAlloc, Size: 8}, {Kind: TraceAuxMap, Value: 1}}
	write := func(pos uint64, n int) TraceEvent {
		return TraceEvent{Kind: TraceAuxWrite, Pos: pos, Size: n, Rec: make([]byte, n)}
	}
	cat := func(parts ...[]TraceEvent) []TraceEvent {
		var out []TraceEvent
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	first := []TraceEvent{{Kind: TraceAuxBegin, Pos: 0}, write(0, 64), {Kind: TraceAuxCommit, Pos: 0, Size: 64, Counted: true}}
	unmap := []TraceEvent{{Kind: TraceAuxMap, Value: 0}}
	f := Final{Drained: true, Quiet: true}
	for _, tc := range []struct {
		name string
		log  []TraceEvent
		want map[string]string // invariant -> the message's end
	}{
		{"throttle stop leaves it open", cat(alloc, first, []TraceEvent{{Kind: TraceAuxBegin, Pos: 64}, write(64, 32),
			{Kind: TraceAuxThrottleStop, Pos: 1, Value: 0}}, unmap),
			map[string]string{"aux-bytes-accounted": "[0x40, 0x60) written by the hardware are in no PERF_RECORD_AUX range" + throttleOpenCause,
				"aux-pages-lifetime": "so perf_mmap_close() did not free them" + throttleOpenCause}},
		{"PERF_EF_UPDATE ends it", cat(alloc, first, []TraceEvent{{Kind: TraceAuxBegin, Pos: 64}, write(64, 32),
			{Kind: TraceAuxCommit, Pos: 64, Size: 32, Counted: true}, {Kind: TraceAuxThrottleStop, Pos: 1, Value: perfEFUpdate}},
			unmap, []TraceEvent{{Kind: TraceAuxFree}}), map[string]string{}},
		{"no throttle", cat(alloc, []TraceEvent{{Kind: TraceAuxBegin, Pos: 0}, write(0, 64)}, unmap),
			map[string]string{"aux-bytes-accounted": "[0x0, 0x40) written by the hardware are in no PERF_RECORD_AUX range",
				"aux-pages-lifetime": "aux_mmap_count never reached 0, or an AUX writer still holds aux_refcount, so perf_mmap_close() did not free them"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, v := range Check(tc.log, f) {
				got[v.Invariant] = v.Detail
			}
			if len(got) != len(tc.want) {
				t.Errorf("violations %v, want %d", got, len(tc.want))
			}
			for inv, end := range tc.want {
				if !strings.HasSuffix(got[inv], end) {
					t.Errorf("%s: got %q, want it to end %q", inv, got[inv], end)
				}
			}
		})
	}
}
