package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLaneHeapScan checks the engine's lane heap against a scan of every
// lane (what the engine did before it): the ties at the earliest instant in
// lane order, the earliest time of the other lanes, the lanes due at a
// lane's time, over a long run of lanes moving to pseudo-random times with
// many ties (next%8), with few (next%128: most lanes alone at their
// instant, buckets moving in the heap and in its table) and with about
// tabOver instants (the table kept and dropped again).
func TestLaneHeapScan(t *testing.T) {
	for _, c := range []struct{ n, times int }{{1, 8}, {2, 8}, {3, 8}, {7, 8}, {64, 8}, {65, 8}, {16, 12}, {12, 6}, {64, 128}, {130, 128}} {
		n := c.n
		e := NewEngine(nil)
		for i := range n {
			e.AddLane(LaneName(i), func() {})
		}
		r := NewRandom(uint64(n))
		for step := range 5000 {
			l := e.lanes[r.Uint64()%uint64(n)]
			next := Time(r.Uint64() % uint64(c.times))
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
			// The lanes due first, by rank and as agents.
			var byRank, byAgent []int
			if m := e.heap.min(); m != Never {
				b := e.heap.dueAt(m)
				for k := range b.count(-1) {
					byRank = append(byRank, b.nth(k, -1))
				}
				for _, a := range b.appendAgents(nil, -1) {
					byAgent = append(byAgent, a.Lane())
				}
			}
			if d := cmp.Diff(want, byRank); d != "" {
				t.Fatalf("%d lanes, step %d: ties (-scan +heap by rank):\n%s", n, step, d)
			}
			if d := cmp.Diff(want, byAgent); d != "" {
				t.Fatalf("%d lanes, step %d: ties (-scan +heap's agents):\n%s", n, step, d)
			}
			other := Never
			var others []int
			for _, o := range e.lanes {
				if o != l {
					other = min2(other, o.next)
					if o.next == l.next {
						others = append(others, o.ID)
					}
				}
			}
			if got := e.heap.minOther(l.ID); got != other {
				t.Fatalf("%d lanes, step %d: minOther %s, scan %s", n, step, got, other)
			}
			// The lanes tied with l at its next, whenever it is.
			b := e.heap.dueAt(l.next)
			var gotOthers []int
			for k := range b.count(l.ID) {
				gotOthers = append(gotOthers, b.nth(k, l.ID))
			}
			if d := cmp.Diff(others, gotOthers); d != "" {
				t.Fatalf("%d lanes, step %d: tied with lane %d (-scan +heap):\n%s", n, step, l.ID, d)
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
