package sim

// laneHeap holds every lane's next time in a binary min-heap by (next, lane
// ID), by value in one array with each lane's position beside it: picking
// the next lane, asking whether another lane is due by the end of a time
// advance, and listing the lanes tied at an instant cost a few comparisons
// and the ties themselves, not a scan of every CPU at every step.
type laneHeap struct {
	ent []laneEnt
	pos []int32 // pos[lane ID]: its index in ent
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
}

// set moves lane id to next t.
func (h *laneHeap) set(id int, t Time) {
	i := int(h.pos[id])
	old := h.ent[i].next
	h.ent[i].next = t
	switch {
	case t < old:
		h.up(i)
	case t > old:
		h.down(i)
	}
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
