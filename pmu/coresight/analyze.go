package coresight

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"perfsim/rb"
)

// Chunk is one piece of AUX trace the tool wrote (a PERF_RECORD_AUXTRACE):
// the per-CPU buffer it came from and its bytes.
type Chunk struct {
	CPU  int // the AUX buffer's CPU (mm->cpu), -1 for a per-thread buffer
	Data []byte
	// Pieces, when not nil, are the bytes instead of Data: the AUX area's
	// descriptions (rb.AuxPiece), decoded without making most bytes
	// (decode_pieces.go).
	Pieces []rb.AuxPiece
}

// Len is the chunk's length in bytes.
func (c *Chunk) Len() int {
	if c.Pieces == nil {
		return len(c.Data)
	}
	n := 0
	for _, p := range c.Pieces {
		n += int(p.N)
	}
	return n
}

// Report is what a snapshot holds, decoded.
type Report struct {
	Bytes      int         // payload bytes
	Frames     int         // units of ETMv4 trace
	Barriers   int         // ETR barrier packets
	Zero       int         // all-zero slots (AUX pages never written)
	Garbage    int         // undecodable slots
	Unresolved int         // trace units the ledger could not place (no timestamp, no neighbour)
	Periods    uint64      // bit p-1 set when period p has a unit in the snapshot
	PerPer     map[int]int // units per period
	PerCPU     map[int]int // payload bytes per AUX buffer CPU
	Dups       int         // units whose Seq appeared before (in this snapshot or an earlier one given to the same Analyzer)
	OutOrder   int         // units not after the previous unit of the same ETM in their chunk
	MinSeq     uint64      // smallest Seq
	MaxSeq     uint64      // largest Seq
	Distinct   int         // distinct Seq values
	MinTS      uint64      // oldest timestamp (ns) in the snapshot
	MaxTS      uint64      // newest timestamp
}

// Contiguous reports that the snapshot's units are one unbroken stretch of
// the session's trace: every Seq between the first and the last is there.
func (r *Report) Contiguous() bool {
	return r.Distinct > 0 && r.MaxSeq-r.MinSeq+1 == uint64(r.Distinct)
}

// PeriodList returns the periods present, ascending.
func (r *Report) PeriodList() []int {
	var out []int
	for p := range r.PerPer {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// String is a one-line summary: "P1 P2 P4 P5 13.0MiB contiguous=false".
func (r *Report) String() string {
	var b strings.Builder
	for i, p := range r.PeriodList() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "P%d", p)
	}
	fmt.Fprintf(&b, " %s contiguous=%v dups=%d out-of-order=%d", MiB(int64(r.Bytes)), r.Contiguous(), r.Dups, r.OutOrder)
	return b.String()
}

// MiB formats a byte count in MiB with one decimal.
func MiB(n int64) string { return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20)) }

// Analyzer decodes successive snapshots of one session, remembering every
// unit it has seen so that a unit written again by a later snapshot counts
// as a duplicate.
type Analyzer struct {
	Dec    *Decoder
	seen   seqSet  // Seq values of earlier snapshots
	prev   []int64 // per ETM: the Seq of its previous unit in the chunk, -1 none
	perPer []int   // units per period (index: period): Report.PerPer's counts
	cur    seqSet  // Analyze's set of this snapshot's Seqs, kept for its memory
}

// NewAnalyzer returns an analyzer of the device's snapshots.
func (d *Device) NewAnalyzer() *Analyzer { return &Analyzer{Dec: d.NewDecoder()} }

// analyzeScratch is the memory an Analyze call works in (the runs its
// decoder returns, the spans of a described chunk, the set of the
// snapshot's Seqs), handed from one session's Analyzer to the next one's:
// an exploration's schedules each have an Analyzer of their own.
type analyzeScratch struct {
	runs []unitRun
	sp   []span
	cur  seqSet
}

var scratchPool = sync.Pool{New: func() any { return &analyzeScratch{} }}

