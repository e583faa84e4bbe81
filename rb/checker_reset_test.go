package rb

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// rec8 is a record of n bytes (a multiple of 8) whose header says so, with
// misc b to tell records apart.
func rec8(n int, b byte) []byte {
	r := make([]byte, n)
	binary.LittleEndian.PutUint32(r, uapi.PERF_RECORD_SAMPLE)
	binary.LittleEndian.PutUint16(r[6:], uint16(n))
	r[4] = b
	return r
}

// A Checker that judged one log and was Reset judges the next exactly as a
// new one does (pmu reuses them across runs), and the violations it returned
// before stay as they were.
func TestCheckerResetJudgesAfresh(t *testing.T) {
	logs := map[string][]TraceEvent{
		"read twice, head backwards": {
			{Kind: TraceReserve, Pos: 0, Size: 16},
			{Kind: TraceCommit, Pos: 0, Size: 16, Rec: rec8(16, 1)},
			{Kind: TraceDataHead, Value: 16},
			{Kind: TraceReserve, Pos: 16, Size: 24},
			{Kind: TraceCommit, Pos: 16, Size: 24, Rec: rec8(24, 2)},
			{Kind: TraceDataHead, Value: 8},
			{Kind: TraceReadPass},
			{Kind: TraceRead, Pos: 0, Size: 16, Rec: rec8(16, 1)},
			{Kind: TraceRead, Pos: 0, Size: 16, Rec: rec8(16, 1)},
		},
		"early visibility, unknown read, AUX write outside a transaction": {
			{Kind: TraceReserve, Pos: 0, Size: 32},
			{Kind: TraceReadHead, Value: 32},
			{Kind: TraceRead, Pos: 0, Size: 32, Rec: rec8(32, 9)},
			{Kind: TraceAuxBegin, Pos: 0},
			{Kind: TraceAuxCommit, Pos: 0, Size: 0},
			{Kind: TraceAuxWrite, Pos: 0, Size: 16, Rec: make([]byte, 16)},
		},
		"clean": {
			{Kind: TraceReserve, Pos: 0, Size: 8},
			{Kind: TraceCommit, Pos: 0, Size: 8, Rec: rec8(8, 3)},
			{Kind: TraceDataHead, Value: 8},
			{Kind: TraceReadPass},
			{Kind: TraceRead, Pos: 0, Size: 8, Rec: rec8(8, 3)},
		},
	}
	f := Final{DataSize: 4096, Drained: true}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range logs {
			if !yield(n) {
				return
			}
		}
	})
	for _, first := range names {
		for _, second := range names {
			var c Checker
			c.SetMode(false, false, f.DataSize)
			for _, e := range logs[first] {
				c.Add(e)
			}
			got1 := c.Finish(f)
			kept := slices.Clone(got1)
			c.Reset()
			c.SetMode(false, false, f.DataSize)
			for _, e := range logs[second] {
				c.Add(e)
			}
			if diff := cmp.Diff(Check(logs[second], f), c.Finish(f)); diff != "" {
				t.Errorf("%q after %q (-new checker +reset one):\n%s", second, first, diff)
			}
			if diff := cmp.Diff(kept, got1); diff != "" {
				t.Errorf("%q's violations changed when the checker judged %q:\n%s", first, second, diff)
			}
		}
	}
	// The logs do show what they say (the comparison is not between empties).
	for name, want := range map[string][]string{
		"read twice, head backwards":                                      {"data-head-monotonic", "record-accounted-once", "read-order", "record-accounted-once"},
		"early visibility, unknown read, AUX write outside a transaction": {"no-early-visibility", "read-record-was-written", "aux-write-in-transaction", "aux-bytes-accounted"},
		"clean": nil,
	} {
		var invs []string
		for _, v := range Check(logs[name], f) {
			invs = append(invs, v.Invariant)
		}
		if diff := cmp.Diff(want, invs); diff != "" {
			t.Errorf("%s: violations (-want +got):\n%s", name, diff)
		}
	}
}
