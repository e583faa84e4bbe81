package explore

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"perfsim/cpu"
	"perfsim/sim"
)

// Component-wise checking: when the CPUs of a run are independent (no
// object one CPU's code touches is written by another's, no interrupt
// raised or timer armed across CPUs, no thread that changes CPU), every
// interleaving of their fragments ends in the same per-CPU states, so a
// search need not try the CPUs' orders at all: it walks each CPU's own
// decisions (its NMI or irq taken here or not, a skid held or not, a data
// choice inside its code) and runs the k-th path of every CPU's own tree in
// schedule k. Schedules = the largest CPU's tree, whatever the number of
// CPUs; summed over the CPUs if they were walked one at a time. No
// partial-order search can do this in general: C CPUs with 4 final states
// each have 4^C global classes, and one schedule per class is exponential.
// It answers only per-CPU questions: the set of final states each CPU
// reaches (and so every property of one CPU's state); a property of the
// combination (a sum compared to a bound) is not one of them.
//
// The claim rests on independence, and independence is checked, never
// assumed: the walk is a guard over every schedule it runs, and the first
// of these refuses the component-wise claim (Refused says which and
// where; the caller falls back to the dpor walk, or the full tree):
//
//   - a fragment whose start is not declared complete (cpu.DeclareComplete):
//     its code may touch what no annotation says; or, declared complete up
//     to some step points (cpu.DeclareCompleteUntil), one that ends at
//     another; or one that reaches a path marked unaudited (cpu.CPU.Unaudited);
//   - an access to an object with no stable key (cpu.FootprintKey);
//   - an object written by one CPU's code and touched by another's, over
//     every schedule run so far (ownership is kept across schedules: a key
//     CPU 0 touched in schedule 1 and CPU 1 writes in schedule 9 is shared);
//     or added to (cpu.AtomicAdd) by one CPU's code and read by another's.
//     Only adds from several CPUs are allowed: no CPU looks at the sum, so
//     none depends on the others' adds (the sum itself is a property of the
//     combination, which the walk does not answer);
//   - a post across CPUs ("machine" "posts": an interrupt raised, a timer
//     armed, irq_work queued on another CPU), or any synchronisation
//     (CPU.Release/Acquire) on a key two CPUs use, which is an access too;
//   - a thread whose fragments run on two CPUs (migration: its own state
//     would carry from one CPU's code to another's);
//   - a decision with options of two CPUs other than the engine's pure
//     orders (a "tie" of lanes, a step point's tied lanes after its own
//     options), or a data choice with no fragment to own it;
//   - a CPU's own decisions replayed differently (the same path of its
//     tree met as other decisions): its code depends on something else.
//
// Why that is enough: take any schedule of the machine. Induction on its
// fragments: each fragment of CPU i starts after a path of CPU i's own
// decisions that the walk ran (its tree has every option of every own
// decision), from the same values of every key CPU i touches (no other CPU
// wrote them: their fragments were ones the walk ran, whose footprints are
// owned), so it runs as it ran in the walk, with a complete footprint that
// the walk checked. The order of fragments of different CPUs then changes
// nothing any CPU reads, and each CPU ends in a state the walk reached.

// compTree is one CPU's own decision tree, walked depth first.
type compTree struct {
	stack []compNode
	done  bool // every path run
	paths int  // paths run (schedules in which this CPU ran a new path)
}

type compNode struct {
	n, taken int
	what     string
}

// compSearch is the component-wise walk over every CPU's tree.
type compSearch struct {
	trees   []*compTree
	readers map[string]uint64 // key -> CPUs that read or wrote it (a bit each)
	writers map[string]uint64 // key -> CPUs that wrote it
	adders  map[string]uint64 // key -> CPUs that added to it (cpu.AtomicAdd)
	home    map[string]int    // thread -> its CPU
	Runs    int
	// Refused says why the walk cannot claim independence; "" while it can.
	Refused string
	// survey: record every refusal reason instead of stopping at the first.
	survey  bool
	reasons map[string]int
}

