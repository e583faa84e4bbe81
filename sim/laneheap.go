package sim

import "math/bits"

// laneHeap holds every lane's next time as instants: each distinct next is
// a bucket holding the bitset (by lane ID) of the lanes due then, and the
// buckets sit in a binary min-heap by time. Picking the next lane, asking
// whether another lane is due by the end of a time advance, counting the
// lanes tied at the earliest instant and naming the k-th of them in lane
// order cost a few comparisons and a popcount per 64 lanes, never a scan of
// every CPU. Lanes in lock step (64 CPUs due at the same instant, each
// moving on by the same time) share a couple of buckets: a lane that moves
// clears a bit and sets one in the bucket the lane before it joined, where a
// heap of lanes sifted each one past its 63 ties.
type laneHeap struct {
	bk    []slot     // min-heap by t; bk[0] is the group: the lanes due first
	of    []*instant // of[lane ID]: the bucket it is in
	free  []*instant
	words int      // bitset words per bucket: (lanes+63)/64
	last  *instant // the bucket a lane last joined (a lane in lock step joins it next)
	// tab finds an instant's bucket: open addressing by t with linear
	// probing, at least 4 slots per lane (there are never more buckets
	// than lanes), so that lanes apart (a bucket each) find theirs in a
	// probe or two where a scan of the heap would read every bucket.
	// With few buckets (tabOver or fewer) a scan of bk is cheaper, and tab
	// is not kept (tabOn false): one CPU's lane retimes its bucket alone.
	tab   []*instant
	tabOn bool
	shift uint // 64 - log2(len(tab))
}

// tabOver is how many buckets bk holds before tab is kept; under tabOver/2
// it is dropped again.
const tabOver = 8

// slot is a bucket in the heap, its time beside it: a sift compares the
// times in bk without a load through each bucket's pointer (a cache miss
// each at 64 lanes, where the buckets sit apart on the heap).
type slot struct {
	t Time
	b *instant
}

// instant is one bucket: the lanes whose next is t.
type instant struct {
	t    Time
	n    int       // how many bits are set
	i    int       // its index in bk; -1 when free
	bits []uint64  // bit i set when lane i is due at t
	w0   [1]uint64 // bits' array up to 64 lanes: no second object to load
}

func (h *laneHeap) swap(i, j int) {
	h.bk[i], h.bk[j] = h.bk[j], h.bk[i]
	h.bk[i].b.i, h.bk[j].b.i = i, j
}

// up sifts bk[i] towards the root.
func (h *laneHeap) up(i int) {
	if i == 0 {
		return // one CPU's lane, alone: nothing to move
	}
	x := h.bk[i]
	for i > 0 {
		p := (i - 1) / 2
		if h.bk[p].t <= x.t {
			break
		}
		h.bk[i] = h.bk[p]
		h.bk[i].b.i = i
		i = p
	}
	h.bk[i] = x
	x.b.i = i
}

// down sifts bk[i] towards the leaves.
func (h *laneHeap) down(i int) {
	bk := h.bk
	n := len(bk)
	if 2*i+1 >= n {
		return
	}
	x := bk[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		m, mt := c, bk[c].t
		if r := c + 1; r < n {
			// Which child is earlier is a coin toss for lanes apart:
			// select it without a branch (conditional moves).
			rt := bk[r].t
			d := 0
			if rt < mt {
				d = 1
			}
			m += d
			mt = min(mt, rt)
		}
		if mt >= x.t {
			break
		}
		bk[i] = bk[m]
		bk[i].b.i = i
		i = m
	}
	bk[i] = x
	x.b.i = i
}

// slot is where t's bucket goes in tab (Fibonacci hashing).
func (h *laneHeap) home(t Time) int { return int(uint64(t) * 0x9e3779b97f4a7c15 >> h.shift) }

// find is the bucket of t, nil when no lane is due at t.
func (h *laneHeap) find(t Time) *instant {
	if b := h.last; b != nil && b.i >= 0 && b.t == t {
		return b
	}
	if !h.tabOn {
		for _, s := range h.bk {
			if s.t == t {
				return s.b
			}
		}
		return nil
	}
	mask := len(h.tab) - 1
	for i := h.home(t); ; i = (i + 1) & mask {
		b := h.tab[i]
		if b == nil || b.t == t {
			return b
		}
	}
}

// insert puts b in tab under b.t.
func (h *laneHeap) insert(b *instant) {
	mask := len(h.tab) - 1
	i := h.home(b.t)
	for h.tab[i] != nil {
		i = (i + 1) & mask
	}
	h.tab[i] = b
}

// remove takes b out of tab (under b.t), moving back the buckets after it
// that would no longer be found past the hole.
func (h *laneHeap) remove(b *instant) {
	mask := len(h.tab) - 1
	i := h.home(b.t)
	for h.tab[i] != b {
		i = (i + 1) & mask
	}
	h.tab[i] = nil
	for j := (i + 1) & mask; h.tab[j] != nil; j = (j + 1) & mask {
		// Move tab[j] into the hole at i unless its home slot lies
		// cyclically in (i, j].
		k := h.home(h.tab[j].t)
		if (j > i && (k <= i || k > j)) || (j < i && k <= i && k > j) {
			h.tab[i], h.tab[j] = h.tab[j], nil
			i = j
		}
	}
}

