package sim

import "strconv"

// Agent names who goes on when an option of a decision is taken: a CPU (a
// lane) that runs on, or an interrupt source of a CPU (its NMI line, its irq
// line) whose handler runs. Strategies that reason about who runs rather than
// about option numbers (PCT's priorities, coverage's pairs) read them; the
// decision list, and so every replay token, is the same with or without them.
type Agent uint32

// The kinds of agent.
const (
	AgentCPU  Agent = 0 // the lane itself runs (on, or first)
	AgentNMI  Agent = 1 // the lane's pending NMI is taken
	AgentIRQ  Agent = 2 // the lane's pending irq is taken
	agentKind Agent = 3
)

// CPUAgent is lane's own agent; NMIAgent and IRQAgent its interrupt sources.
func CPUAgent(lane int) Agent { return Agent(lane)<<2 | AgentCPU }

// NMIAgent is the NMI source of lane.
func NMIAgent(lane int) Agent { return Agent(lane)<<2 | AgentNMI }

// IRQAgent is the irq source of lane.
func IRQAgent(lane int) Agent { return Agent(lane)<<2 | AgentIRQ }

// Lane is the lane the agent belongs to; Kind one of AgentCPU, AgentNMI,
// AgentIRQ.
func (a Agent) Lane() int   { return int(a >> 2) }
func (a Agent) Kind() Agent { return a & agentKind }

func (a Agent) String() string {
	switch a.Kind() {
	case AgentNMI:
		return "nmi@cpu" + strconv.Itoa(a.Lane())
	case AgentIRQ:
		return "irq@cpu" + strconv.Itoa(a.Lane())
	}
	return "cpu" + strconv.Itoa(a.Lane())
}

// AgentChooser is a Chooser that is also told, for the decisions where the
// engine knows it, the agent each option lets run (agents[i] for option i,
// len(agents) == n). Choose is still asked for the others.
type AgentChooser interface {
	Chooser
	ChooseAgents(n int, what string, agents []Agent) int
}

// ChooseWith asks ch, passing agents when ch wants them (a wrapper chooser
// forwards with it, so the strategy under it sees them).
func ChooseWith(ch Chooser, n int, what string, agents []Agent) int {
	if agents != nil {
		if a, ok := ch.(AgentChooser); ok {
			return a.ChooseAgents(n, what, agents)
		}
	}
	return ch.Choose(n, what)
}

// AgentsWanter is a Chooser that says whether it reads the agents of its
// next decision: one that answers false chooses the same with or without
// them, so whoever asks may leave them out (a decision between 64 tied CPUs
// need not list 64 agents for a strategy that draws a number).
type AgentsWanter interface {
	WantsAgents() bool
}

// WantsAgents reports whether ch reads agents: what it says when it is an
// AgentsWanter, else whether it is an AgentChooser.
func WantsAgents(ch Chooser) bool {
	switch c := ch.(type) {
	case AgentsWanter:
		return c.WantsAgents()
	case AgentChooser:
		return true
	}
	return false
}

// WantsAgents reports whether the engine's Chooser reads the agents of its
// next decision: when not, callers ask Choose and list none.
func (e *Engine) WantsAgents() bool { return WantsAgents(e.Chooser) }

// ChooseAgents asks the Chooser to pick one of len(agents) options, agents[i]
// being who option i lets run, counting the decision (and a step) as Choose.
func (e *Engine) ChooseAgents(what string, agents []Agent) int {
	e.Decisions++
	e.Tick()
	e.ask(len(agents), what)
	d := ChooseWith(e.Chooser, len(agents), what, agents)
	e.asking = false
	return e.answer(d, len(agents), what)
}

// ChooseAgents implements AgentChooser: Limited forwards the agents.
func (l *Limited) ChooseAgents(n int, what string, agents []Agent) int {
	if l.Budget <= 0 {
		return 0
	}
	d := ChooseWith(l.Inner, n, what, agents)
	if d != 0 {
		l.Budget--
	}
	return d
}

// WantsAgents implements AgentsWanter: Limited asks Inner only while it
// has budget left.
func (l *Limited) WantsAgents() bool { return l.Budget > 0 && WantsAgents(l.Inner) }

// WantsAgents implements AgentsWanter: Recorder forwards.
func (r *Recorder) WantsAgents() bool { return WantsAgents(r.Inner) }

// WantsAgents implements AgentsWanter: a replay ignores the agents.
func (r *Replay) WantsAgents() bool { return false }

// ChooseAgents implements AgentChooser: Recorder forwards the agents.
func (r *Recorder) ChooseAgents(n int, what string, agents []Agent) int {
	d := ChooseWith(r.Inner, n, what, agents)
	r.Decisions = append(r.Decisions, d)
	return d
}

// ChooseAgents implements AgentChooser: a replay ignores the agents.
func (r *Replay) ChooseAgents(n int, what string, agents []Agent) int { return r.Choose(n, what) }