// takeScratch gives a the pool's scratch when it has none of its own.
func takeScratch(a *Analyzer) *analyzeScratch {
	sc := scratchPool.Get().(*analyzeScratch)
	if a.Dec.runs == nil {
		a.Dec.runs = sc.runs
	}
	if a.Dec.pr.sp == nil {
		a.Dec.pr.sp = sc.sp
	}
	if a.cur == nil {
		a.cur = sc.cur
	}
	return sc
}

// put hands a's scratch back to the pool (a keeps using it until then: the
// runs are only read inside Analyze).
func (sc *analyzeScratch) put(a *Analyzer) {
	clear(a.Dec.pr.sp) // let go of the sources
	sc.runs, sc.sp, sc.cur = a.Dec.runs[:0], a.Dec.pr.sp[:0], a.cur[:0]
	a.Dec.runs, a.Dec.pr.sp, a.cur = nil, nil, nil
	scratchPool.Put(sc)
}

// Analyze decodes the chunks of one snapshot.
func (a *Analyzer) Analyze(chunks []Chunk) *Report {
	r := &Report{PerPer: map[int]int{}, PerCPU: map[int]int{}}
	sc := takeScratch(a)
	defer sc.put(a)
	cur := a.cur[:0]
	first, firstTS := true, true
	for _, c := range chunks {
		clen := c.Len()
		r.Bytes += clen
		r.PerCPU[c.CPU] += clen
		if len(a.prev) != a.Dec.CPUs {
			a.prev = make([]int64, a.Dec.CPUs)
		}
		for i := range a.prev {
			a.prev[i] = -1
		}
		var runs []unitRun
		if c.Pieces != nil {
			runs = a.Dec.decodeRunsPieces(c.CPU, c.Pieces, uint64(clen))
		} else {
			runs = a.Dec.decodeRuns(c.CPU, c.Data)
		}
		for ri := range runs {
			u := &a.Dec.runs[ri]
			switch u.Kind {
			case KindBarrier:
				r.Barriers += int(u.n)
				continue
			case KindZero:
				r.Zero += int(u.n)
				continue
			case KindGarbage:
				r.Garbage++
				continue
			}
			n := u.n // units in the run: timestamps, Seq and Index ascending
			r.Frames += int(n)
			if u.HasTS {
				if firstTS || u.TS < r.MinTS {
					r.MinTS = u.TS
				}
				if firstTS || u.lastTS > r.MaxTS {
					r.MaxTS = u.lastTS
				}
				firstTS = false
			}
			if !u.Known {
				r.Unresolved += int(n)
				continue
			}
			f := u.Frame
			if f.Period >= 0 {
				for f.Period >= len(a.perPer) {
					a.perPer = append(a.perPer, 0)
				}
				a.perPer[f.Period] += int(n)
			} else {
				r.PerPer[f.Period] += int(n)
			}
			if f.Period >= 1 && f.Period <= 64 {
				r.Periods |= 1 << (f.Period - 1)
			}
			for f.CPU >= len(a.prev) {
				a.prev = append(a.prev, -1)
			}
			if p := a.prev[f.CPU]; p >= 0 && f.Seq <= uint64(p) {
				r.OutOrder++
			}
			a.prev[f.CPU] = int64(f.Seq + n - 1)
			// per Seq: seen in this snapshot, a dup; else new here (a dup
			// if an earlier snapshot had it), now seen
			inCur, inSeen := cur.add(f.Seq, f.Seq+n, a.seen)
			r.Dups += inCur + inSeen
			r.Distinct += int(n) - inCur
			if first || f.Seq < r.MinSeq {
				r.MinSeq = f.Seq
			}
			if first || f.Seq+n-1 > r.MaxSeq {
				r.MaxSeq = f.Seq + n - 1
			}
			first = false
		}
		if rem := clen % FrameSize; rem != 0 {
			r.Garbage++
		}
	}
	for p, n := range a.perPer {
		if n != 0 {
			r.PerPer[p] += n
			a.perPer[p] = 0
		}
	}
	a.seen.union(cur)
	a.cur = cur
	return r
}
