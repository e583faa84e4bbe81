package explore

import (
	"fmt"
	"slices"
	"strings"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// The dpor strategy: stateless model checking by replay with sleep sets
// (Godefroid, "Partial-order methods for the verification of concurrent
// systems", 1996, ch. 5), an exhaustive search that runs one schedule of
// each class of interleavings that differ only in the order of independent
// fragments, where the footprints let it see that.
//
// A run is cut into fragments (cpu/segment.go): the code one context (a
// CPU's task context, its irq, its NMI) runs from one boundary (a step
// point, a handler's entry or return, the engine resuming the lane) to the
// next. Two fragments are independent only when they are of different
// contexts, both have a complete footprint (their start was declared with
// cpu.DeclareComplete, or with cpu.DeclareCompleteUntil and it ended at a
// declared end: dpor_until.go; every object they touch has a stable key) and
// neither writes a field the other touches (two adds, cpu.AtomicAdd,
// commute). Everything else (a fragment of
// code nobody vouched for, a decision that is not "who runs", nmi-skid,
// select_task_rq) is dependent with everything, so with no declaration the
// search is the plain exhaustive tree: the reduction is only as large as
// the annotations, never larger.
//
// The search is a depth-first walk of the decision tree. At a decision
// whose options are agents (sim.Agent: a CPU runs on, its NMI or irq is
// taken, a tied CPU goes first) the options run in order; an option whose
// agent sleeps is skipped. When option o of node n is run after options
// o' < o, the agents of those o' go to sleep with the footprint of what
// they ran first (their transition: the segment up to the next decision,
// with what their own NMI or irq did at the step point that decision is
// at, see next()); a sleeping agent wakes when a fragment dependent with
// that footprint runs. A run in which a sleeping agent must run (the
// engine runs it without a decision, or every option sleeps) is equivalent
// to one run before: it is stopped there (blocked) and not judged. When the
// walk is done, every class was run: the search is exhaustive.
//
// The model's step points are not the textbook's scheduling points in one
// way that matters: a CPU that lets another CPU run at a step point goes on
// after it when it runs again (cpu.stepSlow), so an NMI pending there can
// no longer be taken there. A CPU's arrival at such a step point and the
// other CPU's code do not commute when that NMI's handler and the other
// CPU's code are dependent; next() counts them so (TestDPORShapeInterruptsRead
// is the case: before, dpor said exhaustive after 30 of 46 final states).

// porAgent is who runs a fragment: one context of a lane.
type porAgent struct {
	lane int
	ctx  cpu.Context
}

func (a porAgent) String() string { return fmt.Sprintf("cpu%d/%s", a.lane, a.ctx) }

// porAccess is an access by a stable object name: a read, a write, or
// only adds (cpu.AtomicAdd), which commute with each other.
type porAccess struct {
	key, field string
	write      bool
	add        bool // only adds: write is false
}

// merge is the fragment's access to a field it touched as x and now as
// a: adds stay adds; an add with a read or a write is a write.
func (x porAccess) merge(a porAccess) porAccess {
	if x.add && a.add {
		return x
	}
	x.write = x.write || a.write || x.add || a.add
	x.add = false
	return x
}

// conflicts reports whether x and a (of the same field) do not commute:
// one writes, or one adds and the other does not.
func (x porAccess) conflicts(a porAccess) bool {
	return x.write || a.write || x.add != a.add
}

// porEvent is one fragment: whose, whether its footprint is complete, and
// what it touched.
type porEvent struct {
	agent    porAgent
	start    string // the step point (or "enter:", "start:") it counts as starting at
	complete bool
	// pending: its start is declared with cpu.DeclareCompleteUntil and its
	// context has not reached its next step point yet; complete once it
	// does, at one of the declared ends (porRun.endUntil), else not.
	pending bool
	why     string // declared complete but not: what it did (dpor_footprints.go)
	fresh   bool   // opened at a step point and nothing since: the chosen option's fragment
	dropped bool   // fresh, and the decision there ran another context: it never ran
	seq     int    // its index in the run's fragments (porRun.frags)
	cont    bool   // opened where its context went on (a handler's return, the engine resuming it)
	acc     []porAccess
	idx     map[porField]int // acc's index by field, once it is long (touch)
	// eng: the engine's writes of what every fragment reads (a CPU's
	// pending interrupts, another lane's post: porEngineField) that an
	// incomplete fragment made; kept though the rest of what it touches
	// is not, since the cpu package makes them whatever code runs.
	eng  []porAccess
	engW bool // acc may hold a write of an engine field (touch): engWrites need look only then
}

func (e *porEvent) touch(a porAccess) {
	if (a.write || a.add) && (a.field == "pending" || a.field == "posts") && porEngineField(a.key, a.field) {
		e.engW = true
	}
	k := porField{a.key, a.field}
	if i := e.find(k); i >= 0 {
		e.acc[i] = e.acc[i].merge(a)
		return
	}
	e.acc = append(e.acc, a)
	switch {
	case e.idx != nil:
		e.idx[k] = len(e.acc) - 1
	case len(e.acc) > porIndexAt:
		// A fragment that runs long (a syscall's entry with its body) touches
		// hundreds of fields: scanning them at every access, and every pair
		// of two such fragments, made dpor's cost grow with their square.
		e.idx = make(map[porField]int, 2*len(e.acc))
		for i, x := range e.acc {
			e.idx[porField{x.key, x.field}] = i
		}
	}
}

// find is the index in e.acc of field k, or -1.
func (e *porEvent) find(k porField) int {
	if e.idx != nil {
		if i, ok := e.idx[k]; ok {
			return i
		}
		return -1
	}
	for i := range e.acc {
		if e.acc[i].key == k.key && e.acc[i].field == k.field {
			return i
		}
	}
	return -1
}

// porEngineField reports whether an access is of what every fragment
// reads: a CPU's pending interrupts, or the lanes' posts.
func porEngineField(key, field string) bool {
	return field == "pending" && strings.HasPrefix(key, "cpu") || key == "machine" && field == "posts"
}

// empty reports whether the fragment touched nothing but what every
// fragment reads, and only read it.
func (e *porEvent) empty() bool {
	for _, x := range e.acc {
		if x.write || x.add || !porEngineField(x.key, x.field) {
			return false
		}
	}
	return true
}

// engConflicts reports whether incomplete fragment e wrote (as the engine
// does, eng, or before it became incomplete, acc) what empty fragment b
// reads.
func (e *porEvent) engConflicts(b *porEvent) bool {
	for _, x := range e.engWrites() {
		if b.find(porField{x.key, x.field}) >= 0 {
			return true
		}
	}
	return false
}

// engWrites are the engine's writes an incomplete fragment made: those
// porDependent compares with an empty fragment's reads.
func (e *porEvent) engWrites() []porAccess {
	if !e.engW {
		return e.eng
	}
	var w []porAccess
	for _, l := range [][]porAccess{e.acc, e.eng} {
		for _, x := range l {
			if x.write && porEngineField(x.key, x.field) {
				w = append(w, x)
			}
		}
	}
	return w
}

// porField is an access's key and field: what two accesses must share to
// conflict.
type porField struct{ key, field string }

// porIndexAt is the number of fields from which a fragment indexes them.
const porIndexAt = 16

// porDependent reports whether two fragments may not be swapped. A
// fragment whose footprint is incomplete touches everything, but for one
// that ran no code of its own: a fragment declared complete that touched
// nothing but what every fragment reads (its CPU's pending interrupts and
// the lanes' posts, Boundary) depends only on the engine's writes of
// those, which the incomplete one's eng holds.
func porDependent(a, b *porEvent) bool {
	if a.agent == b.agent {
		return true
	}
	if !a.complete || !b.complete {
		switch {
		case a.complete && a.empty():
			return b.engConflicts(a)
		case b.complete && b.empty():
			return a.engConflicts(b)
		}
		return true
	}
	if len(a.acc) > len(b.acc) {
		a, b = b, a
	}
	for _, x := range a.acc { // look the few up in the many
		if i := b.find(porField{x.key, x.field}); i >= 0 && x.conflicts(b.acc[i]) {
			return true
		}
	}
	return false
}

// porSleeper is a sleeping agent and the fragment it would run.
type porSleeper struct {
	agent porAgent
	ev    *porEvent
}

func asleep(a porAgent, set []porSleeper) bool {
	for _, s := range set {
		if s.agent == a {
			return true
		}
	}
	return false
}

// porNode is one decision on the walk's current path.
type porNode struct {
	n       int
	what    string
	agents  []porAgent // nil: not a choice of who runs; every option runs
	taken   int
	sleepIn []porSleeper // asleep on arrival
	done    []porSleeper // the options run before taken, with their first fragments
	// seg: the fragments run from this decision to the next (taken's
	// transition), in this run; union makes them one porEvent.
	seg []*porEvent
	pos int // the run's fragments from pos on came after the decision
	// todo: the options the walk must run here (the backtrack set):
	// the first one run, and each one a race found later asks for.
	todo []bool
	// A step point's options that take the stepping CPU's own NMI or irq
	// (nil: none), which of them ran in this node's subtree, and what
	// they touched (irqFoot: their transitions, merged).
	irqOpt, irqRan []bool
	irqFoot        *porEvent
	// after: for the option taken here, what the own interrupts of the
	// step point its context came to next touched (its child's irqFoot
	// once that child is done, which holds its own after: the chain of
	// step points; incomplete if one of them never ran).
	after *porEvent
}

// merge adds what u touched to e (e stays complete only if both are).
func (e *porEvent) merge(u *porEvent) {
	e.complete = e.complete && u.complete
	if !e.complete {
		// touching everything: what it touched is never looked at, but
		// for the engine's writes (porDependent)
		e.eng = append(e.eng, u.engWrites()...)
		return
	}
	for _, a := range u.acc {
		e.touch(a)
	}
}

// irqAfter is what the own interrupts of step point nd can run, over the
// subtree walked: their transitions merged, or incomplete (touching
// everything) if one of them never ran.
func (nd *porNode) irqAfter() *porEvent {
	u := &porEvent{complete: true}
	if nd.irqFoot != nil {
		u.merge(nd.irqFoot)
	}
	for o, own := range nd.irqOpt {
		if own && !nd.irqRan[o] {
			u.complete = false
		}
	}
	return u
}

// sleeper is the taken option's context and what it touches if run first
// here: its transition, and what its own interrupts can do at the step
// point it comes to next.
func (nd *porNode) sleeper() porSleeper {
	u := nd.union()
	if nd.after != nil {
		u.merge(nd.after)
	}
	return porSleeper{nd.agents[nd.taken], u}
}

// union is the transition of the node's taken option: every fragment its
// CPU runs from the decision up to the next one, the chosen context's and
// whatever followed there with no choice (a handler the CPU was forced
// into): all of it happens once this option is taken, before anything else
// can be chosen. (A lane the engine ran after a time advance, with no
// choice, runs its own code: that is its transition, not this one's.) It
// is complete only when each of those fragments is; with none, it stands
// for everything.
func (nd *porNode) union() *porEvent {
	u := &porEvent{agent: nd.agents[nd.taken], complete: len(nd.seg) > 0}
	for _, ev := range nd.seg {
		if ev.agent.lane == u.agent.lane {
			u.merge(ev)
		}
	}
	return u
}

// todoAll reports whether every option of nd is to run.
func (nd *porNode) todoAll() bool { return !slices.Contains(nd.todo, false) }

// ask adds a to the options the walk must run at nd, or every option when
// a is not one of them.
func (nd *porNode) ask(a porAgent) {
	if i := slices.Index(nd.agents, a); i >= 0 {
		nd.todo[i] = true
		return
	}
	for i := range nd.todo {
		nd.todo[i] = true
	}
}

// askOne makes sure one of agents runs at nd: true when one already is to
// or sleeps on arrival (it ran where it went to sleep), or one is an
// option and is now asked; false when none is an option.
func (nd *porNode) askOne(agents []porAgent) bool {
	for _, a := range agents {
		if i := slices.Index(nd.agents, a); i >= 0 && nd.todo[i] || asleep(a, nd.sleepIn) {
			return true
		}
	}
	for _, a := range agents {
		if i := slices.Index(nd.agents, a); i >= 0 {
			nd.todo[i] = true
			return true
		}
	}
	return false
}

// porSearch is the walk: the current path, and counts.
type porSearch struct {
	stack   []*porNode
	Runs    int // schedules started
	Blocked int // of them, stopped as equivalent to an earlier one
	// Fragments are those the walk's schedules opened (blocked ones
	// included); Incomplete counts, by start, those whose footprint was
	// not complete: each is dependent with every other fragment, so it is
	// what keeps the walk from reducing (dpor_footprints.go).
	Fragments  int
	Incomplete map[string]int
	hbFields   map[porField]*porFieldClocks // newPorHB's table, kept from run to run
}

// porBlocked stops a run that only repeats a class already run.
type porBlocked struct{}

// porRun is one schedule of the walk: the chooser and the segment listener.
type porRun struct {
	s       *porSearch
	m       *cpu.Machine
	prefix  int // decisions below prefix replay the path
	i       int // the next decision's index
	sleep   []porSleeper
	cur     *porEvent
	last    *porNode // the last decision: the fragments opened go to its seg
	task    map[*cpu.Thread]string
	irq     map[porAgent]string
	err     error
	blocked bool
	log     *[]*porEvent   // tests: every fragment opened, in order
	frags   []*porEvent    // every fragment opened, in order
	until   untilFragments // per thread, its open fragment declared with cpu.DeclareCompleteUntil (dpor_until.go)
}

// newRun starts the next schedule of the walk.
func (s *porSearch) newRun() *porRun {
	s.Runs++
	return &porRun{s: s, prefix: len(s.stack), task: map[*cpu.Thread]string{}, irq: map[porAgent]string{}, until: untilFragments{}}
}

// attach installs the run's listener on the machine before it runs.
func (p *porRun) attach(m *cpu.Machine) {
	p.m = m
	m.OnSegments(p)
}

// next moves the walk to its next schedule after run p; false when the
// walk is done. First the races of p (Flanagan and Godefroid, "Dynamic
// partial-order reduction", POPL 2005): for each decision on the path, a
// later fragment of another context dependent with the transition taken
// there asks the walk to run that context first there too; when that
// context was not an option there, every option. (Races are taken without
// their happens-before filter: more backtracking, never less.) Then the
// deepest decision with an option still to run that does not sleep.
//
// A step point whose options take the CPU's own NMI or irq and let another
// CPU run is not a place where the CPU stays: choosing the other CPU passes
// it (cpu.stepSlow: the CPU goes on after the step point when it runs
// again), so the interrupt can no longer be taken there. Running another
// CPU's code first and this CPU up to that step point after, where it then
// takes its interrupt, is an order the subtree of this CPU going first
// does not have. So a context's transition counts, for races and for
// sleeping, together with what its own interrupts do at the step point it
// comes to next (in this run: the one taken there; for sleeping: all of
// them, over the subtree, or everything if one never ran).
func (s *porSearch) next(p *porRun) bool {
	p.flushUntil()
	var hb *porHB
	if porHBFilter {
		if s.hbFields == nil {
			s.hbFields = map[porField]*porFieldClocks{}
		}
		hb = newPorHB(p.frags, s.hbFields)
	}
	for i, nd := range s.stack {
		if nd.agents == nil {
			continue
		}
		t := nd.union()
		// own: the chosen context's leading fragments; lead: what they
		// touched. The rest of the transition (a handler forced in after
		// them: inT) races with them, not with itself.
		own, inT := map[*porEvent]bool{}, map[*porEvent]bool{}
		lead := &porEvent{agent: t.agent, complete: len(nd.seg) > 0}
		markSeg(nd.seg, t.agent, own, inT, lead)
		// The step points of this context's CPU that follow, as long as
		// each took the CPU's own interrupt: what those handlers ran
		// belongs with this transition.
		for _, ch := range s.stack[i+1:] {
			if ch.irqOpt == nil || !ch.irqOpt[ch.taken] || ch.agents[0].lane != t.agent.lane {
				break
			}
			u := ch.union()
			t.merge(u)
			markSeg(ch.seg, u.agent, own, inT, nil)
		}
		firsts := porFirsts{}
		for ev, in := range inT {
			if in {
				firsts.add(ev)
			}
		}
		for _, f := range p.frags[min(nd.pos, len(p.frags)):] {
			if nd.todoAll() {
				break // every option runs here already
			}
			if own[f] || f.agent == t.agent {
				continue
			}
			if !inT[f] && hb.beforeAny(firsts, f) {
				continue // f's context saw the transition already (dpor_hb.go); cheaper than the footprints' test
			}
			if inT[f] && !porDependent(lead, f) || !inT[f] && !porDependent(t, f) {
				continue
			}
			if porSourceSets && !inT[f] && !slices.Contains(nd.agents, f.agent) {
				// f's context is no option here: one that starts the
				// reversal is (dpor_hb.go), else every option.
				if ini, ok := hb.initials(p.frags, min(nd.pos, len(p.frags)), firsts, inT, f); ok && nd.askOne(ini) {
					continue
				}
			}
			nd.ask(f.agent)
		}
	}
	// The fragments no choice of who runs put there: a handler the CPU was
	// forced into, a lane the engine ran after a time advance with no tie,
	// what followed a data choice (nmi-skid). Each is the first of a race
	// too: a later fragment of another context dependent with it asks the
	// last choice of who runs before it to run that context first (or,
	// where that context was not an option, every option): the latest
	// place the walk can put the other context ahead of it.
	chosen := map[*porEvent]bool{}
	for _, nd := range s.stack {
		if nd.agents == nil {
			continue
		}
		for _, ev := range nd.seg {
			if ev.agent.lane == nd.agents[nd.taken].lane {
				chosen[ev] = true
			}
		}
	}
	var last *porNode
	k := 0
	for i, g := range p.frags {
		for k < len(s.stack) && s.stack[k].pos <= i {
			if s.stack[k].agents != nil {
				last = s.stack[k]
			}
			k++
		}
		if last == nil || chosen[g] || last.todoAll() {
			continue
		}
		for _, f := range p.frags[i+1:] {
			if f.agent != g.agent && !hb.before(g, f) && porDependent(g, f) {
				last.ask(f.agent)
			}
		}
	}
	for len(s.stack) > 0 {
		nd := s.stack[len(s.stack)-1]
		if nd.agents != nil {
			sl := nd.sleeper()
			nd.done = append(nd.done, sl)
			if nd.irqOpt != nil && nd.irqOpt[nd.taken] {
				nd.irqRan[nd.taken] = true
				if nd.irqFoot == nil {
					nd.irqFoot = &porEvent{complete: true}
				}
				nd.irqFoot.merge(sl.ev)
			}
			for o := 0; o < nd.n; o++ {
				if nd.todo[o] && !asleep(nd.agents[o], nd.sleepIn) && !asleep(nd.agents[o], nd.done) {
					nd.taken, nd.seg, nd.after = o, nil, nil
					return true
				}
			}
		} else if nd.taken+1 < nd.n {
			nd.taken, nd.seg = nd.taken+1, nil
			return true
		}
		s.stack = s.stack[:len(s.stack)-1]
		if nd.irqOpt != nil && len(s.stack) > 0 {
			if up := s.stack[len(s.stack)-1]; up.agents != nil && up.agents[up.taken].lane == nd.agents[0].lane {
				up.after = nd.irqAfter()
			}
		}
	}
	return false
}

// markSeg marks a transition's segment: each fragment on agent's lane in
// inT (true) or not (false), and the leading fragments run by agent itself
// in own, merged into lead (nil: not kept).
func markSeg(seg []*porEvent, agent porAgent, own, inT map[*porEvent]bool, lead *porEvent) {
	leading := true
	for _, ev := range seg {
		inT[ev] = ev.agent.lane == agent.lane
		if leading = leading && ev.agent == agent; leading {
			own[ev] = true
			if lead != nil {
				lead.merge(ev)
			}
		}
	}
}

// Choose implements sim.Chooser: a decision that is not a choice of who
// runs (every option is explored; the fragment it is in touches everything).
func (p *porRun) Choose(n int, what string) int { return p.ChooseAgents(n, what, nil) }

// ChooseAgents implements sim.AgentChooser.
func (p *porRun) ChooseAgents(n int, what string, agents []sim.Agent) int {
	var ags []porAgent
	if agents != nil && what != "nmi-skid" && p.m != nil {
		ags = make([]porAgent, len(agents))
		for i, a := range agents {
			ags[i] = p.agentOf(a)
		}
	}
	// The fragment open at the decision: a data choice is inside it; one
	// a step point just opened has not run yet (it runs on if its context
	// is chosen, else it is dropped); any other has run and ends here.
	keep := p.cur
	switch {
	case p.cur == nil:
	case ags == nil:
		p.cur.incomplete("a data choice")
	case p.cur.fresh && what != "tie":
		p.cur = nil
	default:
		p.close()
		keep, p.cur = nil, nil
	}
	var nd *porNode
	if p.i < p.prefix {
		nd = p.s.stack[p.i]
		if nd.n != n || nd.what != what {
			p.err = fmt.Errorf("dpor: decision %d replayed as %q of %d options, was %q of %d: the run is not deterministic", p.i, what, n, nd.what, nd.n)
			panic(porBlocked{})
		}
	} else {
		nd = &porNode{n: n, what: what, agents: ags, sleepIn: append([]porSleeper(nil), p.sleep...), taken: -1}
		for o := 0; o < n; o++ {
			if ags == nil || !asleep(ags[o], nd.sleepIn) {
				nd.taken = o
				break
			}
		}
		if nd.taken < 0 { // every option sleeps
			p.blocked = true
			panic(porBlocked{})
		}
		nd.todo = make([]bool, n)
		nd.todo[nd.taken] = true
		if ags != nil {
			if nd.irqOpt = ownInterrupts(what, agents); nd.irqOpt != nil {
				nd.irqRan = make([]bool, n)
			}
		}
		p.s.stack = append(p.s.stack, nd)
	}
	p.i++
	p.sleep = append(append(p.sleep[:0:0], nd.sleepIn...), nd.done...)
	d := nd.taken
	nd.seg = nd.seg[:0]
	nd.pos = len(p.frags)
	switch {
	case ags == nil:
		p.cur = keep
		if keep != nil {
			nd.seg = append(nd.seg, keep)
		}
	case keep != nil && ags[d] == keep.agent:
		p.cur = keep // the step point's own context runs on
		nd.seg = append(nd.seg, keep)
	case keep != nil && keep.fresh:
		keep.dropped = true // another context runs: this one never did
	}
	p.last = nd
	return d
}

// ownInterrupts marks the options of a step point that take the stepping
// CPU's own NMI or irq; nil when it has none.
func ownInterrupts(what string, agents []sim.Agent) []bool {
	if what == "tie" || len(agents) == 0 {
		return nil
	}
	var own []bool
	for i, a := range agents {
		if a.Lane() == agents[0].Lane() && (a.Kind() == sim.AgentNMI || a.Kind() == sim.AgentIRQ) {
			if own == nil {
				own = make([]bool, len(agents))
			}
			own[i] = true
		}
	}
	return own
}

// agentOf maps a decision's agent to a context.
func (p *porRun) agentOf(a sim.Agent) porAgent {
	switch a.Kind() {
	case sim.AgentNMI:
		return porAgent{a.Lane(), cpu.CtxNMI}
	case sim.AgentIRQ:
		return porAgent{a.Lane(), cpu.CtxIRQ}
	}
	if a.Lane() >= len(p.m.CPUs) {
		return porAgent{a.Lane(), cpu.CtxTask} // a lane of no CPU (Other)
	}
	return porAgent{a.Lane(), p.m.CPUs[a.Lane()].Context()}
}

// fragmentStart is the step point (or handler entry) the fragment a
// boundary opens counts as starting at: the boundary's own label for a step
// point or an entry, remembered per thread and per interrupt context; for
// the rest of a fragment the context was in, the label it started at (a
// thread's first fragment: "start:NAME").
func fragmentStart(task map[*cpu.Thread]string, irq map[porAgent]string, kind cpu.BoundaryKind, ag porAgent, th *cpu.Thread, label string) string {
	switch kind {
	case cpu.BoundaryStep, cpu.BoundaryEnter:
		if ag.ctx == cpu.CtxTask {
			task[th] = label
		} else {
			irq[ag] = label
		}
		return label
	}
	if ag.ctx != cpu.CtxTask {
		return irq[ag]
	}
	start, ok := task[th]
	if !ok && th != nil {
		start = "start:" + th.Name // the thread's first fragment
		task[th] = start
	}
	return start
}

// Boundary implements cpu.SegmentListener.
func (p *porRun) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	ag := porAgent{c.ID, ctx}
	if kind == cpu.BoundaryStep && ctx == cpu.CtxTask {
		p.endUntil(th, label)
	}
	start := fragmentStart(p.task, p.irq, kind, ag, th, label)
	p.close()
	ev := &porEvent{agent: ag, start: start, complete: start != "" && cpu.IsComplete(start), fresh: kind == cpu.BoundaryStep}
	if !ev.complete && ctx == cpu.CtxTask && th != nil {
		p.openUntil(th, ev, kind == cpu.BoundaryStep)
	}
	// Every fragment looks at its CPU's pending interrupts and at which
	// lanes are due (a post from another lane can make one due now).
	// Since a handler's entry writes its CPU's pending (cpu.runHandler), no
	// fragment of a CPU's task is ever independent of that CPU's NMI or
	// irq: the reduction is between CPUs only, and a one-CPU scenario
	// (aux-pause-resume-nmi, pmu-overflow-vs-sched-out) runs its whole
	// tree whatever is declared. Relaxing this for NMIs (which no task
	// fragment masks) must then add the lane's clock as an access: a resume
	// fragment moves it (cpu.go: the boundary after c.clock = now) and a
	// handler reads it (a sample's time), so an NMI taken before and after
	// a time advance differ.
	ev.acc = append(ev.acc, porAccess{key: "cpu" + itoa(c.ID), field: "pending"}, porAccess{key: "machine", field: "posts"})
	ev.cont = kind == cpu.BoundaryExit || kind == cpu.BoundaryResume
	p.open(ev)
}

