package explore

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"perfsim/runner"
	"perfsim/sim"
)

// A seeded search (random, sparse, pct) draws each schedule afresh, and on
// a scenario with few decisions it draws the same ones again and again
// (pmu-overflow-vs-sched-out has 7 schedules; 4,000 random seeds give those
// 7). A run is a function of its answers: the same answers to the same
// questions make the same run (replay rests on it). So the search keeps the
// tree of the questions its runs asked, and before running seed s it asks
// s's chooser the tree's questions: when the answers lead to a leaf, seed s
// is that schedule again, judged from what the leaf kept, not rerun.
//
// The tree also proves a claim: when every option of every question in it
// has been taken, the search has run every schedule of the scenario
// (exhaustive), whatever its budget let a single chooser reach.
//
// Runs that follow a path already in the tree are checked against it: a
// question that differs from the one asked before after the same answers
// means the model is not deterministic, and the search stops with an error
// rather than judge schedules by a tree that does not describe them.
//
// The tree is kept while it pays: past memoMaxNodes questions, or when the
// first memoProbation schedules repeated too few (a scenario with many
// decisions draws a new schedule every time), it is dropped and every
// schedule runs.
type schedMemo struct {
	mu      sync.RWMutex
	root    *memoNode
	off     bool // dropped: every schedule runs
	open    int  // options of the tree's questions no schedule took yet
	nodes   int  // questions in the tree
	leaves  int  // distinct schedules in the tree
	runs    int  // schedules consumed while the tree was kept
	repeats int  // of those, the ones whose schedule was in the tree already
	// Slabs the tree's nodes, answers and agents are cut from: a run adds
	// a node per question past where it left the tree, and one allocation
	// each would cost more than the run's own questions do.
	nodeSlab  []memoNode
	kidSlab   []*memoNode
	agentSlab []sim.Agent
}

// cut returns n zeroed elements from the slab, starting a new chunk of at
// least chunk when it has no room.
func cut[T any](slab *[]T, n, chunk int) []T {
	if len(*slab)+n > cap(*slab) {
		*slab = make([]T, 0, max(chunk, n))
	}
	i := len(*slab)
	*slab = (*slab)[:i+n]
	return (*slab)[i : i+n : i+n]
}

// keepAgents copies agents into the slab (nil stays nil: asked with Choose).
func (t *schedMemo) keepAgents(agents []sim.Agent) []sim.Agent {
	if agents == nil {
		return nil
	}
	k := cut(&t.agentSlab, len(agents), 1024)
	copy(k, agents)
	return k
}

const (
	memoMaxNodes  = 1 << 18
	memoProbation = 64 // schedules before the tree must show it pays
	// memoMaxCalls bounds what a run records: a run that asks more (the
	// scaled seed benchmark asks millions) drops the tree, and its
	// recorder keeps no more, so the decision log stays the only record
	// of a long run, a counter for its undisturbed stretches.
	memoMaxCalls = 1 << 16
)

// memoNode is a question of the tree (n > 0) or a leaf (leaf != nil): what a
// run asked after the answers on the path to it.
type memoNode struct {
	n      int
	what   string
	agents []sim.Agent // nil: asked with Choose
	kids   []*memoNode // by answer; nil until an answer is taken
	leaf   *memoLeaf
}

// memoLeaf is what judging a schedule needs of its run.
type memoLeaf struct {
	outcomes []uint8 // per outcome: bit 0 counted, bit 1 true
	lifetime []schedReport
	races    []schedReport
	clean    bool // no violation: a repeat is judged from here
	first    int  // the number of the schedule that ran it (shardtree.go)
}

// memoCall is one question a run asked, and its answer.
type memoCall struct {
	what   string
	n, d   int32
	a0, a1 int32 // the agents: rec.agents[a0:a1]; a0 < 0: asked with Choose
}