// compRefused stops a run the guard refused.
type compRefused struct{}

// compRun is one schedule of the component-wise walk.
type compRun struct {
	s    *compSearch
	m    *cpu.Machine
	idx  []int // per CPU: its next own decision
	lane int   // the CPU whose fragment is open; -1 none yet (the build)
	task map[*cpu.Thread]string
	irq  map[porAgent]string
	// until: a task's open fragment declared complete only up to some
	// step points (cpu.DeclareCompleteUntil): its start and those ends.
	until untilFragments
	start string // the open fragment's start
}

func newCompSearch() *compSearch {
	return &compSearch{readers: map[string]uint64{}, writers: map[string]uint64{}, adders: map[string]uint64{}, home: map[string]int{}, reasons: map[string]int{}}
}

func (s *compSearch) newRun() *compRun {
	s.Runs++
	for _, t := range s.trees {
		if t.done {
			t.stack = t.stack[:0] // any own path will do: the first
		}
	}
	return &compRun{s: s, lane: -1, task: map[*cpu.Thread]string{}, irq: map[porAgent]string{}, until: untilFragments{}}
}

// attach installs the run on m before it runs.
func (p *compRun) attach(m *cpu.Machine) {
	p.m = m
	if p.s.trees == nil {
		for range m.CPUs {
			p.s.trees = append(p.s.trees, &compTree{})
		}
	}
	if len(m.CPUs) != len(p.s.trees) || len(m.CPUs) > 64 {
		p.refuse(fmt.Sprintf("the machine has %d CPUs (the walk began with %d; at most 64)", len(m.CPUs), len(p.s.trees)))
	}
	p.idx = make([]int, len(m.CPUs))
	m.OnSegments(p)
}

// refuse records why independence cannot be claimed and, unless surveying,
// stops the run.
func (p *compRun) refuse(why string) {
	if p.s.Refused == "" {
		p.s.Refused = why
	}
	p.s.reasons[why]++
	if !p.s.survey {
		panic(compRefused{})
	}
}

// Other implements cpu.OtherListener: a lane of no CPU (the outcome
// sampler) reads every CPU's state.
func (p *compRun) Other(lane int, name string) {
	p.refuse(fmt.Sprintf("a lane of no CPU (%s) runs: it reads every CPU's state", name))
}

// Boundary implements cpu.SegmentListener: a fragment of c starts; its
// start must be declared complete, and a thread stays on its CPU.
func (p *compRun) Boundary(c *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, th *cpu.Thread, label string) {
	p.lane = c.ID
	taskStep := kind == cpu.BoundaryStep && ctx == cpu.CtxTask && th != nil
	if taskStep {
		if u, atEnd := p.until.end(th, label); u != nil && !atEnd {
			p.refuse(fmt.Sprintf("fragment %s ended at %s, not at one of its declared ends %v (cpu.DeclareCompleteUntil)", u.start, label, u.ends))
		}
	}
	start := fragmentStart(p.task, p.irq, kind, porAgent{c.ID, ctx}, th, label)
	p.start = start
	complete := start != "" && cpu.IsComplete(start)
	if taskStep && !complete {
		p.until.open(th, start)
	}
	if th != nil && ctx == cpu.CtxTask {
		if h, ok := p.s.home[th.Name]; !ok {
			p.s.home[th.Name] = c.ID
		} else if h != c.ID {
			p.refuse(fmt.Sprintf("thread %s runs on cpu%d and cpu%d", th.Name, h, c.ID))
		}
	}
	_, until := p.until[th]
	if !complete && !(until && ctx == cpu.CtxTask) {
		if start == "" {
			start = fmt.Sprintf("(a %s fragment with no start)", ctx)
		}
		p.refuse(fmt.Sprintf("fragment %s: not declared complete (cpu.DeclareComplete)", start))
	}
}