// Other implements cpu.OtherListener: a lane that is no CPU's (the
// runner's outcome sampler) runs code nobody annotated, a fragment of its
// own agent that touches everything.
func (p *porRun) Other(lane int, name string) {
	p.close()
	p.open(&porEvent{agent: porAgent{lane, cpu.CtxTask}, start: "other:" + name, why: "a lane of no CPU (" + name + "): reads what it likes"})
}

// open makes ev the current fragment, the run's next, in the last
// decision's segment; a fragment of a sleeping agent stops the run.
func (p *porRun) open(ev *porEvent) {
	p.cur = ev
	ev.seq = len(p.frags)
	p.frags = append(p.frags, ev)
	if p.log != nil {
		*p.log = append(*p.log, ev)
	}
	if p.last != nil {
		p.last.seg = append(p.last.seg, ev)
	}
	if asleep(ev.agent, p.sleep) && p.i >= p.prefix {
		p.blocked = true
		panic(porBlocked{})
	}
}

// Touch implements cpu.SegmentListener.
func (p *porRun) Touch(obj any, field string, write bool) { p.access(obj, field, write, false) }

// TouchAdd implements cpu.AddListener: an add that commutes with other adds.
func (p *porRun) TouchAdd(obj any, field string) { p.access(obj, field, false, true) }