// memoRecorder passes every decision on to the strategy's chooser and notes
// the question and answer.
type memoRecorder struct {
	inner  sim.Chooser
	calls  []memoCall
	agents []sim.Agent
	over   bool // asked more than memoMaxCalls: nothing more recorded
}

// memoCallsHint and memoAgentsHint size a recorder: the most questions
// and agents a run recorded.
var memoCallsHint, memoAgentsHint atomic.Int32

func newMemoRecorder(inner sim.Chooser) *memoRecorder {
	return &memoRecorder{inner: inner, calls: make([]memoCall, 0, memoCallsHint.Load()), agents: make([]sim.Agent, 0, memoAgentsHint.Load())}
}

// Choose implements sim.Chooser.
func (m *memoRecorder) Choose(n int, what string) int {
	d := m.inner.Choose(n, what)
	if m.full() {
		return d
	}
	m.calls = append(m.calls, memoCall{what: what, n: int32(n), d: int32(d), a0: -1, a1: -1})
	return d
}

// ChooseAgents implements sim.AgentChooser.
func (m *memoRecorder) ChooseAgents(n int, what string, agents []sim.Agent) int {
	d := sim.ChooseWith(m.inner, n, what, agents)
	if m.full() {
		return d
	}
	a0 := int32(len(m.agents))
	m.agents = append(m.agents, agents...)
	m.calls = append(m.calls, memoCall{what: what, n: int32(n), d: int32(d), a0: a0, a1: int32(len(m.agents))})
	return d
}

// full reports whether the run has asked memoMaxCalls questions: from
// then on the recorder keeps nothing, and the tree is dropped (add).
func (m *memoRecorder) full() bool {
	if len(m.calls) >= memoMaxCalls {
		m.over = true
	}
	return m.over
}

// WantsAgents implements sim.AgentsWanter: the strategy's answer.
func (m *memoRecorder) WantsAgents() bool { return sim.WantsAgents(m.inner) }

func (m *memoRecorder) callAgents(c memoCall) []sim.Agent {
	if c.a0 < 0 {
		return nil
	}
	return m.agents[c.a0:c.a1]
}

// active reports whether the tree is kept (a run should be recorded).
func (t *schedMemo) active() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return !t.off
}

// lookup asks ch the tree's questions; it returns the leaf of a schedule
// run before that the answers lead to, or nil (the schedule is new, or the
// tree was dropped). ch has then been asked what the run would ask it, in
// the same order, up to that leaf.
func (t *schedMemo) lookup(ch sim.Chooser) *memoLeaf {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if t.off {
		return nil
	}
	n := t.root
	for n != nil && n.leaf == nil {
		d := sim.ChooseWith(ch, n.n, n.what, n.agents) // nil agents: Choose, as the run asked
		if d < 0 || d >= n.n || n.kids == nil {
			return nil
		}
		n = n.kids[d]
	}
	if n == nil || !n.leaf.clean {
		return nil // new, or a violation: run it (the search stops there)
	}
	return n.leaf
}

// repeat counts a schedule judged from the tree.
func (t *schedMemo) repeat() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.off {
		t.runs++
		t.repeats++
		t.maybeDrop()
	}
}