// join adds lane id to b, the bucket of t (nil: make one).
func (h *laneHeap) join(id int, t Time, b *instant) {
	if b == nil {
		if n := len(h.free); n > 0 {
			b = h.free[n-1]
			h.free = h.free[:n-1]
		} else {
			b = &instant{}
			b.bits = b.w0[:]
			if h.words > 1 {
				b.bits = make([]uint64, h.words)
			}
		}
		b.t, b.n, b.i = t, 0, len(h.bk)
		h.bk = append(h.bk, slot{t, b})
		h.up(b.i)
		switch {
		case h.tabOn:
			h.insert(b)
		case len(h.bk) > tabOver:
			h.fill()
		}
	}
	b.bits[id>>6] |= 1 << (id & 63)
	b.n++
	h.of[id] = b
	h.last = b
}

// leave takes lane id out of its bucket, dropping the bucket when empty.
func (h *laneHeap) leave(id int) {
	b := h.of[id]
	b.bits[id>>6] &^= 1 << (id & 63)
	if b.n--; b.n > 0 {
		return
	}
	i, end := b.i, len(h.bk)-1
	if i != end {
		h.swap(i, end)
	}
	h.bk[end] = slot{}
	h.bk = h.bk[:end]
	if i != end {
		h.down(i)
		h.up(i)
	}
	b.i = -1
	h.free = append(h.free, b)
	if h.tabOn {
		h.remove(b)
		h.tabOn = len(h.bk) >= tabOver/2
	}
}

// fill puts every bucket in tab and keeps it from now on.
func (h *laneHeap) fill() {
	clear(h.tab)
	for _, s := range h.bk {
		h.insert(s.b)
	}
	h.tabOn = true
}

// push adds lane id (the next lane: ids are added in order) at next t.
func (h *laneHeap) push(id int, t Time) {
	if w := id/64 + 1; w > h.words {
		h.words = w
		for _, s := range h.bk {
			s.b.bits = append(s.b.bits, 0)
		}
		h.free = h.free[:0]
	}
	if n := 4 * (id + 1); n > len(h.tab) {
		size := 8
		for size < n {
			size *= 2
		}
		h.tab = make([]*instant, size)
		h.shift = uint(64 - bits.TrailingZeros(uint(size)))
		if h.tabOn {
			h.fill()
		}
	}
	h.of = append(h.of, nil)
	h.join(id, t, h.find(t))
}

// set moves lane id to next t.
func (h *laneHeap) set(id int, t Time) {
	b := h.of[id]
	old := b.t
	if old == t {
		return
	}
	nb := h.find(t)
	if nb == nil && b.n == 1 {
		if h.tabOn {
			h.remove(b)
			b.t = t
			h.insert(b)
		} else {
			b.t = t
		}
		h.bk[b.i].t = t
		if t < old {
			h.up(b.i)
		} else {
			h.down(b.i)
		}
		return
	}
	h.leave(id)
	h.join(id, t, nb)
}

// min is the earliest next of every lane (Never when there is none).
func (h *laneHeap) min() Time {
	if len(h.bk) == 0 {
		return Never
	}
	return h.bk[0].t
}

// minOther is the earliest next of the lanes other than id (Never when none).
func (h *laneHeap) minOther(id int) Time {
	if len(h.bk) == 0 {
		return Never
	}
	if b := h.bk[0].b; h.of[id] != b || b.n > 1 {
		return h.bk[0].t
	}
	// id is alone at the earliest instant: the next one is a child.
	switch len(h.bk) {
	case 1:
		return Never
	case 2:
		return h.bk[1].t
	}
	return min(h.bk[1].t, h.bk[2].t) // a conditional move: which is earlier is a coin toss
}

// dueAt is the bucket of the lanes due at t (nil: none is). The running
// lane asks at its own instant, which is nearly always the earliest (it was
// picked as due first, and its next stays there while it runs): bk[0],
// looked at before find's last bucket and tab, which in lock step hold the
// instant the lanes that ran before it moved on to.
func (h *laneHeap) dueAt(t Time) *instant {
	if len(h.bk) > 0 && h.bk[0].t == t {
		return h.bk[0].b
	}
	return h.find(t)
}

// count is how many lanes other than skip (-1: none) the bucket holds (b
// may be nil: none).
func (b *instant) count(skip int) int {
	if b == nil {
		return 0
	}
	n := b.n
	if skip >= 0 && b.bits[skip>>6]&(1<<(skip&63)) != 0 {
		n--
	}
	return n
}

// word is the bucket's w-th word of lanes without skip (-1: none).
func (b *instant) word(w, skip int) uint64 {
	x := b.bits[w]
	if skip >= 0 && skip>>6 == w {
		x &^= 1 << (skip & 63)
	}
	return x
}

// first is the first lane in the bucket (one that holds one: the lane).
func (b *instant) first() int {
	for w, x := range b.bits {
		if x != 0 {
			return w<<6 | bits.TrailingZeros64(x)
		}
	}
	return -1
}

// nth is the k-th (from 0) in lane order of the lanes other than skip in
// the bucket.
func (b *instant) nth(k, skip int) int {
	k0 := k
	for w := range b.bits {
		x := b.word(w, skip)
		if c := bits.OnesCount64(x); k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			x &= x - 1
		}
		return w<<6 | bits.TrailingZeros64(x)
	}
	Crash("sim: choice %d is past the lanes due at this instant", k0) // a Chooser's answer out of range: an oops, not a dead process
	return -1
}

// appendAgents appends the agents (CPUAgent) of the lanes other than skip
// in the bucket (b may be nil: none), in lane order.
func (b *instant) appendAgents(out []Agent, skip int) []Agent {
	if b == nil {
		return out
	}
	for w := range b.bits {
		for x := b.word(w, skip); x != 0; x &= x - 1 {
			out = append(out, CPUAgent(w<<6|bits.TrailingZeros64(x)))
		}
	}
	return out
}
