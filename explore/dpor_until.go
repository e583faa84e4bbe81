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

// openUntil makes ev, a piece of th's fragment, pending when the
// fragment's start is declared with cpu.DeclareCompleteUntil.
func (p *porRun) openUntil(th *cpu.Thread, ev *porEvent) {
	u := p.until[th]
	if u == nil {
		ends, ok := cpu.CompleteUntil(ev.start)
		if !ok {
			return
		}
		u = &porUntil{ends: ends}
		if p.until == nil {
			p.until = map[*cpu.Thread]*porUntil{}
		}
		p.until[th] = u
	}
	ev.pending = true
	u.pieces = append(u.pieces, ev)
}

// endUntil settles th's pending fragment, if it has one, as th reaches
// step point label: complete when label is one of its ends.
func (p *porRun) endUntil(th *cpu.Thread, label string) {
	u := p.until[th]
	if u == nil {
		return
	}
	delete(p.until, th)
	why := ""
	if !slices.Contains(u.ends, label) {
		why = "ended at " + label + ", not at a declared end"
	}
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
			p.s.countFragment(ev) // closed already (the current one is counted as it closes)
		}
	}
}

// flushUntil settles, at a run's end, the fragments still open: incomplete.
func (p *porRun) flushUntil() {
	for th, u := range p.until {
		for _, ev := range u.pieces {
			if ev.pending {
				ev.pending = false
				ev.why = "did not reach its next step point"
				if ev != p.cur {
					p.s.countFragment(ev)
				}
			}
		}
		delete(p.until, th)
	}
}
