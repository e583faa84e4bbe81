package explore

import "slices"

// The happens-before filter on the races dpor backtracks for (Flanagan and
// Godefroid, "Dynamic partial-order reduction", POPL 2005, the condition
// "i does not happen before p" of their Explore): a fragment f of context
// p that is dependent with an earlier transition t is a race the walk must
// reverse at t's decision only when t does not already happen before p's
// fragment preceding f. When it does (t -> ... -> p's earlier fragment, a
// chain of fragments each dependent with the next, or of one context), f
// cannot run before t without that chain's first link being reversed too,
// and that link is a race of its own, which the walk reverses where it
// starts; in the run that reversal gives, t and f meet again and are
// judged then. Without the filter every pair of dependent fragments of two
// contexts asked for a backtrack, however far apart: on a field written
// again and again (a run queue, a CPU's pending interrupts) the number of
// backtracks grew with the square of the run's length, and most of the
// schedules they asked for were stopped part way by the sleep sets.
//
// Happens-before here is exactly porDependent's order: program order of a
// context (porDependent counts two fragments of one context dependent), a
// conflict on a field (a write with any access, an add with a read), and a
// fragment whose footprint is incomplete with every other, but one that ran
// none of its own code, which it orders only by the engine's writes it
// made (porDependent). An order the filter saw and porDependent did not would skip a real
// race, so the clocks are built from the accesses porDependent compares,
// field by field, and nothing else. A fragment a step point opened and the
// decision there dropped (its context did not run on) never ran: it is no
// link of any chain. The clocks are exact, not only safe (an order they
// missed would only skip fewer races): the source sets below need every
// order there is.

// porHBFilter turns the filter on, porSourceSets the initials (tests
// compare the walk without them).
var porHBFilter, porSourceSets = true, true

// porHB is the vector clocks of one run's fragments.
type porHB struct {
	agents map[porAgent]int
	// prev[i]: the clock of the fragment of frags[i]'s context that ran
	// before it (nil: none): what that context had seen when frags[i] began.
	prev [][]int32
	// clock[i]: frags[i]'s own clock (nil: it is no link, see above).
	clock [][]int32
}

// porFieldClocks is what a field's accesses since its last write have
// seen: the last write's clock, the reads' and the adds' since then.
type porFieldClocks struct{ w, r, a []int32 }

// join sets x to the entrywise maximum of x and y (y may be nil).
func join(x, y []int32) {
	for i, v := range y {
		if v > x[i] {
			x[i] = v
		}
	}
}

// joined is the entrywise maximum of x (nil: zeros) and y, in a new clock.
func joined(x, y []int32, n int) []int32 {
	z := make([]int32, n)
	copy(z, x)
	join(z, y)
	return z
}

// joinOwned joins y into x, a clock of its own (nil: a new one).
func joinOwned(x, y []int32, n int) []int32 {
	if x == nil {
		return joined(nil, y, n)
	}
	join(x, y)
	return x
}