// Touch implements cpu.SegmentListener: the access's key must be owned by
// the CPU whose code makes it.
func (p *compRun) Touch(obj any, field string, write bool) { p.access(obj, field, write, false) }

// TouchAdd implements cpu.AddListener: an add, which commutes with the
// adds of other CPUs but not with their reads.
func (p *compRun) TouchAdd(obj any, field string) { p.access(obj, field, false, true) }

// access checks one access: its key must be one the CPU making it owns,
// or one every CPU only adds to.
func (p *compRun) access(obj any, field string, write, add bool) {
	if p.lane < 0 {
		return // the build: before any CPU runs, nothing is interleaved
	}
	if l := p.m.Eng.Running(); l == nil || l.ID != p.lane {
		p.refuse(fmt.Sprintf("%s accessed outside any CPU's fragment", field))
		return
	}
	if u, ok := obj.(cpu.Unaudited); ok {
		p.refuse(fmt.Sprintf("fragment %s: reaches %s, whose code nobody annotated (cpu.CPU.Unaudited)", p.start, string(u)))
		return
	}
	key, ok := cpu.FootprintKey(obj)
	if !ok {
		p.refuse(fmt.Sprintf("%s of a %T: no stable key (cpu.FootprintKey)", field, obj))
		return
	}
	if key == "machine" && field == "posts" {
		p.refuse(fmt.Sprintf("cpu%d posts to another CPU (an interrupt raised, a timer armed or irq_work queued there)", p.lane))
		return
	}
	bit := uint64(1) << p.lane
	r, w, a := p.s.readers[key], p.s.writers[key], p.s.adders[key]
	switch {
	case add:
		a |= bit
	case write:
		r, w = r|bit, w|bit
	default:
		r |= bit
	}
	p.s.readers[key], p.s.writers[key], p.s.adders[key] = r, w, a
	switch all := r | a; {
	case w != 0 && bits.OnesCount64(all) > 1:
		p.refuse(fmt.Sprintf("%s (%s) is touched by %s and written by %s", key, field, cpuSet(all), cpuSet(w)))
	case a != 0 && r != 0 && bits.OnesCount64(all) > 1:
		p.refuse(fmt.Sprintf("%s (%s) is added to by %s and read by %s", key, field, cpuSet(a), cpuSet(r)))
	}
}

func cpuSet(m uint64) string {
	var s []string
	for m != 0 {
		i := bits.TrailingZeros64(m)
		s = append(s, fmt.Sprintf("cpu%d", i))
		m &^= 1 << i
	}
	return strings.Join(s, ",")
}

// Choose implements sim.Chooser: a data choice, owned by the open fragment's CPU.
func (p *compRun) Choose(n int, what string) int { return p.ChooseAgents(n, what, nil) }

// ChooseAgents implements sim.AgentChooser.
func (p *compRun) ChooseAgents(n int, what string, agents []sim.Agent) int {
	lane, own := p.lane, n
	switch {
	case agents == nil:
		if l := p.m.Eng.Running(); lane < 0 || l == nil || l.ID != lane {
			p.refuse(fmt.Sprintf("decision %q with no CPU's fragment to own it", what))
			return 0
		}
	case what == "tie":
		// The engine's order of lanes due at once: independent lanes
		// commute, so any order will do.
		if !p.pureLanes(agents) {
			p.refuse(fmt.Sprintf("a tie of %v is not one of distinct CPUs", agents))
		}
		return 0
	default:
		// A step point's or a skid's options: this CPU's own (it runs on,
		// its NMI, its irq) first, then the lanes tied with it, which
		// only order independent CPUs. (Choosing a tied lane passes this
		// CPU's step point: it goes on after it later, its interrupt still
		// pending, which for its own state is option 0, "it runs on": so
		// the own options cover it.)
		lane = agents[0].Lane()
		if l := p.m.Eng.Running(); l == nil || l.ID != lane {
			p.refuse(fmt.Sprintf("decision %q of cpu%d taken by code not running there", what, lane))
			return 0
		}
		own = 0
		for own < len(agents) && agents[own].Lane() == lane {
			own++
		}
		if !p.pureLanes(agents[own:]) || slices.ContainsFunc(agents[own:], func(a sim.Agent) bool { return a.Lane() == lane }) {
			p.refuse(fmt.Sprintf("decision %q mixes own options with %v", what, agents[own:]))
			return 0
		}
	}
	if own <= 1 {
		return 0
	}
	t := p.s.trees[lane]
	i := p.idx[lane]
	p.idx[lane]++
	if i < len(t.stack) {
		nd := t.stack[i]
		if nd.n != own || nd.what != what {
			p.refuse(fmt.Sprintf("cpu%d's own decision %d replayed as %q of %d options, was %q of %d: it depends on more than its own decisions", lane, i, what, own, nd.what, nd.n))
			return 0
		}
		return nd.taken
	}
	t.stack = append(t.stack, compNode{n: own, what: what})
	return 0
}

