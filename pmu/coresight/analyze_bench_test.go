package coresight

import (
	"testing"

	"perfsim/pmu"
	"perfsim/sim"
)

// BenchmarkAnalyzeDescribed is the cost of analysing one snapshot of seed
// 004's shape from the AUX areas' descriptions: dd's 10 ms periods at
// 300 MiB/s on four CPUs behind the ETR, each CPU's 4 MiB AUX area read
// whole (ns/op, B/op and allocs/op are per snapshot, a fresh Analyzer
// each, as each schedule of an exploration has).
func BenchmarkAnalyzeDescribed(b *testing.B) {
	h := &testHost{now: 1}
	d, err := New(Config{CPUs: 4, Sink: SinkETR, Rate: 300 << 20}, h)
	if err != nil {
		b.Fatal(err)
	}
	const pages = 1024 // 4 MiB
	var evs []*testEvent
	for c := range 4 {
		evs = append(evs, newDescribedEvent(b, d, c, pages, true))
	}
	for _, cpu := range []int{0, 3, 1, 2, 1} {
		d.Start(cpu, evs[cpu], 0)
		for range 10 { // a tick a millisecond: kernel entry and exit
			h.now += sim.Time(1e6)
			d.ModeSwitch(cpu, !d.user[cpu])
			d.ModeSwitch(cpu, !d.user[cpu])
		}
		d.Stop(cpu, evs[cpu], pmu.PERF_EF_UPDATE)
	}
	var chunks []Chunk
	for c, ev := range evs {
		size := ev.buf.AuxSize()
		chunks = append(chunks, Chunk{CPU: c, Pieces: ev.buf.AuxPieces(0, size)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := d.NewAnalyzer().Analyze(chunks)
		if r.Frames == 0 {
			b.Fatalf("nothing decoded: %v", r)
		}
	}
}
