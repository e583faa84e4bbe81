package coresight

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
)

func TestDecodeFrame(t *testing.T) {
	var data [FrameSize]byte
	putFrame(data[:], Frame{CPU: 3, Period: 5, Index: 7, Seq: 1 << 40})
	tests := []struct {
		name string
		in   []byte
		want Frame
		kind FrameKind
	}{
		{"data", data[:], Frame{CPU: 3, Period: 5, Index: 7, Seq: 1 << 40}, KindData},
		{"barrier", barrierFrame[:], Frame{}, KindBarrier},
		{"zero", make([]byte, FrameSize), Frame{}, KindZero},
		{"torn", append([]byte{1}, make([]byte, FrameSize-1)...), Frame{}, KindGarbage},
		{"short", data[:8], Frame{}, KindGarbage},
	}
	for _, tc := range tests {
		f, k := DecodeFrame(tc.in)
		if diff := cmp.Diff(tc.want, f); diff != "" || k != tc.kind {
			t.Errorf("%s: kind %d want %d, frame (-want +got):\n%s", tc.name, k, tc.kind, diff)
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
	var a Analyzer
	r := a.Analyze([]Chunk{{CPU: 0, Data: data}})
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
