package runner

import (
	"fmt"

	"perfsim/sim"
)

// decisionLog is the Chooser of a run: it asks the strategy, keeps the decision
// list (the replay token) and, for every disturbing (non-zero) decision, where
// and when it was taken, so a shrunk schedule can be printed as trace lines.
// The list is kept sparse: the number of decisions and the non-zero ones,
// so a run of millions of undisturbed decisions keeps a counter, not a list.
type decisionLog struct {
	inner sim.Chooser
	// settler is inner as a sim.Settler (nil: it is none), asserted once:
	// Settled is asked at nearly every step point of a run with tied CPUs.
	settler sim.Settler
	eng     *sim.Engine
	n       int       // decisions asked
	nz      []nonZero // the non-zero ones, in order
	marks   []Decision
}

// nonZero is a disturbing decision of the sparse list.
type nonZero struct{ at, d int }

// token is the replay token of the decisions so far (sim.EncodeToken of
// dense(), made from the sparse list).
func (l *decisionLog) token() string {
	at, d := make([]int, len(l.nz)), make([]int, len(l.nz))
	for i, z := range l.nz {
		at[i], d[i] = z.at, z.d
	}
	return sim.EncodeSparseToken(at, d)
}

// dense is the decision list, every decision (the replay token's).
func (l *decisionLog) dense() []int {
	out := make([]int, l.n)
	for _, z := range l.nz {
		out[z.at] = z.d
	}
	return out
}

// Decision is one disturbing decision of a schedule.
type Decision struct {
	Index int      // position in the decision list
	T     sim.Time // when it was taken
	CPU   int      // the CPU that asked (-1: the engine, choosing between CPUs)
	What  string   // the question: a step point label, "tie", "select_task_rq:dd"
	N     int      // the number of options
	Pick  int      // the option taken (1..N-1)
}

func (d Decision) String() string {
	where := "engine"
	if d.CPU >= 0 {
		where = sim.LaneName(d.CPU)
	}
	return fmt.Sprintf("%s %s choice  %s: option %d of %d (decision #%d)", d.T.Stamp(), where, d.What, d.Pick, d.N, d.Index)
}

// Choose implements sim.Chooser.
func (l *decisionLog) Choose(n int, what string) int { return l.ChooseAgents(n, what, nil) }

// WantsAgents implements sim.AgentsWanter: the strategy's answer.
func (l *decisionLog) WantsAgents() bool { return sim.WantsAgents(l.inner) }

// ChooseAgents implements sim.AgentChooser: the agents go on to the strategy.
func (l *decisionLog) ChooseAgents(n int, what string, agents []sim.Agent) int {
	d := sim.ChooseWith(l.inner, n, what, agents)
	if d != 0 && len(l.marks) < maxMarks {
		cpu := -1
		if l.eng != nil {
			if run := l.eng.Running(); run != nil {
				cpu = run.ID
			}
		}
		var t sim.Time
		if l.eng != nil {
			t = l.eng.Now()
		}
		l.marks = append(l.marks, Decision{Index: l.n, T: t, CPU: cpu, What: what, N: n, Pick: d})
	}
	if d != 0 {
		l.nz = append(l.nz, nonZero{l.n, d})
	}
	l.n++
	return d
}

// Settled implements sim.Settler: the strategy's answer (a random
// schedule's once its budget is spent).
func (l *decisionLog) Settled() bool { return l.settler != nil && l.settler.Settled() }

// Pass implements sim.Settler: an undisturbed decision, counted as
// ChooseAgents counts one (and passed on to the strategy).
func (l *decisionLog) Pass() {
	l.settler.Pass()
	l.n++
}

// maxMarks bounds how many disturbing decisions are kept for printing: a shrunk
// schedule has a handful, while a long random run (millions of syscalls) would
// otherwise spend most of its time growing this list.
const maxMarks = 4096

// Disturbing returns the disturbing decisions of the run (the first maxMarks).
func (r *Run) Disturbing() []Decision { return r.log.marks }
