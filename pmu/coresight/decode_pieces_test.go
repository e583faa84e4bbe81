package coresight

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sim"
)

// newDescribedEvent is newTestEvent with the AUX area the cs_etm PMU gets:
// described (the sinks store descriptions, frames.go), no AUX sampler.
func newDescribedEvent(t interface{ Fatal(...any) }, d *Device, cpu, auxPages int, snapshot bool) *testEvent {
	return newAuxEvent(t, d, cpu, auxPages, snapshot, true)
}

// TestAnalyzePiecesSameAsBytes: a snapshot's chunks decoded from the AUX
// areas' descriptions (Chunk.Pieces) give the report their bytes give, for
// ETR and TRBE sinks, trace that wrapped, mode switches (an address and
// context at a run's start), synchronisations, barriers, never-written
// slots, and stretches that start or end inside a unit; a second snapshot
// counts the same duplicates.
func TestAnalyzePiecesSameAsBytes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		sink := rapid.SampledFrom([]string{SinkETR, SinkTRBE}).Draw(rt, "sink")
		cfg := Config{CPUs: 2, Sink: sink, Rate: 64 << 20}
		if sink == SinkETR && rapid.Bool().Draw(rt, "small-sink") {
			cfg.SinkSize = 8 << 10
		}
		h := &testHost{now: sim.Time(rapid.Int64Range(1, 1e6).Draw(rt, "t0"))}
		d, err := New(cfg, h)
		if err != nil {
			rt.Fatal(err)
		}
		const pages = 4 // 16 KiB: a 250 us period fills it
		snapshot := rapid.Bool().Draw(rt, "snapshot")
		evs := []*testEvent{newDescribedEvent(rt, d, 0, pages, snapshot), newDescribedEvent(rt, d, 1, pages, snapshot)}
		for i, n := 0, rapid.IntRange(1, 8).Draw(rt, "periods"); i < n; i++ {
			cpu := rapid.IntRange(0, 1).Draw(rt, "cpu")
			d.Start(cpu, evs[cpu], 0)
			for j, m := 0, rapid.IntRange(0, 3).Draw(rt, "switches"); j <= m; j++ {
				h.now += sim.Time(rapid.Int64Range(1, 400e3).Draw(rt, "ns"))
				if j < m {
					d.ModeSwitch(cpu, !d.user[cpu])
				}
			}
			d.Stop(cpu, evs[cpu], pmu.PERF_EF_UPDATE)
		}
		a1, a2 := d.NewAnalyzer(), d.NewAnalyzer()
		for snap := 0; snap < 2; snap++ {
			var byPieces, byBytes []Chunk
			for c, ev := range evs {
				if !ev.buf.AuxDescribed() {
					rt.Fatalf("cpu%d's AUX area is not described", c)
				}
				size := ev.buf.AuxSize()
				pos := rapid.Uint64Range(0, 2*size).Draw(rt, "pos")
				if rapid.Bool().Draw(rt, "aligned") {
					pos &^= FrameSize - 1
				}
				n := rapid.Uint64Range(0, size).Draw(rt, "len")
				ps := ev.buf.AuxPieces(pos, n)
				byPieces = append(byPieces, Chunk{CPU: c, Pieces: ps})
				byBytes = append(byBytes, Chunk{CPU: c, Data: rb.PiecesBytes(ps)})
			}
			got, want := a1.Analyze(byPieces), a2.Analyze(byBytes)
			if diff := cmp.Diff(want, got); diff != "" {
				rt.Fatalf("snapshot %d: report from the pieces (-bytes +pieces):\n%s", snap, diff)
			}
		}
	})
}
