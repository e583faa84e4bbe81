package coresight

import (
	"testing"

	"pgregory.net/rapid"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sim"
)

// decodedRecommit counts, the way the commit oracle did before it kept
// shadows, the units of a commit that an earlier commit into the same
// buffer declared: it decodes the committed bytes and compares each unit's
// Seq with the highest committed before (top, per buffer).
func decodedRecommit(dec *Decoder, top map[*rb.Buffer]uint64, c Commit) int {
	n := min(c.Size, c.Buf.AuxSize())
	hi, had := top[c.Buf]
	re := 0
	for _, u := range dec.Decode(c.CPU, c.Buf.AuxCopyOut(c.Pos+c.Size-n, int(n))) {
		if !u.Known {
			continue
		}
		if had && u.Frame.Seq <= hi {
			re++
			continue
		}
		hi, had = u.Frame.Seq, true
	}
	if had {
		top[c.Buf] = hi
	}
	return re
}

// TestRecommitShadowMatchesDecode: under any sequence of starts, stops,
// pauses, resumes and TRBE interrupts, on an ETR (of any size against the
// AUX area) or per-CPU TRBEs, in snapshot mode or not, the units each commit
// re-declares, counted from the shadow the sinks keep as they write, equal
// what decoding the committed bytes finds.
func TestRecommitShadowMatchesDecode(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		const cpus = 2
		sink := rapid.SampledFrom([]string{SinkETR, SinkTRBE}).Draw(rt, "sink")
		auxPages := 1 << rapid.IntRange(1, 4).Draw(rt, "auxPagesLog")
		cfg := Config{CPUs: cpus, Sink: sink, Rate: 64 << 20,
			Knobs: Knobs{PausePercpu: rapid.SampledFrom([]string{PauseSkip, PauseUpdate}).Draw(rt, "pause-percpu")}}
		if sink == SinkETR {
			cfg.SinkSize = rapid.IntRange(0, 2*auxPages*rb.PageSize/FrameSize).Draw(rt, "sinkFrames") * FrameSize
		}
		h := &testHost{}
		d, err := New(cfg, h)
		if err != nil {
			rt.Fatal(err)
		}
		snapshot := rapid.Bool().Draw(rt, "snapshot")
		var evs []*testEvent
		for c := 0; c < cpus; c++ {
			evs = append(evs, newTestEvent(t, d, c, auxPages, snapshot))
		}
		dec := d.NewDecoder()
		top := map[*rb.Buffer]uint64{}
		commits := 0
		d.commitHook = func(c Commit) {
			commits++
			if want := decodedRecommit(dec, top, c); c.Recommit != want {
				rt.Fatalf("commit %d (cpu%d, [%#x, +%#x)): shadow says %d units committed before, decoding says %d",
					commits, c.CPU, c.Pos, c.Size, c.Recommit, want)
			}
		}
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for range steps {
			c := rapid.IntRange(0, cpus-1).Draw(rt, "cpu")
			ev := evs[c]
			switch rapid.IntRange(0, 5).Draw(rt, "op") {
			case 0:
				if ev.hwState&hesStopped != 0 {
					d.Start(c, ev, 0)
				}
			case 1:
				if ev.hwState&hesStopped == 0 {
					d.Stop(c, ev, pmu.PERF_EF_UPDATE)
				}
			case 2:
				if ev.hwState&hesStopped == 0 {
					d.Stop(c, ev, pmu.PERF_EF_PAUSE)
				}
			case 3:
				if ev.hwState&hesStopped == 0 {
					d.Start(c, ev, pmu.PERF_EF_RESUME)
				}
			case 4:
				if at := h.irqAt[c]; at != 0 {
					h.now = max(h.now, at)
					// the PMI of an aux-pause event may land in the handler
					h.nmiAt = rapid.SampledFrom([]string{"", "arm_trbe_irq_handler:status-read", "arm_trbe_irq_handler:disabled"}).Draw(rt, "nmiAt")
					h.nmi = func() {
						if ev.hwState&hesStopped == 0 {
							d.Stop(c, ev, pmu.PERF_EF_PAUSE)
						}
					}
					d.IRQ(c)
					h.nmi = nil
				}
			case 5:
				h.now += sim.Time(rapid.IntRange(1, 2000).Draw(rt, "us")) * sim.Time(sim.Microsecond)
			}
		}
	})
}
