package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// EdgeList and EdgesExcept hand out each recorded dependency with its class
// ids (LockEdge.IDs), the ones lockdep recorded, so that an exploration's
// graph keys them without looking the names up again; EdgesExcept leaves
// out the ones known(from, to) reports, asked with those ids.
func TestLockdepEdgesKeepIDs(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	spawnTwoOrders(s, "edges-A", "edges-B", "edges-B", "edges-A")
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	a, b := ClassOf(LockClass{Name: "edges-A"}), ClassOf(LockClass{Name: "edges-B"})
	type edge struct {
		From, To     string
		FromID, ToID ClassID
	}
	edges := func(es []LockEdge) []edge {
		var out []edge
		for _, e := range es {
			f, to := e.IDs()
			out = append(out, edge{e.From.String(), e.To.String(), f, to})
		}
		return out
	}
	var asked []string
	known := func(from, to ClassID) bool {
		asked = append(asked, fmt.Sprintf("%s -> %s", from, to))
		return from == a && to == b
	}
	if d := cmp.Diff([]edge{{"edges-A", "edges-B", a, b}, {"edges-B", "edges-A", b, a}}, edges(s.Lockdep.EdgeList())); d != "" {
		t.Errorf("EdgeList (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]edge{{"edges-B", "edges-A", b, a}}, edges(s.Lockdep.EdgesExcept(known))); d != "" {
		t.Errorf("EdgesExcept (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"edges-A -> edges-B", "edges-B -> edges-A"}, asked); d != "" {
		t.Errorf("known asked (-want +got):\n%s", d)
	}
}

// A LockEdge made by hand (a test's) has no recorded ids: IDs looks its
// classes up.
func ExampleLockEdge_IDs() {
	e := LockEdge{From: LockClass{Name: "example-X"}, To: LockClass{Name: "example-Y"}}
	from, to := e.IDs()
	fmt.Println(from == ClassOf(e.From), to == ClassOf(e.To), from != to)
	// Output: true true true
}
