package explore

import (
	"slices"

	"perfsim/cpu"
)

// Fragments declared with cpu.DeclareCompleteUntil: a task context's
// fragment from step point start whose footprint is complete only when it
// ends at one of the declared ends (a spin round that comes back to its
// own step point; a stretch of the output path that reaches the next step
// point of that path, not an early return into a caller nobody audited).
// Both walks keep each thread's open one (untilFragments) and settle it at
// the thread's next step point: the component walk refuses a run where it
// ends elsewhere; dpor keeps its pieces pending, below.
//
// dpor cannot know at the start which end the fragment will reach, so the
// pieces of such a fragment are pending: their accesses are kept, and
// while the fragment is open they count as touching everything (a sleeper
// that meets one wakes: more runs, never fewer). When the thread reaches
// its next step point, the pieces become complete if that step point is
// one of the ends and none of them did anything that makes a footprint
// incomplete (unaudited code, an unkeyed object, a data choice), else
// incomplete. The races of a run are looked for after it ends (next), when
// every piece has its answer; a fragment still open when the run stops
// (an exit, a blocked run) stays incomplete.

// untilFragment is a thread's open fragment declared with
// cpu.DeclareCompleteUntil: its start, its declared ends and, for dpor,
// its pieces so far (one per boundary it went on across).
type untilFragment struct {
	start  string
	ends   []string
	pieces []*porEvent
}

// untilFragments are the threads' open fragments declared with
// cpu.DeclareCompleteUntil.
type untilFragments map[*cpu.Thread]*untilFragment

// open starts th's fragment at step point start, if start is declared
// with cpu.DeclareCompleteUntil (nil if not).
func (m untilFragments) open(th *cpu.Thread, start string) *untilFragment {
	ends, ok := cpu.CompleteUntil(start)
	if !ok {
		return nil
	}
	u := &untilFragment{start: start, ends: ends}
	m[th] = u
	return u
}

// end closes th's open fragment, if it has one, as th reaches step point
// label, and reports whether label is one of its declared ends.
func (m untilFragments) end(th *cpu.Thread, label string) (u *untilFragment, atEnd bool) {
	if u = m[th]; u == nil {
		return nil, false
	}
	delete(m, th)
	return u, slices.Contains(u.ends, label)
}

// openUntil makes ev, a piece of th's task fragment, pending when that
// fragment is declared with cpu.DeclareCompleteUntil: a step point opens
// the fragment, any other boundary goes on in the open one.
func (p *porRun) openUntil(th *cpu.Thread, ev *porEvent, step bool) {
	u := p.until[th]
	if step {
		u = p.until.open(th, ev.start)
	}
	if u != nil {
		ev.pending = true
		u.pieces = append(u.pieces, ev)
	}
}

// endUntil settles th's pending fragment, if it has one, as th reaches
// step point label: complete when label is one of its ends.
func (p *porRun) endUntil(th *cpu.Thread, label string) {
	if u, atEnd := p.until.end(th, label); u != nil {
		why := ""
		if !atEnd {
			why = "ended at " + label + ", not at a declared end"
		}
		p.settle(u, why)
	}
}

// flushUntil settles, at a run's end, the fragments still open: incomplete.
func (p *porRun) flushUntil() {
	for th, u := range p.until {
		p.settle(u, "did not reach its next step point")
		delete(p.until, th)
	}
}

// settle ends the pending pieces of u: complete if why is "" and no piece
// did what voids the fragment's declaration (its own why, then), else
// incomplete for that reason; each is counted, but the current one, which
// is counted as it closes.
func (p *porRun) settle(u *untilFragment, why string) {
	for _, ev := range u.pieces {
		if !ev.pending && why == "" {
			why = ev.why // a piece did what makes the whole fragment's vouching void
		}
	}
	for _, ev := range u.pieces {
		if !ev.pending {
			continue // made incomplete as it ran, and counted so
		}
		ev.pending = false
		if why == "" {
			ev.complete = true
		} else {
			ev.why = why
		}
		if ev != p.cur {
			p.s.countFragment(ev)
		}
	}
}