// pureLanes reports whether agents are CPU agents of distinct CPUs (not
// another lane of the engine: the runner's outcome checks read every CPU's
// state at a time, so their order against a CPU is not a CPU's own).
func (p *compRun) pureLanes(agents []sim.Agent) bool {
	var seen uint64
	for _, a := range agents {
		if a.Kind() != sim.AgentCPU || a.Lane() >= len(p.m.CPUs) || seen&(1<<a.Lane()) != 0 {
			return false
		}
		seen |= 1 << a.Lane()
	}
	return true
}

// next moves every CPU's tree to its next path after run p; false when
// every tree is done.
func (s *compSearch) next(p *compRun) bool {
	more := false
	for i, t := range s.trees {
		if t.done {
			continue
		}
		if p.idx[i] != len(t.stack) {
			p.refuse(fmt.Sprintf("cpu%d made %d of its %d own decisions on a replayed path: it depends on more than its own decisions", i, p.idx[i], len(t.stack)))
			return false
		}
		t.paths++
		for len(t.stack) > 0 {
			top := &t.stack[len(t.stack)-1]
			if top.taken+1 < top.n {
				top.taken++
				break
			}
			t.stack = t.stack[:len(t.stack)-1]
		}
		if len(t.stack) == 0 {
			t.done = true
			continue
		}
		more = true
	}
	return more
}

// compWalk runs the component-wise walk over run (as porWalk's): it
// returns the search and whether every CPU's tree was walked within
// maxRuns schedules with independence holding in every one: only then is
// the walk complete. When the guard refuses, s.Refused says why and the
// caller must not claim anything of the runs it kept.
func compWalk(maxRuns int, run func(ch sim.Chooser, attach func(*cpu.Machine))) (*compSearch, bool) {
	s := newCompSearch()
	for s.Runs < maxRuns {
		p := s.newRun()
		func() {
			defer func() {
				if x := recover(); x != nil {
					if _, ok := x.(compRefused); !ok {
						panic(x)
					}
					if p.m != nil {
						p.m.Close()
					}
				}
			}()
			run(p, p.attach)
		}()
		if s.Refused != "" {
			return s, false
		}
		if !s.next(p) {
			return s, s.Refused == ""
		}
	}
	return s, false
}

// compSurvey runs schedules of the walk with the guard recording instead
// of stopping: every reason it would refuse, with how often it met it, in
// the first runs schedules. For a scenario the walk refuses, this is the
// list of what must be annotated, declared or changed before it can run.
func compSurvey(runs int, run func(ch sim.Chooser, attach func(*cpu.Machine))) map[string]int {
	s := newCompSearch()
	s.survey = true
	for s.Runs < runs {
		p := s.newRun()
		run(p, p.attach)
		if !s.next(p) {
			break
		}
	}
	return s.reasons
}
