package sim

// Timer is a timed event: at When, Fire is called by the owner of the queue.
// Timers with equal When fire in the order they were added (Seq), so the order never
// depends on anything but the run itself.
type Timer struct {
	When Time
	Fire func()
	Name string
	seq  uint64
	idx  int // position in the heap; -1 when not queued
}

// Compare orders two timers as a queue fires them: by When, then by the
// order they were added.
func (t *Timer) Compare(u *Timer) int {
	switch {
	case t.When != u.When:
		if t.When < u.When {
			return -1
		}
		return 1
	case t.seq < u.seq:
		return -1
	case t.seq > u.seq:
		return 1
	}
	return 0
}

// Queued reports whether t is waiting in a queue.
func (t *Timer) Queued() bool { return t.idx >= 0 }

// EventQueue is a deterministic priority queue of timers (a binary heap).
type EventQueue struct {
	h   []*Timer
	seq uint64
}

func (q *EventQueue) less(i, j int) bool { return q.h[i].Compare(q.h[j]) < 0 }

func (q *EventQueue) swap(i, j int) {
	q.h[i], q.h[j] = q.h[j], q.h[i]
	q.h[i].idx = i
	q.h[j].idx = j
}

func (q *EventQueue) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			return
		}
		q.swap(i, p)
		i = p
	}
}

func (q *EventQueue) down(i int) {
	n := len(q.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			return
		}
		q.swap(i, m)
		i = m
	}
}

// NewTimer returns an unqueued timer.
func NewTimer(name string, fire func()) *Timer { return &Timer{Name: name, Fire: fire, idx: -1} }

// Add queues t at when (re-queueing it if it was queued).
func (q *EventQueue) Add(t *Timer, when Time) {
	q.seq++
	if i := t.idx; i >= 0 && i < len(q.h) && q.h[i] == t {
		// Re-armed where it sits (a counter's timer is re-armed at every
		// mode switch): new keys and one sift, where a Remove and a push
		// took two. The keys (When, seq) are unique, so the order the
		// timers pop in is the same whatever the heap's shape.
		t.When, t.seq = when, q.seq
		q.down(i)
		q.up(t.idx)
		return
	}
	t.When = when
	t.seq = q.seq
	t.idx = len(q.h)
	q.h = append(q.h, t)
	q.up(t.idx)
}

// Remove dequeues t if it is queued.
func (q *EventQueue) Remove(t *Timer) {
	i := t.idx
	if i < 0 || i >= len(q.h) || q.h[i] != t {
		return
	}
	last := len(q.h) - 1
	if i != last {
		q.swap(i, last)
	}
	q.h[last] = nil
	q.h = q.h[:last]
	t.idx = -1
	if i != last {
		q.down(i)
		q.up(i)
	}
}

// Next returns the time of the earliest timer, or Never.
func (q *EventQueue) Next() Time {
	if len(q.h) == 0 {
		return Never
	}
	return q.h[0].When
}

// PopDue removes and returns the earliest timer if it is due at now, else nil.
func (q *EventQueue) PopDue(now Time) *Timer {
	if len(q.h) == 0 || q.h[0].When > now {
		return nil
	}
	t := q.h[0]
	q.Remove(t)
	return t
}

// Len returns the number of queued timers.
func (q *EventQueue) Len() int { return len(q.h) }