// access records one access of the current fragment.
func (p *porRun) access(obj any, field string, write, add bool) {
	if p.cur == nil {
		return // before any CPU runs (the build)
	}
	p.cur.fresh = false
	if !p.cur.complete && !p.cur.pending {
		// it counts as touching everything: what it touches is never looked
		// at (porDependent), but for the engine's writes
		if write && (field == "pending" || field == "posts") { // the field first: a key may cost a name's formatting
			if key, ok := cpu.FootprintKey(obj); ok && porEngineField(key, field) {
				p.cur.eng = append(p.cur.eng, porAccess{key: key, field: field, write: true})
			}
		}
		return
	}
	if u, ok := obj.(cpu.Unaudited); ok {
		p.cur.incomplete("reaches " + string(u) + ", whose code nobody annotated")
		return
	}
	key, ok := cpu.FootprintKey(obj)
	if !ok { // no name that holds in another replay
		p.cur.incomplete(fmt.Sprintf("%s of a %T, no stable key", field, obj))
		return
	}
	p.cur.touch(porAccess{key: key, field: field, write: write, add: add})
}

// close ends the current fragment: the sleepers it depends on wake.
func (p *porRun) close() {
	if p.cur == nil {
		return
	}
	if !p.cur.pending {
		p.s.countFragment(p.cur) // a pending one is counted when it ends (endUntil)
	}
	kept := p.sleep[:0]
	for _, s := range p.sleep {
		if !porDependent(s.ev, p.cur) {
			kept = append(kept, s)
		}
	}
	p.sleep = kept
}

