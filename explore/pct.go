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
// every CPU's NMI and irq line (sim.Agent). Each agent gets a random
// priority, distinct from the others', when first seen, above Depth; at
// every decision that names its options' agents (a step point: run on, take
// the NMI, take the irq, let a tied CPU run; a tie between CPUs; an NMI's
// skid) the option whose agent has the highest priority is taken. Depth-1
// change points k_1..k_{d-1} are drawn independently and uniformly from the
// decisions [0, Horizon): at the c-th decision that is one (in the run's
// order; two drawn at one decision count as one), the agent that asked
// (option 0, the CPU that runs on) drops to priority Depth-c, below every
// other agent and below those lowered before it, so from there its pending
// interrupts land and tied CPUs go first. That is the paper's scheduler
// (its k_i lowers its thread to priority i) where the k_i fall in
// decreasing order, the order the guarantee needs: a later change goes
// below an earlier one (CPU A runs, then B, then A again: A is lowered,
// then B below A; lowering B to a priority above A's would leave B
// running, and no later change point at a decision of B would let A back
// in). A decision that names no agents (select_task_rq, idle_balance, an
// unwinder's fault) takes the quiet option 0, or a random other option at a
// change point. Priorities, change points and options come from the seed
// alone (splitmix64, as Random), so the same seed gives the same schedule.
//
// The guarantee (PCTGuarantee): call a bug of depth d' one that every run
// shows in which some agent a starts with the highest priority and the
// change points are d'-1 given decisions s_1 < ... < s_{d'-1} < Horizon
// (the paper's d'-1 ordering constraints after the first, each met by
// lowering the agent that asks there). A schedule gets a first with
// probability at least 1/n, n the agents the scenario has (the priorities
// are exchangeable, and those of agents a run never names do not matter),
// and, for 2 <= d' <= d, change points at exactly those decisions with
// probability at least 1/k^(d-1), k = Horizon (every k_i falls on one of
// them, each at least once: one way at least, (d-1)! ways when d' = d).
// So each schedule finds a bug of depth 2..d (depth 1 when d = 1) with
// probability at least 1/(n*k^(d-1)), the paper's Theorem 1.
type PCT struct {
	g      *sim.Random
	depth  int
	change []int // decision indices of the change points, sorted
	pos    int   // decisions asked so far
	next   int   // change[next] is the next change point
	rank   int   // change points passed, drawn at one decision counting as one
	prio   map[sim.Agent]uint64
	used   map[uint64]bool // the priorities given
}

// NewPCT returns the PCT chooser of seed for depth (at least 1) over horizon
// decisions (at least 1).
func NewPCT(seed uint64, horizon, depth int) *PCT {
	depth = max(depth, 1)
	horizon = max(horizon, 1)
	p := &PCT{g: sim.NewRandom(seed), depth: depth, prio: map[sim.Agent]uint64{}, used: map[uint64]bool{}}
	// The paper's k_1..k_{d-1}: independent, uniform over the decisions.
	for range depth - 1 {
		p.change = append(p.change, int((p.g.Uint64()>>32)*uint64(horizon)>>32))
	}
	sort.Ints(p.change)
	return p
}

// atChange reports whether decision i is a change point, and which (1-based,
// in the run's order; change points drawn at one decision count as one).
func (p *PCT) atChange(i int) int {
	at := false
	for p.next < len(p.change) && p.change[p.next] <= i {
		at = at || p.change[p.next] == i
		p.next++
	}
	if !at {
		return 0
	}
	p.rank++
	return p.rank
}

func (p *PCT) priority(a sim.Agent) uint64 {
	if v, ok := p.prio[a]; ok {
		return v
	}
	for {
		v := uint64(p.depth) + 1 + p.g.Uint64()>>8
		if !p.used[v] { // distinct: a strict order, each equally likely
			p.used[v] = true
			p.prio[a] = v
			return v
		}
	}
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
		p.prio[agents[0]] = uint64(p.depth - c)
	}
	best := 0
	for j := 1; j < len(agents); j++ {
		if p.prio[agents[j]] > p.prio[agents[best]] {
			best = j
		}
	}
	return best
}

// PCTGuarantee is the probability bound PCT at depth d gives for a bug of
// depth 2..d (depth 1 when d is 1) among n agents over k decisions:
// 1/(n*k^(d-1)) (see PCT).
func PCTGuarantee(n, k, d int) float64 {
	return 1 / (float64(max(n, 1)) * math.Pow(float64(max(k, 1)), float64(max(d, 1)-1)))
}

// quietProbe counts the decisions of a run. With cpuFirst it lets the CPU
// run on wherever an option does (an NMI's skid is held to its end), so
// pending interrupts wait as long as they can: the run with the most step
// points where one could land.
type quietProbe struct {
	decisions int
	cpuFirst  bool
}

func (q *quietProbe) Choose(n int, what string) int { q.decisions++; return 0 }

func (q *quietProbe) ChooseAgents(n int, what string, agents []sim.Agent) int {
	q.decisions++
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
// point it could land at) and the agents the scenario has (n): each CPU,
// its NMI line and its irq line, and every other lane of the engine (the
// sampler of "at TIME" outcomes), which ties can name.
func measureQuiet(f *scenarios.File, o Options) (decisions, agents int, err error) {
	for _, cpuFirst := range []bool{false, true} {
		q := &quietProbe{cpuFirst: cpuFirst}
		r, _, err := runner.RunOnce(f, o.runOptions(q, false))
		if err != nil && !runner.IsLimit(err) {
			return 0, 0, err
		}
		decisions = max(decisions, q.decisions)
		if r != nil {
			cpus := len(r.M.CPUs)
			agents = 3*cpus + len(r.M.Eng.Lanes()) - cpus
		}
	}
	return decisions, agents, nil
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
	depths, points := fmt.Sprintf("2..%d", ex.Depth), "change points fall"
	switch ex.Depth {
	case 1:
		depths = "1"
	case 2:
		depths, points = "2", "change point falls"
	}
	return fmt.Sprintf("PCT depth %d: n = %d agents (each CPU, its NMI and its irq line; the outcome sampler), k = %d decisions (of the quiet or CPU-first run, where its %d %s): each schedule finds a bug of depth %s (an agent first, then up to %d lowered at given decisions) with probability >= 1/(n*k^%d) = %.3g",
		ex.Depth, ex.PCTAgents, ex.PCTSteps, ex.Depth-1, points, depths, ex.Depth-1, ex.Depth-1, PCTGuarantee(ex.PCTAgents, ex.PCTSteps, ex.Depth))
}
