package coresight

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sim"
)

// describedSnapshot is BenchmarkAnalyzeDescribed's snapshot (seed 004's
// shape): four CPUs' 4 MiB AUX areas behind the ETR at 300 MiB/s, each
// traced for 10 ms periods with a mode switch a millisecond, read whole from
// their descriptions.
func describedSnapshot(t testing.TB) (*Device, []Chunk) {
	h := &testHost{now: 1}
	d, err := New(Config{CPUs: 4, Sink: SinkETR, Rate: 300 << 20}, h)
	if err != nil {
		t.Fatal(err)
	}
	const pages = 1024 // 4 MiB
	var evs []*testEvent
	for c := range 4 {
		evs = append(evs, newDescribedEvent(t, d, c, pages, true))
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
	return d, chunks
}

// TestAnalyzeDescribedTakesUnits: analysing a described snapshot takes
// every trace unit from its description (takeUnits) and decodes no frame
// one by one (the zero slots are taken as runs too), and gives the report
// that analysing the same bytes gives. A change that silently turns the analytic path off fails here.
func TestAnalyzeDescribedTakesUnits(t *testing.T) {
	d, chunks := describedSnapshot(t)
	a := d.NewAnalyzer()
	got := a.Analyze(chunks)
	if got.Frames == 0 || got.Unresolved != 0 {
		t.Fatalf("the snapshot has %d units, %d unresolved: %v", got.Frames, got.Unresolved, got)
	}
	if a.Dec.takenUnits != uint64(got.Frames) || a.Dec.oneByOne != 0 {
		t.Errorf("takeUnits took %d of the %d units, %d frames decoded one by one; want all taken, none one by one",
			a.Dec.takenUnits, got.Frames, a.Dec.oneByOne)
	}

	var byBytes []Chunk
	for _, c := range chunks {
		byBytes = append(byBytes, Chunk{CPU: c.CPU, Data: rb.PiecesBytes(c.Pieces)})
	}
	ref := d.NewAnalyzer()
	want := ref.Analyze(byBytes)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("described snapshot's report differs from its bytes' (-bytes +described):\n%s", diff)
	}
}
