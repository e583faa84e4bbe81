package coresight

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// refAnalyzer is Analyze unit by unit, as it was before runs: every 16-byte
// slot through Decoder.Decode, counted one at a time. The property below
// holds Analyze to it.
type refAnalyzer struct {
	dec  *Decoder
	seen bitset
	prev []int64
}

func (a *refAnalyzer) analyze(chunks []Chunk) *Report {
	r := &Report{PerPer: map[int]int{}, PerCPU: map[int]int{}}
	var cur bitset
	first, firstTS := true, true
	for _, c := range chunks {
		r.Bytes += len(c.Data)
		r.PerCPU[c.CPU] += len(c.Data)
		a.prev = make([]int64, a.dec.CPUs)
		for i := range a.prev {
			a.prev[i] = -1
		}
		units := a.dec.Decode(c.CPU, c.Data)
		if a.dec.L != nil {
			// Resolve, then the two whole-chunk walks alone (Decode's
			// infer may take inferNear)
			for i := range units {
				u := &units[i]
				u.Frame, u.Known = Frame{}, false
				if u.Kind == KindData && u.HasTS {
					u.Frame, u.Known = a.dec.L.Resolve(u.CPU, u.TS)
				}
			}
			a.dec.inferFull(units)
		}
		for _, u := range units {
			switch u.Kind {
			case KindBarrier:
				r.Barriers++
				continue
			case KindZero:
				r.Zero++
				continue
			case KindGarbage:
				r.Garbage++
				continue
			}
			r.Frames++
			if u.HasTS {
				if firstTS || u.TS < r.MinTS {
					r.MinTS = u.TS
				}
				if firstTS || u.TS > r.MaxTS {
					r.MaxTS = u.TS
				}
				firstTS = false
			}
			if !u.Known {
				r.Unresolved++
				continue
			}
			f := u.Frame
			r.PerPer[f.Period]++
			if f.Period >= 1 && f.Period <= 64 {
				r.Periods |= 1 << (f.Period - 1)
			}
			for f.CPU >= len(a.prev) {
				a.prev = append(a.prev, -1)
			}
			if p := a.prev[f.CPU]; p >= 0 && f.Seq <= uint64(p) {
				r.OutOrder++
			}
			a.prev[f.CPU] = int64(f.Seq)
			if cur.has(f.Seq) || a.seen.has(f.Seq) {
				r.Dups++
			}
			if !cur.has(f.Seq) {
				r.Distinct++
				cur.add(f.Seq)
			}
			if first || f.Seq < r.MinSeq {
				r.MinSeq = f.Seq
			}
			if first || f.Seq > r.MaxSeq {
				r.MaxSeq = f.Seq
			}
			first = false
		}
		if len(c.Data)%FrameSize != 0 {
			r.Garbage++
		}
	}
	for i, w := range cur {
		for i >= len(a.seen) {
			a.seen = append(a.seen, make([]uint64, len(a.seen)+1)...)
		}
		a.seen[i] |= w
	}
	return r
}

// TestAnalyzeRunsEqualsUnits: Analyze, which decodes a chunk into runs of
// units and counts a run at once, reports exactly what decoding and
// counting every 16-byte slot reports, over successive snapshots of
// formatted (ETR) or raw (TRBE) trace: pieces of the ETMs' streams in any
// order, overlapping and repeated, A-sync and address units, barriers,
// zero and torn slots, flipped bytes and ragged ends.
func TestAnalyzeRunsEqualsUnits(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cpus := rapid.IntRange(1, 4).Draw(rt, "cpus")
		raw := rapid.Bool().Draw(rt, "raw")
		l := newLedger(cpus, raw)
		var srcs []*unitSrc
		seq := uint64(0)
		at := rapid.Uint64Range(0, 1<<20).Draw(rt, "t0") * 0x9e3779b97f4a7c15 & (1<<40 - 1)
		for p := 1; p <= rapid.IntRange(1, 6).Draw(rt, "periods"); p++ {
			cpu := rapid.IntRange(0, cpus-1).Draw(rt, "cpu")
			index := uint32(rapid.SampledFrom([]int{0, 1, 2, 250, 255, 256, 600}).Draw(rt, "index"))
			for r := 0; r < rapid.IntRange(1, 3).Draw(rt, "runs"); r++ {
				n := rapid.Uint64Range(1, 700).Draw(rt, "n")
				dt := 2*n + rapid.Uint64Range(0, 3*n).Draw(rt, "slack")
				src := &unitSrc{cpu: cpu, index: index, seq: seq, n: n, since: at, until: at + dt,
					addr: SpanAddr(true, 9), pid: 9, user: true,
					cfg:      etmConfig{ts: rapid.IntRange(0, 9).Draw(rt, "ts") > 0, ctxt: true},
					ctxFirst: r > 0 && rapid.Bool().Draw(rt, "ctxFirst")}
				l.add(cpu, ledgerRun{period: p, index: index, seq: seq, n: n, since: src.since, until: src.until})
				srcs = append(srcs, src)
				seq += n
				index += uint32(n)
				at += dt + rapid.Uint64Range(1, 1000).Draw(rt, "gap")
			}
		}
		chunk := func() Chunk {
			bufCPU := rapid.IntRange(-1, cpus-1).Draw(rt, "bufCPU")
			var b []byte
			for range rapid.IntRange(0, 8).Draw(rt, "pieces") {
				switch rapid.IntRange(0, 9).Draw(rt, "piece") {
				case 0:
					b = append(b, barrierFrame[:]...)
				case 1:
					b = append(b, make([]byte, FrameSize)...)
				case 2:
					b = append(b, rapid.SliceOfN(rapid.Byte(), FrameSize, FrameSize).Draw(rt, "junk")...)
				default:
					src := srcs[rapid.IntRange(0, len(srcs)-1).Draw(rt, "src")]
					k0 := rapid.Uint64Range(0, src.n-1).Draw(rt, "k0")
					k1 := rapid.Uint64Range(k0+1, src.n).Draw(rt, "k1")
					for w := src.writer(k0); w.k < k1; w.next() {
						if raw {
							b = w.appendRaw(b)
							continue
						}
						var f [FrameSize]byte
						w.putFormatted(f[:], traceID(src.cpu))
						b = append(b, f[:]...)
					}
				}
			}
			for range rapid.IntRange(0, 2).Draw(rt, "flips") {
				if len(b) > 0 {
					b[rapid.IntRange(0, len(b)-1).Draw(rt, "at")] ^= rapid.Byte().Draw(rt, "mask")
				}
			}
			if rapid.IntRange(0, 9).Draw(rt, "ragged") == 0 && len(b) > 0 {
				b = b[:len(b)-rapid.IntRange(1, min(len(b), FrameSize-1)).Draw(rt, "cut")]
			}
			return Chunk{CPU: bufCPU, Data: b}
		}
		got := &Analyzer{Dec: &Decoder{L: l, CPUs: cpus}}
		want := &refAnalyzer{dec: &Decoder{L: l, CPUs: cpus}}
		for s := range rapid.IntRange(1, 3).Draw(rt, "snapshots") {
			var chunks []Chunk
			for range rapid.IntRange(1, 3).Draw(rt, "chunks") {
				chunks = append(chunks, chunk())
			}
			if diff := cmp.Diff(want.analyze(chunks), got.Analyze(chunks)); diff != "" {
				rt.Fatalf("snapshot %d: Analyze differs from unit-by-unit decoding (-units +runs):\n%s", s, diff)
			}
		}
	})
}