func itoa(i int) string { return fmt.Sprint(i) }

// exploreDPOR is the dpor strategy on a scenario: the walk, one schedule
// at a time (a schedule's successor depends on it), each judged as the
// other strategies judge theirs; a blocked schedule is not judged.
func exploreDPOR(f *scenarios.File, o Options, ex *Result) error {
	s := &porSearch{}
	defer func() { ex.PORBlocked, ex.Footprints = s.Blocked, s.footprints(f.NumCPUs()) }()
	ex.initCoverage(f, o)
	for {
		if o.stopped() {
			ex.Interrupted = true
			break
		}
		if ex.Schedules+s.Blocked >= o.Runs {
			break // --runs ends the walk first: not exhaustive
		}
		p := s.newRun()
		cov := newCovChooser(p)
		r, res, blocked, interrupted, err := runPOR(f, o, p, cov)
		if err != nil {
			return err
		}
		if interrupted {
			ex.Interrupted = true
			break
		}
		if blocked {
			s.Blocked++
		} else {
			ex.count(res)
			ex.tally(r, ex.Schedules)
			ex.Coverage.add(cov, ex.Schedules)
			if o.Progress != nil {
				o.Progress(ex.Schedules, o.Runs)
			}
			if sig := signature(r, res); sig != "" {
				found, err := shrink(f, o, r.Decisions(), sig)
				if err != nil {
					return err
				}
				found.Schedule = ex.Schedules
				ex.Found = found
				return nil
			}
		}
		if !s.next(p) {
			ex.Exhausted = true
			ex.CompleteUpTo = ex.MostDisturbing
			break
		}
	}
	return nil
}

