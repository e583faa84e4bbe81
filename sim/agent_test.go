package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentsSeen is an AgentChooser that keeps the agents it was given.
type agentsSeen struct{ got [][]Agent }

func (a *agentsSeen) Choose(n int, what string) int { return a.ChooseAgents(n, what, nil) }
func (a *agentsSeen) ChooseAgents(n int, what string, agents []Agent) int {
	a.got = append(a.got, append([]Agent(nil), agents...))
	return n - 1
}

// TestWantsAgents: who asks for the agents of a decision, through the
// wrappers, and Limited out of budget no longer does.
func TestWantsAgents(t *testing.T) {
	seen := &agentsSeen{}
	lim := &Limited{Inner: seen, Budget: 1}
	got := map[string]bool{
		"random":                  WantsAgents(NewRandom(1)),
		"replay":                  WantsAgents(NewReplay(nil)),
		"agent chooser":           WantsAgents(seen),
		"recorder(agent chooser)": WantsAgents(&Recorder{Inner: seen}),
		"recorder(random)":        WantsAgents(&Recorder{Inner: NewRandom(1)}),
		"limited(random)":         WantsAgents(&Limited{Inner: NewRandom(1), Budget: 5}),
		"limited(agent chooser)":  WantsAgents(lim),
	}
	lim.ChooseAgents(2, "x", []Agent{CPUAgent(0), CPUAgent(1)}) // spends the budget
	got["limited(agent chooser), spent"] = WantsAgents(lim)
	want := map[string]bool{
		"random": false, "replay": false, "agent chooser": true,
		"recorder(agent chooser)": true, "recorder(random)": false,
		"limited(random)": false, "limited(agent chooser)": true,
		"limited(agent chooser), spent": false,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("WantsAgents (-want +got):\n%s", d)
	}
}

// TestTieAgents: a tie between lanes due together is one decision whose
// options are the lanes in lane order, given as agents to a Chooser that
// reads them; the option taken runs that lane first.
func TestTieAgents(t *testing.T) {
	seen := &agentsSeen{}
	e := NewEngine(seen)
	var order []int
	for i := range 4 {
		var l *Lane
		l = e.AddLane(LaneName(i), func() {
			order = append(order, l.ID)
			e.SetNext(l, Never)
		})
		if i != 1 {
			e.SetNext(l, 10)
		}
	}
	if err := e.Run(Never - 1); err != nil {
		t.Fatal(err)
	}
	// Lanes 0, 2, 3 tie at 10: the chooser takes the last option each time.
	want := [][]Agent{{CPUAgent(0), CPUAgent(2), CPUAgent(3)}, {CPUAgent(0), CPUAgent(2)}}
	if d := cmp.Diff(want, seen.got); d != "" {
		t.Errorf("agents of the ties (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{3, 2, 0}, order); d != "" {
		t.Errorf("lanes run (-want +got):\n%s", d)
	}
}
