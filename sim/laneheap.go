package sim

import "math/bits"

// laneHeap holds every lane's next time in a binary min-heap by (next, lane
// ID), by value in one array with each lane's position beside it: picking
// the next lane, asking whether another lane is due by the end of a time
// advance, and listing the lanes tied at an instant cost a few comparisons
// and the ties themselves, not a scan of every CPU at every step.
//
// Beside it, the lanes due at the earliest instant (the group) are a bitset
// by lane ID kept as lanes move: how many are tied, and the k-th of them in
// lane order, cost a popcount per 64 lanes, not a walk and a sort of the
// ties at every pick and every contended step point (64 CPUs in lock step
// are all tied).
type laneHeap struct {
	ent []laneEnt
	pos []int32 // pos[lane ID]: its index in ent

	grp   []uint64 // the group: bit i set when lane i's next is grpT
	grpT  Time     // the earliest next (ent[0].next) when grpOK
	grpN  int      // how many bits grp has set
	grpOK bool     // grp, grpT and grpN are up to date (else group() rebuilds them)
}

type laneEnt struct {
	next Time
	id   int32
}

func (a laneEnt) less(b laneEnt) bool {
	return a.next < b.next || (a.next == b.next && a.id < b.id)
}

func (h *laneHeap) up(i int) {
	e := h.ent[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(h.ent[p]) {
			break
		}
		h.ent[i] = h.ent[p]
		h.pos[h.ent[i].id] = int32(i)
		i = p
	}
	h.ent[i] = e
	h.pos[e.id] = int32(i)
}

func (h *laneHeap) down(i int) {
	e := h.ent[i]
	n := len(h.ent)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h.ent[r].less(h.ent[c]) {
			c = r
		}
		if !h.ent[c].less(e) {
			break
		}
		h.ent[i] = h.ent[c]
		h.pos[h.ent[i].id] = int32(i)
		i = c
	}
	h.ent[i] = e
	h.pos[e.id] = int32(i)
}

// push adds lane id (the next lane: ids are added in order) at next t.
func (h *laneHeap) push(id int, t Time) {
	h.pos = append(h.pos, int32(len(h.ent)))
	h.ent = append(h.ent, laneEnt{t, int32(id)})
	h.up(len(h.ent) - 1)
	if w := id/64 + 1; w > len(h.grp) {
		h.grp = append(h.grp, 0)
	}
	h.grpOK = false
}

// set moves lane id to next t.
func (h *laneHeap) set(id int, t Time) {
	i := int(h.pos[id])
	old := h.ent[i].next
	if t == old {
		return
	}
	h.ent[i].next = t
	if t < old {
		h.up(i)
	} else {
		h.down(i)
	}
	if !h.grpOK {
		return
	}
	w, bit := id>>6, uint64(1)<<(id&63)
	switch {
	case t < h.grpT: // the earliest now, alone
		clear(h.grp)
		h.grp[w], h.grpT, h.grpN = bit, t, 1
		return
	case t == h.grpT:
		h.grp[w] |= bit
		h.grpN++
	}
	if old == h.grpT {
		h.grp[w] &^= bit
		if h.grpN--; h.grpN == 0 {
			h.grpOK = false // the earliest instant is later: found again when asked
		}
	}
}

// group brings the group up to date: the lanes whose next is the earliest
// (rebuilt from the heap's subtree at that instant when a lane left it last).
func (h *laneHeap) group() {
	if h.grpOK {
		return
	}
	clear(h.grp)
	h.grpN = 0
	if len(h.ent) > 0 {
		h.grpT = h.ent[0].next
		h.mark(0, h.grpT)
	}
	h.grpOK = true
}

func (h *laneHeap) mark(i int, t Time) {
	for i < len(h.ent) && h.ent[i].next == t {
		id := h.ent[i].id
		h.grp[id>>6] |= 1 << (id & 63)
		h.grpN++
		h.mark(2*i+1, t)
		i = 2*i + 2
	}
}

// dueAt is how many lanes other than skip (-1: none) are due at t, t being
// no earlier than every lane's next.
func (h *laneHeap) dueAt(t Time, skip int) int {
	h.group()
	if h.grpT != t {
		return 0
	}
	n := h.grpN
	if skip >= 0 && h.grp[skip>>6]&(1<<(skip&63)) != 0 {
		n--
	}
	return n
}

// appendDue appends the agents (CPUAgent) of the lanes dueAt counted, in
// lane order.
func (h *laneHeap) appendDue(out []Agent, skip int) []Agent {
	for w, x := range h.grp {
		if skip >= 0 && skip>>6 == w {
			x &^= 1 << (skip & 63)
		}
		for ; x != 0; x &= x - 1 {
			out = append(out, CPUAgent(w<<6|bits.TrailingZeros64(x)))
		}
	}
	return out
}

// nthDue is the k-th (from 0) in lane order of the lanes dueAt counted.
func (h *laneHeap) nthDue(k, skip int) int {
	for w, x := range h.grp {
		if skip >= 0 && skip>>6 == w {
			x &^= 1 << (skip & 63)
		}
		if c := bits.OnesCount64(x); k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			x &= x - 1
		}
		return w<<6 | bits.TrailingZeros64(x)
	}
	panic("sim: nthDue past the lanes due")
}

// minOther is the earliest next of the lanes other than id (Never when none).
func (h *laneHeap) minOther(id int) Time {
	if len(h.ent) == 0 {
		return Never
	}
	if int(h.ent[0].id) != id {
		return h.ent[0].next
	}
	// id is the least: the next least is one of its children.
	m := Never
	if len(h.ent) > 1 {
		m = h.ent[1].next
	}
	if len(h.ent) > 2 && h.ent[2].next < m {
		m = h.ent[2].next
	}
	return m
}

// due appends to out the lanes other than skip whose next is t, in lane
// order, and returns it. Every lane due by t sits in the subtree at the root
// where next <= t, so only that subtree is walked.
func (h *laneHeap) due(out []*Lane, lanes []*Lane, t Time, skip int) []*Lane {
	start := len(out)
	out = h.walk(out, lanes, 0, t, skip)
	// Lane order (insertion sort: ties are few, and the walk finds them
	// nearly in order).
	s := out[start:]
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].ID < s[j-1].ID; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return out
}

func (h *laneHeap) walk(out []*Lane, lanes []*Lane, i int, t Time, skip int) []*Lane {
	for i < len(h.ent) && h.ent[i].next <= t {
		if e := h.ent[i]; e.next == t && int(e.id) != skip {
			out = append(out, lanes[e.id])
		}
		out = h.walk(out, lanes, 2*i+1, t, skip)
		i = 2*i + 2
	}
	return out
}

// tied reports whether a lane other than id in the subtree at i is due at t.
func (h *laneHeap) tied(i, id int, t Time) bool {
	for i < len(h.ent) && h.ent[i].next <= t {
		if e := h.ent[i]; e.next == t && int(e.id) != id {
			return true
		}
		if h.tied(2*i+1, id, t) {
			return true
		}
		i = 2*i + 2
	}
	return false
}