// runPOR runs one schedule of the walk: built, the listener attached,
// executed; blocked when the walk stopped it.
func runPOR(f *scenarios.File, o Options, p *porRun, ch sim.Chooser) (r *runner.Run, res *runner.Result, blocked, interrupted bool, err error) {
	if o.stopped() {
		return nil, nil, false, true, nil
	}
	r, err = runner.Build(f, o.runOptions(interruptible{ch, &o}, false))
	if err != nil {
		return nil, nil, false, false, err
	}
	p.attach(r.M)
	stopped, blocked, err := executePOR(r)
	if p.err != nil {
		return nil, nil, false, false, p.err
	}
	if err != nil || stopped || blocked {
		return nil, nil, blocked, stopped, err
	}
	return r, r.Result(), false, false, nil
}

// executePOR executes a built run, stopped by the walk (blocked) or by an
// interruption.
func executePOR(r *runner.Run) (stopped, blocked bool, err error) {
	defer func() {
		if x := recover(); x != nil {
			switch x.(type) {
			case porBlocked:
				blocked = true
			case stopRun:
				stopped = true
			default:
				panic(x)
			}
			err = nil
			r.M.Close()
		}
	}()
	return false, false, r.Execute()
}

// porWalk runs the walk over run, which builds a machine whose engine asks
// ch, calls attach on it before it runs, runs it and keeps what it wants of
// a schedule that ran to its end (blocked ones panic out of run and are
// not kept). It returns the search (Runs, Blocked) and whether the walk
// finished within maxRuns schedules: exhaustive.
func porWalk(maxRuns int, run func(ch sim.Chooser, attach func(*cpu.Machine))) (*porSearch, bool, error) {
	s := &porSearch{}
	for s.Runs < maxRuns {
		p := s.newRun()
		func() {
			defer func() {
				if x := recover(); x != nil {
					if _, ok := x.(porBlocked); !ok {
						panic(x)
					}
					s.Blocked++
					if p.m != nil {
						p.m.Close()
					}
				}
			}()
			run(p, p.attach)
		}()
		if p.err != nil {
			return s, false, p.err
		}
		if !s.next(p) {
			return s, true, nil
		}
	}
	return s, false, nil
}
