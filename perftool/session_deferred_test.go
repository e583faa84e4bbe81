package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/uapi"
)

const (
	ctxK  = uapi.PERF_CONTEXT_KERNEL
	ctxUD = uapi.PERF_CONTEXT_USER_DEFERRED
)

// deferredData builds a processed perf.data of one evsel with
// defer_callchain from samples and CALLCHAIN_DEFERRED records, in time order.
func deferredData(t *testing.T, recs []any) *PerfData {
	t.Helper()
	a := pmu.Attr{SampleType: uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CALLCHAIN | uapi.PERF_SAMPLE_IDENTIFIER,
		SampleIDAll: true, DeferCallchain: true}
	d := &PerfData{Attrs: []FileAttr{{Name: "cycles", Attr: a, IDs: []uint64{7}}}}
	var b []byte
	for _, r := range recs {
		switch r := r.(type) {
		case *rb.Sample:
			r.Type, r.ID = a.SampleType, 7
			var err error
			if b, err = rb.AppendSample(b, r); err != nil {
				t.Fatal(err)
			}
		case *rb.CallchainDeferred:
			b = rb.AppendRecord(b, r, a.SampleType, true, &rb.SampleID{Tid: 5, Pid: 5, Time: 100, ID: 7})
		}
	}
	d.write(b, 0, 0, 0, false)
	d.Process()
	return d
}

// TestDeliverDeferred: samples wait for their record; matching cookies merge
// (the cookie word dropped, the USER_DEFERRED marker kept), a different
// cookie of the same TID is delivered unmerged, other TIDs keep waiting and
// are flushed unmerged at the end; --no-merge-callchains delivers as recorded.
func TestDeliverDeferred(t *testing.T) {
	d := deferredData(t, []any{
		&rb.Sample{Pid: 5, Tid: 5, Time: 10, Callchain: []uint64{ctxK, 0xa, ctxUD, 0x3_00000001}},
		&rb.Sample{Pid: 5, Tid: 5, Time: 20, Callchain: []uint64{ctxK, 0xb, ctxUD, 0x1_00000001}},
		&rb.Sample{Pid: 6, Tid: 6, Time: 30, Callchain: []uint64{ctxK, 0xc, ctxUD, 0x3_00000001}},
		&rb.CallchainDeferred{Cookie: 0x3_00000001, IPs: []uint64{0x401, 0x402}},
	})
	type out struct {
		Time   uint64
		Merged bool
		Chain  []uint64
	}
	var got []out
	for _, ds := range d.Deliver(true) {
		got = append(got, out{ds.Sample.Time, ds.Merged, ds.Sample.Callchain})
	}
	want := []out{
		{10, true, []uint64{ctxK, 0xa, ctxUD, 0x401, 0x402}},
		{20, false, []uint64{ctxK, 0xb, ctxUD, 0x1_00000001}},
		{30, false, []uint64{ctxK, 0xc, ctxUD, 0x3_00000001}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged delivery (-want +got):\n%s", diff)
	}
	if n := len(d.Deliver(false)); n != 3 {
		t.Errorf("--no-merge-callchains delivered %d samples, want 3", n)
	}
}

// TestMergeDeferredProperty: the merged chain is the sample's chain without
// its last word, then the deferred ips, whatever their lengths.
func TestMergeDeferredProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		orig := rapid.SliceOfN(rapid.Uint64(), 0, 20).Draw(rt, "orig")
		def := rapid.SliceOfN(rapid.Uint64(), 0, 20).Draw(rt, "deferred")
		got, ok := mergeDeferredCallchain(orig, def)
		if len(orig) < 2 {
			if ok {
				rt.Fatalf("merged a chain of %d words", len(orig))
			}
			return
		}
		if !ok || len(got) != len(orig)-1+len(def) {
			rt.Fatalf("len %d, want %d", len(got), len(orig)-1+len(def))
		}
		if diff := cmp.Diff(append(append([]uint64{}, orig[:len(orig)-1]...), def...), got); diff != "" {
			rt.Fatal(diff)
		}
	})
}

// TestDecodeCallchainDeferredErrors: a record whose nr runs past its end is
// a parse error, not a panic.
func TestDecodeCallchainDeferredErrors(t *testing.T) {
	b := rb.AppendRecord(nil, &rb.CallchainDeferred{Cookie: 1, IPs: []uint64{1, 2}}, 0, false, nil)
	b[16] = 200 // nr
	if _, err := rb.Decode(b, 0, false); err == nil {
		t.Fatal("a record with nr past its end decoded")
	}
	good := rb.AppendRecord(nil, &rb.CallchainDeferred{Cookie: 9, IPs: []uint64{1, 2}}, 0, false, nil)
	dec, err := rb.Decode(good, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&rb.CallchainDeferred{Cookie: 9, IPs: []uint64{1, 2}}, dec.Sideband); diff != "" {
		t.Error(diff)
	}
}
