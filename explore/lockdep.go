package explore

import (
	"fmt"
	"strings"

	"perfsim/runner"
	"perfsim/sched"
)

// lockGraph is lockdep's dependency graph across the schedules of an
// exploration: each schedule's validator sees only its own run, but the
// kernel's lives as long as the machine, so two schedules that each take
// two locks in one order, opposite to each other, are the AB-BA a long
// enough run would show. A cycle whose edges all came from one schedule was
// already reported there (the lockdep invariant); a cycle across schedules
// is reported here, once, with each edge's schedule and chain.
// kernel/locking/lockdep.c: check_noncircular() over the global graph
type lockGraph struct {
	edges map[[2]sched.ClassID]lockEdge
	order map[sched.ClassID][]sched.ClassID
	seen  map[string]bool
	// Cycles are the reports, in the order found.
	Cycles []string
}

type lockEdge struct {
	chain    string
	schedule int
}

// add unions the dependencies of one schedule's run (number schedule).
func (g *lockGraph) add(r *runner.Run, schedule int) {
	if r != nil && r.S != nil {
		// Only the edges the graph lacks: addEdges skips the others.
		g.addEdges(r.S.Lockdep.EdgesExcept(g.known), schedule)
	}
}

func (g *lockGraph) known(from, to sched.ClassID) bool {
	_, ok := g.edges[[2]sched.ClassID{from, to}]
	return ok
}

func (g *lockGraph) addEdges(edges []sched.LockEdge, schedule int) {
	if g.edges == nil {
		g.edges, g.order, g.seen = map[[2]sched.ClassID]lockEdge{}, map[sched.ClassID][]sched.ClassID{}, map[string]bool{}
	}
	for _, e := range edges {
		from, to := e.IDs()
		if _, ok := g.edges[[2]sched.ClassID{from, to}]; ok {
			continue
		}
		if path := sched.DependencyPath(g.order, to, from); path != nil {
			g.report(e, schedule, path)
		}
		g.edges[[2]sched.ClassID{from, to}] = lockEdge{e.Chain, schedule}
		g.order[from] = append(g.order[from], to)
	}
}

func (g *lockGraph) report(e sched.LockEdge, schedule int, path []sched.ClassID) {
	key := e.From.String() + ">" + e.To.String()
	if g.seen[key] {
		return
	}
	across := false
	for i := 0; i+1 < len(path); i++ {
		across = across || g.edges[[2]sched.ClassID{path[i], path[i+1]}].schedule != schedule
	}
	if !across {
		return // one schedule's own cycle: its lockdep invariant reported it
	}
	g.seen[key] = true
	var parts []string
	for i := 0; i+1 < len(path); i++ {
		x := g.edges[[2]sched.ClassID{path[i], path[i+1]}]
		parts = append(parts, fmt.Sprintf("schedule %d took %s then %s (%s)", x.schedule, path[i], path[i+1], x.chain))
	}
	g.Cycles = append(g.Cycles, fmt.Sprintf("lockdep across schedules: possible circular locking dependency: schedule %d takes %s while holding %s (%s); %s",
		schedule, e.To, e.From, e.Chain, strings.Join(parts, "; ")))
}