// add puts a run's path in the tree, with the leaf leaf makes when the path
// is new; schedule numbers it for the error a path that contradicts the
// tree gives.
func (t *schedMemo) add(rec *memoRecorder, leaf func() *memoLeaf, schedule int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.off {
		return nil
	}
	if int32(len(rec.calls)) > memoCallsHint.Load() {
		memoCallsHint.Store(int32(len(rec.calls)))
	}
	if int32(len(rec.agents)) > memoAgentsHint.Load() {
		memoAgentsHint.Store(int32(len(rec.agents)))
	}
	t.runs++
	if rec.over {
		t.drop()
		return nil
	}
	at := &t.root
	for i, c := range rec.calls {
		n := *at
		agents := rec.callAgents(c)
		if n == nil {
			n = &cut(&t.nodeSlab, 1, 256)[0]
			n.n, n.what, n.agents = int(c.n), c.what, t.keepAgents(agents)
			*at = n
			t.nodes++
			t.open += n.n
		} else if n.leaf != nil || n.n != int(c.n) || n.what != c.what || !slices.Equal(n.agents, agents) {
			return t.diverged(schedule, i, n, fmt.Sprintf("%q (%d options)", c.what, c.n))
		}
		if n.kids == nil {
			n.kids = cut(&t.kidSlab, n.n, 1024)
		}
		at = &n.kids[c.d]
		if *at == nil {
			t.open--
		}
	}
	if n := *at; n == nil {
		l := &cut(&t.nodeSlab, 1, 256)[0]
		l.leaf = leaf()
		l.leaf.first = schedule
		*at = l
		t.leaves++
	} else if n.leaf == nil {
		return t.diverged(schedule, len(rec.calls), n, "nothing (the run ended)")
	} else {
		// Run again: another job drew it before the leaf was in. Still a
		// repeat, as with one job, where it would have been judged from
		// the tree.
		t.repeats++
	}
	t.maybeDrop()
	return nil
}

// maybeDrop drops the tree when it stopped paying: evaluated after every
// schedule consumed, repeat or run, in schedule order, so the point where
// it happens is the same for any number of jobs.
func (t *schedMemo) maybeDrop() {
	if t.nodes > memoMaxNodes || (t.runs >= memoProbation && t.repeats*8 < t.runs) {
		t.drop()
	}
}

func (t *schedMemo) drop() {
	t.off, t.root = true, nil
	t.nodeSlab, t.kidSlab, t.agentSlab = nil, nil, nil
}

func (t *schedMemo) diverged(schedule, i int, n *memoNode, asked string) error {
	before := "nothing (that run ended)"
	if n.leaf == nil {
		before = fmt.Sprintf("%q (%d options)", n.what, n.n)
	}
	return fmt.Errorf("schedule %d: at its decision %d it asked %s where an earlier schedule with the same answers asked %s: the model is not deterministic", schedule, i+1, asked, before)
}

// complete reports whether every option of every question has been taken:
// the tree holds every schedule of the scenario. leaves is how many.
func (t *schedMemo) complete() (ok bool, leaves int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return !t.off && t.root != nil && t.open == 0, t.leaves
}

func newMemoLeaf(r *runner.Run, res *runner.Result) *memoLeaf {
	l := &memoLeaf{clean: signature(r, res) == "", outcomes: make([]uint8, len(res.Outcomes)),
		lifetime: schedReports(r, "object-lifetime", lifetimeKey), races: schedReports(r, "data-race", raceKey)}
	for i, oc := range res.Outcomes {
		if oc.Counted {
			l.outcomes[i] |= 1
		}
		if oc.Truth {
			l.outcomes[i] |= 2
		}
	}
	return l
}

// countLeaf counts a repeated schedule's outcomes as count does its run's.
func (ex *Result) countLeaf(l *memoLeaf) {
	ex.Schedules++
	for i, b := range l.outcomes {
		ex.countOutcome(i, b&1 != 0, b&2 != 0)
	}
}

// tallyLeaf tallies a repeated schedule's oracle reports as tally does its
// run's (its lock edges are all in the graph already).
func (ex *Result) tallyLeaf(l *memoLeaf, schedule int) {
	ex.lifetime.addReports(l.lifetime, schedule)
	ex.races.addReports(l.races, schedule)
}

// claim makes the exhaustive claim once the tree holds every schedule; the
// search goes on (its schedules are the ones asked for, counted as usual)
// but each one is a repeat.
func (t *schedMemo) claim(ex *Result) {
	if ok, leaves := t.complete(); ok && !ex.Exhausted {
		ex.Exhausted, ex.Distinct = true, leaves
	}
}