// newPorHB builds the clocks of frags, the fragments of one run in order
// (each frags[i].seq is i), with fields as its table of the fields' clocks. A clock's entry for a context is one more than
// the index of the last fragment of that context that happens before or is
// the fragment; 0 when none does.
func newPorHB(frags []*porEvent, fields map[porField]*porFieldClocks) *porHB {
	h := &porHB{agents: map[porAgent]int{}, prev: make([][]int32, len(frags)), clock: make([][]int32, len(frags))}
	for _, f := range frags {
		if _, ok := h.agents[f.agent]; !ok {
			h.agents[f.agent] = len(h.agents)
		}
	}
	n := len(h.agents)
	last := make([][]int32, n) // per context, the clock of its last fragment
	var all, inc []int32       // every fragment's clock but the empty ones', joined; the last incomplete one's
	all = make([]int32, n)
	clear(fields) // the walk's, kept from run to run: its buckets already grown
	var fcs []*porFieldClocks
	for i, f := range frags {
		a := h.agents[f.agent]
		h.prev[i] = last[a]
		if f.dropped {
			continue // it never ran
		}
		empty := f.complete && f.empty()
		vc := joined(last[a], nil, n)
		acc := f.acc
		switch {
		case !f.complete:
			// Dependent with every fragment but an empty one, and with
			// that only by the engine's writes (porDependent).
			join(vc, all)
			acc = f.engWrites()
		case !empty:
			join(vc, inc)
		}
		fcs = fcs[:0] // each access's field, looked up once for the join and the update
		for _, x := range acc {
			k := porField{x.key, x.field}
			fc := fields[k]
			if fc == nil {
				fc = &porFieldClocks{}
				fields[k] = fc
			}
			fcs = append(fcs, fc)
			join(vc, fc.w)
			switch {
			case x.write:
				join(vc, fc.r)
				join(vc, fc.a)
			case x.add:
				join(vc, fc.r)
			default:
				join(vc, fc.a)
			}
		}
		vc[a] = int32(i + 1)
		last[a], h.clock[i] = vc, vc
		if !empty {
			join(all, vc)
		}
		if !f.complete {
			inc = vc
		}
		for j, x := range acc {
			fc := fcs[j]
			switch {
			case x.write:
				fc.w, fc.r, fc.a = vc, nil, nil
			case x.add:
				fc.a = joinOwned(fc.a, vc, n)
			default:
				fc.r = joinOwned(fc.r, vc, n)
			}
		}
	}
	return h
}

// before reports whether fragment e happens before the fragment of f's
// context that ran before f (so before f by program order).
func (h *porHB) before(e, f *porEvent) bool {
	if h == nil || e.dropped {
		return false // no filter, or e never ran: no order from it
	}
	p := h.prev[f.seq]
	if p == nil {
		return false
	}
	return p[h.agents[e.agent]] > int32(e.seq)
}

// porFirsts is the first fragment of each context among some fragments
// (a transition's): the earliest of each that a later fragment's context
// can have seen.
type porFirsts map[porAgent]*porEvent

func (t porFirsts) add(e *porEvent) {
	if g, ok := t[e.agent]; !ok || e.seq < g.seq {
		t[e.agent] = e
	}
}

// beforeAny reports whether some fragment of t happens before the fragment
// of f's context that ran before f: f's context has already seen the
// transition.
func (h *porHB) beforeAny(t porFirsts, f *porEvent) bool {
	for _, e := range t {
		if h.before(e, f) {
			return true
		}
	}
	return false
}

// to reports whether e happens before f, or is f (f a link).
func (h *porHB) to(e, f *porEvent) bool {
	return e == f || h.clock[f.seq][h.agents[e.agent]] > int32(e.seq)
}

// initials are the contexts that can start the reversal of a race between
// a transition t (its fragments' firsts, run at the decision whose
// fragments begin at pos) and a later fragment f of another context: the
// source set of Abdulla et al. ("Optimal dynamic partial order
// reduction", POPL 2014). Of the fragments after the decision that do not
// happen after t, those that happen before f (and f) must run before t
// for f to; a context can go first only if its first of them has none of
// them before it. ok is false when f is no link (its clock is not kept).
func (h *porHB) initials(frags []*porEvent, pos int, firsts porFirsts, inT map[*porEvent]bool, f *porEvent) (agents []porAgent, ok bool) {
	if h == nil || h.clock[f.seq] == nil {
		return nil, false
	}
	var w []*porEvent
	for _, g := range frags[pos : f.seq+1] {
		if inT[g] || h.clock[g.seq] == nil || !h.to(g, f) {
			continue
		}
		after := false
		for _, t := range firsts {
			if g != f && h.clock[g.seq][h.agents[t.agent]] > int32(t.seq) {
				after = true // f itself is after t by the race
				break
			}
		}
		if after {
			continue
		}
		first := true
		for _, x := range w {
			if h.to(x, g) {
				first = false
				break
			}
		}
		w = append(w, g)
		if first && !slices.Contains(agents, g.agent) {
			agents = append(agents, g.agent)
		}
	}
	return agents, true
}
