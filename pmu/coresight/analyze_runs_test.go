package coresight

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/rb"
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
			// Resolve, then the reference's two whole-chunk walks
			// (refInferFull) instead of Decode's inference
			for i := range units {
				u := &units[i]
				u.Frame, u.Known = Frame{}, false
				if u.Kind == KindData && u.HasTS {
					u.Frame, u.Known = a.dec.L.Resolve(u.CPU, u.TS)
				}
			}
			refInferFull(a.dec, units)
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
// zero and torn slots, flipped bytes and ragged ends. The same chunks
// given as descriptions (Chunk.Pieces: frameSource pieces, flipped frames
// as bytes) report the same again, also over Ledgers whose runs repeat
// timestamps (more units than nanoseconds) or overlap in time, and
// timestamps past the 49 bits a timestamp packet carries.
func TestAnalyzeRunsEqualsUnits(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		cpus := rapid.IntRange(1, 4).Draw(rt, "cpus")
		raw := rapid.Bool().Draw(rt, "raw")
		l := newLedger(cpus, raw)
		var srcs []*unitSrc
		seq := uint64(0)
		at := rapid.Uint64Range(0, 1<<20).Draw(rt, "t0") * 0x9e3779b97f4a7c15 & (1<<40 - 1)
		if rapid.IntRange(0, 9).Draw(rt, "high") == 0 {
			at += tsMask - 1<<20 // the trace crosses the packet's 49 bits
		}
		// dense: some runs have more units than nanoseconds (timestamps
		// repeat) or start before the previous run's end; the unit-by-unit
		// reference is not asked about those Ledgers
		dense := rapid.IntRange(0, 4).Draw(rt, "dense") == 0
		for p := 1; p <= rapid.IntRange(1, 6).Draw(rt, "periods"); p++ {
			cpu := rapid.IntRange(0, cpus-1).Draw(rt, "cpu")
			index := uint32(rapid.SampledFrom([]int{0, 1, 2, 250, 255, 256, 600}).Draw(rt, "index"))
			for r := 0; r < rapid.IntRange(1, 3).Draw(rt, "runs"); r++ {
				n := rapid.Uint64Range(1, 700).Draw(rt, "n")
				dt := 2*n + rapid.Uint64Range(0, 3*n).Draw(rt, "slack")
				if dense && rapid.Bool().Draw(rt, "short") {
					dt = rapid.Uint64Range(1, n).Draw(rt, "dt")
				}
				src := &unitSrc{cpu: cpu, index: index, seq: seq, n: n, since: at, until: at + dt,
					addr: SpanAddr(true, 9), pid: 9, user: true,
					cfg:      etmConfig{ts: rapid.IntRange(0, 9).Draw(rt, "ts") > 0, ctxt: true},
					ctxFirst: r > 0 && rapid.Bool().Draw(rt, "ctxFirst")}
				l.add(cpu, ledgerRun{period: p, index: index, seq: seq, n: n, since: src.since, until: src.until})
				srcs = append(srcs, src)
				seq += n
				index += uint32(n)
				at += dt + rapid.Uint64Range(1, 1000).Draw(rt, "gap")
				if dense && rapid.Bool().Draw(rt, "back") {
					at -= min(at, rapid.Uint64Range(0, 2*dt).Draw(rt, "overlap"))
				}
			}
		}
		// a chunk as bytes and as the pieces that describe them
		chunk := func() (Chunk, Chunk) {
			bufCPU := rapid.IntRange(-1, cpus-1).Draw(rt, "bufCPU")
			var ps []rb.AuxPiece
			for range rapid.IntRange(0, 8).Draw(rt, "pieces") {
				switch rapid.IntRange(0, 9).Draw(rt, "piece") {
				case 0:
					ps = append(ps, rb.AuxPiece{Src: frameSource{kind: pieceBarrier}, N: FrameSize * rapid.Uint64Range(1, 3).Draw(rt, "barriers")})
				case 1:
					ps = append(ps, rb.AuxPiece{N: FrameSize * rapid.Uint64Range(1, 3).Draw(rt, "zeroes")})
				case 2:
					ps = append(ps, rb.BytesPiece(rapid.SliceOfN(rapid.Byte(), FrameSize, FrameSize).Draw(rt, "junk")))
				default:
					src := srcs[rapid.IntRange(0, len(srcs)-1).Draw(rt, "src")]
					k0 := rapid.Uint64Range(0, src.n-1).Draw(rt, "k0")
					k1 := rapid.Uint64Range(k0+1, src.n).Draw(rt, "k1")
					ps = append(ps, rb.AuxPiece{Src: frameSource{kind: pieceUnits, raw: raw, src: src, k0: k0}, N: (k1 - k0) * FrameSize})
				}
			}
			for range rapid.IntRange(0, 2).Draw(rt, "flips") {
				// a frame of a piece made into bytes with one flipped
				if len(ps) == 0 {
					break
				}
				i := rapid.IntRange(0, len(ps)-1).Draw(rt, "flipPiece")
				f := rapid.Uint64Range(0, ps[i].N/FrameSize-1).Draw(rt, "flipFrame") * FrameSize
				b := rb.PiecesBytes([]rb.AuxPiece{{Src: ps[i].Src, Off: ps[i].Off + f, N: FrameSize}})
				b[rapid.IntRange(0, FrameSize-1).Draw(rt, "at")] ^= rapid.Byte().Draw(rt, "mask")
				split := []rb.AuxPiece{{Src: ps[i].Src, Off: ps[i].Off, N: f}, rb.BytesPiece(b),
					{Src: ps[i].Src, Off: ps[i].Off + f + FrameSize, N: ps[i].N - f - FrameSize}}
				split = slices.DeleteFunc(split, func(p rb.AuxPiece) bool { return p.N == 0 })
				ps = slices.Replace(ps, i, i+1, split...)
			}
			if rapid.IntRange(0, 9).Draw(rt, "ragged") == 0 && len(ps) > 0 {
				last := &ps[len(ps)-1]
				last.N -= uint64(rapid.IntRange(1, int(min(last.N, FrameSize-1))).Draw(rt, "cut"))
			}
			return Chunk{CPU: bufCPU, Data: rb.PiecesBytes(ps)}, Chunk{CPU: bufCPU, Pieces: ps}
		}
		// each analyzer has a Ledger of its own: its hints are the decoder's
		got := &Analyzer{Dec: &Decoder{L: l.clone(), CPUs: cpus}}
		want := &refAnalyzer{dec: &Decoder{L: l.clone(), CPUs: cpus}}
		described := &Analyzer{Dec: &Decoder{L: l.clone(), CPUs: cpus}}
		for s := range rapid.IntRange(1, 3).Draw(rt, "snapshots") {
			var chunks, descs []Chunk
			for range rapid.IntRange(1, 3).Draw(rt, "chunks") {
				c, d := chunk()
				chunks, descs = append(chunks, c), append(descs, d)
			}
			byRuns := got.Analyze(chunks)
			if !dense {
				if diff := cmp.Diff(want.analyze(chunks), byRuns); diff != "" {
					rt.Fatalf("snapshot %d: Analyze differs from unit-by-unit decoding (-units +runs):\n%s", s, diff)
				}
			}
			if diff := cmp.Diff(byRuns, described.Analyze(descs)); diff != "" {
				rt.Fatalf("snapshot %d: Analyze of the descriptions differs from the bytes' (-bytes +descriptions):\n%s", s, diff)
			}
		}
	})
}

// clone is a Ledger with l's runs and hints of its own.
func (l *Ledger) clone() *Ledger {
	c := *l
	c.last, c.hint = slices.Clone(l.last), slices.Clone(l.hint)
	return &c
}

// bitset is a growable set of Seq values: the reference analyzer's.
type bitset []uint64

func (b bitset) has(i uint64) bool { return i/64 < uint64(len(b)) && b[i/64]&(1<<(i%64)) != 0 }

func (b *bitset) add(i uint64) {
	for i/64 >= uint64(len(*b)) {
		*b = append(*b, make([]uint64, len(*b)+1)...)
	}
	(*b)[i/64] |= 1 << (i % 64)
}
