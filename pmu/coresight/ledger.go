package coresight

import (
	"math/bits"
	"sort"
)

// Ledger is the model's record of what every ETM emitted: per CPU, the runs
// of units in the order the ETM produced them, each with its period, its
// first unit's Index and Seq and the time it covers. A decoder that read a
// unit's CPU (trace ID) and timestamp out of the bytes asks the Ledger which
// unit that is; the bytes themselves are plain ETMv4 trace.
type Ledger struct {
	raw  bool // the sink writes raw trace (TRBE), not formatter frames
	cpus [][]ledgerRun
	last []int // per CPU: the run the previous lookup found
	hint []ledgerHint
	// per CPU: every run has distinct timestamps (until-since >= n) and
	// starts at or after the previous one's until, so each timestamp is
	// one unit's and Resolve's answer does not depend on its hint
	distinct []bool
}

// ledgerHint is, per CPU, the unit the previous Resolve found: its run and
// the timestamps from it on.
type ledgerHint struct {
	run int // -1: none
	tsStep
}

type ledgerRun struct {
	period       int
	index        uint32
	seq          uint64
	n            uint64
	since, until uint64
}

func newLedger(cpus int, raw bool) *Ledger {
	l := &Ledger{raw: raw, cpus: make([][]ledgerRun, cpus), last: make([]int, cpus), hint: make([]ledgerHint, cpus),
		distinct: make([]bool, cpus)}
	for i := range l.hint {
		l.hint[i].run = -1
		l.distinct[i] = true
	}
	return l
}

func (l *Ledger) add(cpu int, r ledgerRun) {
	runs := l.cpus[cpu]
	if r.until < r.since || r.until-r.since < r.n || len(runs) > 0 && r.since < runs[len(runs)-1].until {
		l.distinct[cpu] = false
	}
	l.cpus[cpu] = append(runs, r)
}

func (r *ledgerRun) frame(cpu int, k uint64) Frame {
	return Frame{CPU: cpu, Period: r.period, Index: r.index + uint32(k), Seq: r.seq + k}
}

// Resolve returns the unit cpu's ETM stamped ts (cpu -1: any CPU's).
func (l *Ledger) Resolve(cpu int, ts uint64) (Frame, bool) {
	if cpu < 0 {
		for c := range l.cpus {
			if f, ok := l.Resolve(c, ts); ok {
				return f, true
			}
		}
		return Frame{}, false
	}
	if cpu >= len(l.cpus) {
		return Frame{}, false
	}
	runs := l.cpus[cpu]
	// the unit after the previous one found (a decoder reads a stream in order)
	if h := &l.hint[cpu]; h.run >= 0 && h.k+1 < h.n {
		if h.nextTS() == ts {
			h.next()
			return runs[h.run].frame(cpu, h.k), true
		}
	}
	i := l.last[cpu]
	if i >= len(runs) || !(runs[i].since < ts && ts <= runs[i].until) {
		i = sort.Search(len(runs), func(j int) bool { return runs[j].until >= ts })
		if i == len(runs) || runs[i].since >= ts {
			return Frame{}, false
		}
		l.last[cpu] = i
	}
	r := &runs[i]
	dt := r.until - r.since
	// the smallest j with since + floor(j*dt/n) >= ts
	j := mulDivCeil(ts-r.since, r.n, dt)
	if j == 0 || j > r.n {
		return Frame{}, false
	}
	h := newTSStep(r.since, r.until, r.n, j-1)
	if h.ts != ts {
		return Frame{}, false
	}
	l.hint[cpu] = ledgerHint{run: i, tsStep: h}
	return r.frame(cpu, j-1), true
}

// Step returns the unit f's ETM emitted delta (+1 or -1) units after f.
func (l *Ledger) Step(f Frame, delta int) (Frame, bool) {
	if f.CPU < 0 || f.CPU >= len(l.cpus) {
		return Frame{}, false
	}
	runs := l.cpus[f.CPU]
	i := sort.Search(len(runs), func(j int) bool { return runs[j].seq+runs[j].n > f.Seq })
	if i == len(runs) || runs[i].seq > f.Seq {
		return Frame{}, false
	}
	k := int64(f.Seq-runs[i].seq) + int64(delta)
	switch {
	case k >= 0 && uint64(k) < runs[i].n:
		return runs[i].frame(f.CPU, uint64(k)), true
	case k < 0 && i > 0:
		return runs[i-1].frame(f.CPU, runs[i-1].n-1), true
	case k >= 0 && i+1 < len(runs):
		return runs[i+1].frame(f.CPU, 0), true
	}
	return Frame{}, false
}

// mulDiv is floor(a*b/c) (2^64-1 when that does not fit).
func mulDiv(a, b, c uint64) uint64 {
	q, _ := mulDivRem(a, b, c)
	return q
}

// mulDivCeil is ceil(a*b/c) (2^64-1 when that does not fit).
func mulDivCeil(a, b, c uint64) uint64 {
	q, r := mulDivRem(a, b, c)
	if r != 0 {
		q++
	}
	return q
}

// mulDivRem is a*b/c and its remainder, or 2^64-1 and 0 when the quotient
// does not fit.
func mulDivRem(a, b, c uint64) (uint64, uint64) {
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return ^uint64(0), 0
	}
	return bits.Div64(hi, lo, c)
}
