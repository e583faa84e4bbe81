package scenarios

import (
	"fmt"

	"perfsim/sim"
)

// exploreBounded is the bounded strategy: a systematic search of every
// schedule with at most Budget disturbing (non-zero) decisions, fewest first
// (delay-bounded scheduling: Emmi, Qadeer and Rakamarić, POPL 2011). It is
// stateless model checking by replay: each schedule is a prefix of decisions
// replayed, then the quiet course (0) to the end; the run reports how many
// options every later decision had, and each of them, taken once, is a new
// prefix with one disturbance more. The queue is first in, first out, so all
// schedules with k disturbances run before any with k+1, and the first
// violation has the fewest disturbances any violation has. When the queue
// empties before Runs schedules, the search is exhaustive up to the bound:
// ExploreResult.Exhausted.
func exploreBounded(f *File, o ExploreOptions, ex *ExploreResult) error {
	// A queued schedule is a branch off an earlier run: that run's decisions
	// up to j, then option a at decision j. The runs' decision lists are
	// shared, not copied, and the queue never holds more schedules than are
	// left to run, so memory stays near Runs even when a scenario has
	// thousands of decisions.
	type branch struct {
		base []int // the decisions of the run it branches off
		j, a int
	}
	queue := []branch{{j: -1}} // the quiet schedule first
	dropped := false
	for len(queue) > 0 && ex.Schedules < o.Runs {
		br := queue[0]
		queue[0] = branch{}
		queue = queue[1:]
		var prefix []int
		if br.j >= 0 {
			prefix = make([]int, br.j+1)
			copy(prefix, br.base[:br.j])
			prefix[br.j] = br.a
		}
		probe := &optionProbe{replay: sim.NewReplay(prefix)}
		r, res, err := RunOnce(f, o.runOptions(probe, false))
		if err != nil {
			return err
		}
		ex.count(res)
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
		if disturbing(prefix) >= o.Budget {
			continue
		}
		// The decisions past the prefix took the quiet course; branch on each.
	branches:
		for j := len(prefix); j < len(probe.options); j++ {
			for a := 1; a < probe.options[j]; a++ {
				if len(queue) >= o.Runs-ex.Schedules {
					dropped = true // never to run: --runs ends the search first
					break branches
				}
				queue = append(queue, branch{probe.taken, j, a})
			}
		}
	}
	ex.Exhausted = len(queue) == 0 && !dropped
	ex.Bound = o.Budget
	return nil
}

// optionProbe replays a decision list and records, for every decision of the
// run, how many options it had and which one was taken.
type optionProbe struct {
	replay  *sim.Replay
	options []int
	taken   []int
}

// Choose implements sim.Chooser.
func (p *optionProbe) Choose(n int, what string) int {
	d := p.replay.Choose(n, what)
	p.options = append(p.options, n)
	p.taken = append(p.taken, d)
	return d
}

// disturbingDecisions says "1 disturbing decision" or "N disturbing decisions".
func disturbingDecisions(n int) string {
	if n == 1 {
		return "1 disturbing decision"
	}
	return fmt.Sprintf("%d disturbing decisions", n)
}
