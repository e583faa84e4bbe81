package coresight

import (
	"testing"

	"pgregory.net/rapid"
)

// TestDecodeUnitFastPathEqualsBytes: the decoder's fast path for plain
// timestamp frames (plainFormatted) decodes every 16 bytes exactly as the
// deformatter and packet parser do: frames the ETR writes, the same with
// bytes flipped, and arbitrary bytes.
func TestDecodeUnitFastPathEqualsBytes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cpus := rapid.IntRange(1, 8).Draw(rt, "cpus")
		dec := &Decoder{CPUs: cpus}
		var f [FrameSize]byte
		if rapid.Bool().Draw(rt, "arbitrary") {
			copy(f[:], rapid.SliceOfN(rapid.Byte(), FrameSize, FrameSize).Draw(rt, "bytes"))
		} else {
			src := &unitSrc{cpu: rapid.IntRange(0, cpus+1).Draw(rt, "cpu"),
				index: rapid.Uint32Range(0, 3*unitsPerSync).Draw(rt, "index"),
				n:     rapid.Uint64Range(1, 1000).Draw(rt, "n"),
				// spread over all 49 bits a timestamp packet carries (rapid
				// draws small numbers first)
				since: rapid.Uint64Range(0, 1<<25).Draw(rt, "since") * 0x9e3779b97f4a7c15 & (1<<49 - 1),
				addr:  SpanAddr(true, 5), pid: 5, user: true,
				cfg: etmConfig{ts: rapid.Bool().Draw(rt, "ts"), ctxt: true}, ctxFirst: rapid.Bool().Draw(rt, "ctxFirst")}
			src.until = src.since + src.n*2 + rapid.Uint64Range(0, 1<<20).Draw(rt, "dt")
			w := src.writer(rapid.Uint64Range(0, src.n-1).Draw(rt, "k"))
			w.putFormatted(f[:], traceID(src.cpu))
			for _, i := range rapid.SliceOfN(rapid.IntRange(0, FrameSize-1), 0, 3).Draw(rt, "flip") {
				f[i] ^= rapid.Byte().Draw(rt, "mask")
			}
		}
		got, want := dec.decodeUnit(-1, f[:]), dec.decodeUnitBytes(-1, f[:])
		if got != want {
			rt.Fatalf("frame % x: fast path %+v, bytes %+v", f, got, want)
		}
	})
}

// TestInferRunsEqualsReference: infer (inferRuns over runs of one unit:
// looking only around the units without a timestamp) and inferRunsFull give every
// unit the identity the reference's two whole-chunk walks give, whatever
// the mix of streams, barriers and units already known, including chunks
// where a neighbour is farther than inferScan.
func TestInferRunsEqualsReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cpus := rapid.IntRange(1, 4).Draw(rt, "cpus")
		l := newLedger(cpus, false)
		seq := uint64(0)
		for c := 0; c < cpus; c++ {
			for r := 0; r < 3; r++ {
				n := rapid.Uint64Range(1, 50).Draw(rt, "runLen")
				l.add(c, ledgerRun{period: r + 1, seq: seq, n: n, since: seq * 10, until: (seq + n) * 10})
				seq += n
			}
		}
		n := rapid.IntRange(0, 300).Draw(rt, "units")
		units := make([]Unit, n)
		same := rapid.IntRange(0, 3).Draw(rt, "cpuSkew") // 0: any CPU; else long stretches of one
		cpu := 0
		for i := range units {
			u := &units[i]
			switch k := rapid.IntRange(0, 19).Draw(rt, "kind"); {
			case k == 0:
				u.Kind, u.CPU = KindBarrier, -1
				continue
			case k == 1:
				u.Kind, u.CPU = KindZero, -1
				continue
			case k == 2:
				u.Kind, u.CPU = KindGarbage, -1
				continue
			}
			if same == 0 || rapid.IntRange(0, 40).Draw(rt, "switch") == 0 {
				cpu = rapid.IntRange(-1, cpus).Draw(rt, "cpu")
			}
			u.Kind, u.CPU = KindData, cpu
			if cpu >= 0 && cpu < cpus && rapid.IntRange(0, 3).Draw(rt, "known") > 0 {
				runs := l.cpus[cpu]
				r := runs[rapid.IntRange(0, len(runs)-1).Draw(rt, "run")]
				u.Frame, u.Known = r.frame(cpu, rapid.Uint64Range(0, r.n-1).Draw(rt, "k")), true
			}
		}
		want := append([]Unit(nil), units...)
		refInferFull(&Decoder{L: l, CPUs: cpus}, want)
		got := append([]Unit(nil), units...)
		(&Decoder{L: l, CPUs: cpus}).infer(got)
		full := append([]Unit(nil), units...)
		dec := &Decoder{L: l, CPUs: cpus}
		dec.inferUnits(full, dec.inferRunsFull)
		for i := range got {
			if got[i] != want[i] || full[i] != want[i] {
				rt.Fatalf("unit %d: infer %+v, inferRunsFull %+v, the reference walks %+v", i, got[i], full[i], want[i])
			}
		}
	})
}

// refInferFull is the reference inference: each unit without a timestamp
// takes the identity of its neighbour, walking the whole chunk backwards,
// then forwards, unit by unit (the decoder's inferRuns works over runs).
func refInferFull(dec *Decoder, units []Unit) {
	near := make([]int, dec.CPUs+1)
	reset := func() {
		for i := range near {
			near[i] = -1
		}
	}
	// walk visits units[i] going in direction delta: a unit not yet known
	// is the one its ETM emitted delta after the nearest known unit of its
	// stream (near: CPU+1 -> that unit's index, -1 none).
	walk := func(i, delta int) {
		u := &units[i]
		if u.Kind == KindBarrier {
			reset()
			return
		}
		if u.Kind != KindData || u.CPU+1 >= len(near) {
			return
		}
		if j := near[u.CPU+1]; !u.Known && j >= 0 && units[j].Known {
			u.Frame, u.Known = dec.L.Step(units[j].Frame, delta)
		}
		near[u.CPU+1] = i
	}
	reset()
	for i := len(units) - 1; i >= 0; i-- {
		walk(i, -1)
	}
	reset()
	for i := range units {
		walk(i, +1)
	}
}
