package explore

import (
	"sort"

	"perfsim/sim"
)

// Sparse is the seeded sparse strategy. Where Random flips a coin at every
// decision (and so spends a budget of disturbances early), Sparse plans each
// schedule up front: a small number k of disturbances (1..Max, each larger k
// half as likely as the one before), each at a decision index drawn uniformly
// from [0, Horizon) or, for half of those after the first, close behind the one
// drawn before (clusterOffset), with a random non-zero option; every other
// decision is 0, the undisturbed course. Horizon is meant to be the number of decisions of the
// quiet run (all zeros), so a disturbance lands anywhere along the path, deep
// inside it as likely as at its start. Indices are counted as the run asks its
// questions, as in a dense decision list. It owns its generator (splitmix64,
// as Random), so a schedule depends on its seed, Horizon and Max only.
type Sparse struct {
	plan []sparsePick // by index, distinct indices
	pos  int          // decisions asked so far
}

type sparsePick struct {
	at  int
	raw uint64 // the option's draw, mapped to [1, n) when asked
}

// NewSparse returns the Sparse chooser of seed over horizon decisions with at
// most max disturbances (max <= 0: 4; horizon <= 0: 1).
func NewSparse(seed uint64, horizon, max int) *Sparse {
	if max <= 0 {
		max = 4
	}
	if horizon <= 0 {
		horizon = 1
	}
	g := sim.NewRandom(seed)
	k := 1
	for k < max && g.Uint64()&1 == 1 {
		k++
	}
	s := &Sparse{}
	seen := map[int]bool{}
	prev := 0
	for i := 0; i < k; i++ {
		at := int((g.Uint64() >> 32) * uint64(horizon) >> 32)
		if i > 0 && g.Uint64()&1 == 1 {
			at = prev + clusterOffset(g)
		}
		prev = at
		raw := g.Uint64()
		if seen[at] { // two draws at one index: one disturbance
			continue
		}
		seen[at] = true
		s.plan = append(s.plan, sparsePick{at: at, raw: raw})
	}
	sort.Slice(s.plan, func(i, j int) bool { return s.plan[i].at < s.plan[j].at })
	return s
}

// ClusterSpan bounds how far after the disturbance drawn before it a clustered
// disturbance lands.
const ClusterSpan = 128

// clusterOffset draws 1..ClusterSpan, log-uniformly (an order of magnitude as
// likely as the next). Half the disturbances after the first are placed this
// close behind the one drawn before: the pairs a race needs, such as an NMI
// held by its skid ("nmi-skid") and then taken a few dozen step points later
// in the path that follows, are two decisions that must line up, and the run's
// questions after the first one are not those of the quiet run that Horizon
// measures.
func clusterOffset(g *sim.Random) int {
	e := g.Uint64() % 8 // 2^e: 1 .. 128
	return 1 + int(g.Uint64()%(uint64(1)<<e))
}

func sparseOption(raw uint64, n int) int {
	return 1 + int((raw>>32)*uint64(n-1)>>32)
}

// Choose implements Chooser.
func (s *Sparse) Choose(n int, what string) int {
	i := s.pos
	s.pos++
	for len(s.plan) > 0 && s.plan[0].at < i {
		s.plan = s.plan[1:]
	}
	if len(s.plan) == 0 || s.plan[0].at != i {
		return 0
	}
	p := s.plan[0]
	s.plan = s.plan[1:]
	return sparseOption(p.raw, n)
}
