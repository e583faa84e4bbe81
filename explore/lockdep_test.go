package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sched"
)

// TestLockGraphAcrossSchedules: two schedules that each take A and B in
// one order, opposite to each other, make a cycle only in the union; it is
// reported once, naming both schedules and their chains. A cycle inside one
// schedule is left to that schedule's lockdep invariant.
func TestLockGraphAcrossSchedules(t *testing.T) {
	A, B, C := sched.LockClass{Name: "A"}, sched.LockClass{Name: "B"}, sched.LockClass{Name: "C"}
	var g lockGraph
	g.addEdges([]sched.LockEdge{{From: A, To: B, Chain: "t1 on cpu0"}}, 1)
	g.addEdges([]sched.LockEdge{{From: B, To: C, Chain: "t2 on cpu1"}}, 2)
	g.addEdges([]sched.LockEdge{{From: C, To: A, Chain: "t3 on cpu0"}}, 3)
	g.addEdges([]sched.LockEdge{{From: C, To: A, Chain: "t3 again"}}, 4) // known: no second report
	g.addEdges([]sched.LockEdge{{From: sched.LockClass{Name: "X"}, To: sched.LockClass{Name: "Y"}, Chain: "u"},
		{From: sched.LockClass{Name: "Y"}, To: sched.LockClass{Name: "X"}, Chain: "u"}}, 5) // within schedule 5
	want := []string{"lockdep across schedules: possible circular locking dependency: schedule 3 takes A while holding C (t3 on cpu0); " +
		"schedule 1 took A then B (t1 on cpu0); schedule 2 took B then C (t2 on cpu1)"}
	if d := cmp.Diff(want, g.Cycles); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
