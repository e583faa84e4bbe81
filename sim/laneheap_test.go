package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLaneHeapScan checks the engine's lane heap against a scan of every
// lane (what the engine did before it): the ties at the earliest instant in
// lane order, the earliest time of the other lanes, whether another lane is
// due at a lane's time, over a long run of lanes moving to pseudo-random
// times with many ties.
func TestLaneHeapScan(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 64, 65} {
		e := NewEngine(nil)
		for i := range n {
			e.AddLane(LaneName(i), func() {})
		}
		r := NewRandom(uint64(n))
		for step := range 5000 {
			l := e.lanes[r.Uint64()%uint64(n)]
			next := Time(r.Uint64() % 8)
			if r.Uint64()%16 == 0 {
				next = Never
			}
			l.next = next
			e.heap.set(l.ID, next)
			var want []int
			min := Never
			for _, o := range e.lanes {
				switch {
				case o.next < min:
					min, want = o.next, []int{o.ID}
				case o.next == min && min != Never:
					want = append(want, o.ID)
				}
			}
			var got []int
			if m := e.heap.ent[0].next; m != Never {
				for _, o := range e.heap.due(nil, e.lanes, m, -1) {
					got = append(got, o.ID)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%d lanes, step %d: ties (-scan +heap):\n%s", n, step, d)
			}
			// The group bitset: the same ties, counted, by rank and as agents.
			var byRank, byAgent []int
			if m := e.heap.ent[0].next; m != Never {
				for k := range e.heap.dueAt(m, -1) {
					byRank = append(byRank, e.heap.nthDue(k, -1))
				}
				for _, a := range e.heap.appendDue(nil, -1) {
					byAgent = append(byAgent, a.Lane())
				}
			}
			if d := cmp.Diff(want, byRank); d != "" {
				t.Fatalf("%d lanes, step %d: ties (-scan +group by rank):\n%s", n, step, d)
			}
			if d := cmp.Diff(want, byAgent); d != "" {
				t.Fatalf("%d lanes, step %d: ties (-scan +group's agents):\n%s", n, step, d)
			}
			other, tied := Never, false
			var others []int
			for _, o := range e.lanes {
				if o != l {
					other = min2(other, o.next)
					tied = tied || o.next == l.next
					if o.next == l.next {
						others = append(others, o.ID)
					}
				}
			}
			if got := e.heap.minOther(l.ID); got != other {
				t.Fatalf("%d lanes, step %d: minOther %s, scan %s", n, step, got, other)
			}
			if got := e.heap.tied(0, l.ID, l.next); got != tied {
				t.Fatalf("%d lanes, step %d: tied %v, scan %v", n, step, got, tied)
			}
			var gotOthers []int
			for _, o := range e.heap.due(nil, e.lanes, l.next, l.ID) {
				gotOthers = append(gotOthers, o.ID)
			}
			if l.next == min {
				// l due first: the others tied with it, from the group.
				var fromGroup []int
				for k := range e.heap.dueAt(l.next, l.ID) {
					fromGroup = append(fromGroup, e.heap.nthDue(k, l.ID))
				}
				if d := cmp.Diff(others, fromGroup); d != "" {
					t.Fatalf("%d lanes, step %d: tied with lane %d (-scan +group):\n%s", n, step, l.ID, d)
				}
			}
			if l.next != Never {
				if d := cmp.Diff(others, gotOthers); d != "" {
					t.Fatalf("%d lanes, step %d: tied with lane %d (-scan +heap):\n%s", n, step, l.ID, d)
				}
			}
		}
	}
}

func min2(a, b Time) Time {
	if a < b {
		return a
	}
	return b
}
