package explore

import (
	"fmt"
	"math"
	"sort"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// PCT is probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi
// and Nagarakatte, "A randomized scheduler with probabilistic guarantees of
// finding bugs", ASPLOS 2010) over the agents of the model: every CPU and
// every CPU's NMI and irq line (sim.Agent). Each agent gets a random priority
// when first seen, above Depth; at every decision that names its options'
// agents (a step point: run on, take the NMI, take the irq, let a tied CPU
// run; a tie between CPUs; an NMI's skid) the option whose agent has the
// highest priority is taken. Depth-1 change points are drawn uniformly from
// the decisions [0, Horizon): at the i-th, the agent that asked (option 0,
// the CPU that runs on) drops to priority i, below every other, so from there
// its pending interrupts land and tied CPUs go first. A decision that names
// no agents (select_task_rq, idle_balance, an unwinder's fault) takes the
// quiet option 0, or a random other option at a change point. Priorities,
// change points and options come from the seed alone (splitmix64, as Random),
// so the same seed gives the same schedule.
//
// The guarantee (the paper's Theorem 1, for a bug of depth d among n agents
// and k steps): each schedule finds it with probability at least
// 1/(n*k^(d-1)). Here n and k are measured on the scenario's quiet run
// (PCTGuarantee).
type PCT struct {
	g      *sim.Random
	depth  int
	change []int // decision indices of the change points, sorted
	pos    int   // decisions asked so far
	next   int   // change[next] is the next change point
	prio   map[sim.Agent]uint64
}

// NewPCT returns the PCT chooser of seed for depth (at least 1) over horizon
// decisions (at least 1).
func NewPCT(seed uint64, horizon, depth int) *PCT {
	depth = max(depth, 1)
	horizon = max(horizon, 1)
	p := &PCT{g: sim.NewRandom(seed), depth: depth, prio: map[sim.Agent]uint64{}}
	for range depth - 1 {
		p.change = append(p.change, int((p.g.Uint64()>>32)*uint64(horizon)>>32))
	}
	sort.Ints(p.change)
	return p
}

// atChange reports whether decision i is a change point, and which (1-based).
func (p *PCT) atChange(i int) int {
	for p.next < len(p.change) && p.change[p.next] < i {
		p.next++
	}
	if p.next < len(p.change) && p.change[p.next] == i {
		p.next++
		return p.next // two change points at one decision count as the later
	}
	return 0
}

func (p *PCT) priority(a sim.Agent) uint64 {
	v, ok := p.prio[a]
	if !ok {
		v = uint64(p.depth) + 1 + p.g.Uint64()>>8
		p.prio[a] = v
	}
	return v
}

// Choose implements sim.Chooser for a decision that names no agents.
func (p *PCT) Choose(n int, what string) int {
	i := p.pos
	p.pos++
	if p.atChange(i) > 0 {
		return 1 + int((p.g.Uint64()>>32)*uint64(n-1)>>32)
	}
	return 0
}

// ChooseAgents implements sim.AgentChooser: the highest priority agent runs.
func (p *PCT) ChooseAgents(n int, what string, agents []sim.Agent) int {
	i := p.pos
	p.pos++
	for _, a := range agents {
		p.priority(a) // first seen: its random priority, in the order asked
	}
	if c := p.atChange(i); c > 0 {
		p.prio[agents[0]] = uint64(c)
	}
	best := 0
	for j := 1; j < len(agents); j++ {
		if p.prio[agents[j]] > p.prio[agents[best]] {
			best = j
		}
	}
	return best
}

// PCTGuarantee is the probability bound PCT gives for a bug of depth d among
// n agents over k steps: 1/(n*k^(d-1)).
func PCTGuarantee(n, k, d int) float64 {
	return 1 / (float64(max(n, 1)) * math.Pow(float64(max(k, 1)), float64(max(d, 1)-1)))
}

// quietProbe counts the decisions of a run and the agents they named. With
// cpuFirst it lets the CPU run on wherever an option does (an NMI's skid is
// held to its end), so pending interrupts wait as long as they can: the run
// with the most step points where one could land.
type quietProbe struct {
	decisions int
	agents    map[sim.Agent]bool
	cpuFirst  bool
}

func (q *quietProbe) Choose(n int, what string) int { q.decisions++; return 0 }

func (q *quietProbe) ChooseAgents(n int, what string, agents []sim.Agent) int {
	q.decisions++
	for _, a := range agents {
		q.agents[a] = true
	}
	if q.cpuFirst {
		for i, a := range agents {
			if a.Kind() == sim.AgentCPU {
				return i
			}
		}
	}
	return 0
}

// measureQuiet runs f's quiet schedule (every decision 0) and its CPU-first
// schedule (see quietProbe), neither counted among the schedules, and
// returns the larger number of decisions (PCT's k: where an interrupt is
// taken at once in the quiet run, the CPU-first run has a step for each
// point it could land at) and the distinct agents (n).
func measureQuiet(f *scenarios.File, o Options) (decisions, agents int, err error) {
	seen := map[sim.Agent]bool{}
	for _, cpuFirst := range []bool{false, true} {
		q := &quietProbe{agents: seen, cpuFirst: cpuFirst}
		if _, _, err := runner.RunOnce(f, o.runOptions(q, false)); err != nil && !runner.IsLimit(err) {
			return 0, 0, err
		}
		decisions = max(decisions, q.decisions)
	}
	return decisions, len(seen), nil
}

// explorePCT runs seeds Seed..Seed+Runs-1 of PCT at depth o.Depth over the
// quiet run's decisions.
func explorePCT(f *scenarios.File, o Options, ex *Result) error {
	k, n, err := measureQuiet(f, o)
	if err != nil {
		return err
	}
	ex.Depth, ex.PCTAgents, ex.PCTSteps = o.Depth, n, k
	return exploreSeeds(f, o, ex, func(seed uint64) sim.Chooser { return NewPCT(seed, k, o.Depth) })
}

// pctText is the line explore prints for a PCT search: the guarantee for
// the scenario's size.
func (ex *Result) pctText() string {
	p := PCTGuarantee(ex.PCTAgents, ex.PCTSteps, ex.Depth)
	return fmt.Sprintf("PCT depth %d: n = %d agents (CPUs and their NMI and irq lines), k = %d steps (decisions of the quiet or CPU-first run): each schedule finds a bug of depth <= %d with probability >= 1/(n*k^%d) = %.3g",
		ex.Depth, ex.PCTAgents, ex.PCTSteps, ex.Depth, ex.Depth-1, p)
}
