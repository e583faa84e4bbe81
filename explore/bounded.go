package explore

import (
	"fmt"
	"slices"
	"strings"

	"perfsim/runner"
	"perfsim/scenarios"
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
// empties before Runs schedules, the search is complete up to the bound
// (Result.CompleteUpTo); when, besides, no run at the bound had a decision
// left to disturb, the bound cut nothing and the search is exhaustive: it ran
// every schedule of the scenario (Result.Exhausted).
func exploreBounded(f *scenarios.File, o Options, ex *Result) error {
	// A queued schedule is a branch off an earlier run: that run's decisions
	// up to j, then option a at decision j. The runs' decision lists are
	// shared, not copied, and the queue never holds more schedules than are
	// left to run, so memory stays near Runs even when a scenario has
	// thousands of decisions.
	type branch struct {
		base []int // the decisions of the run it branches off
		j, a int
	}
	// A sharded search runs the quiet schedule in every shard (its branches
	// are the roots of the shards' subtrees) but counts it in shard 0 only;
	// its branches go to the shards round robin, and each shard runs the
	// whole subtree of its own.
	sharded := o.Shards > 1
	runs := o.Runs
	if sharded {
		_, runs = shardRange(o.Runs, o.Shard, o.Shards)
		first, _ := shardRange(o.Runs, o.Shard, o.Shards)
		runs -= first
	}
	root := 0                  // branches of the quiet schedule seen
	queue := []branch{{j: -1}} // the quiet schedule first
	head := 0                  // queue[head:] is still to run
	dropped := false           // a branch was not queued: --runs ends the search first
	cut := false               // a run at the bound had decisions left to disturb
	type outcome struct {
		r           *runner.Run
		res         *runner.Result
		probe       *optionProbe
		cov         *covChooser
		prefix      []int
		interrupted bool
		err         error
	}
	var err error
	quietRan := false
	ex.initCoverage(f, o)
	for head < len(queue) && ex.Schedules < runs && ex.Found == nil && err == nil && !ex.Interrupted {
		if o.stopped() {
			ex.Interrupted = true
			break
		}
		// A batch of the queue's front runs in parallel; its results are
		// taken in order, so the queue grows exactly as one job grows it.
		batch := queue[head:min(len(queue), head+max(1, 4*o.Jobs), head+runs-ex.Schedules)]
		runOrdered(len(batch), o.Jobs, o.stopped, func(i int) outcome {
			br := batch[i]
			var prefix []int
			if br.j >= 0 {
				prefix = make([]int, br.j+1)
				copy(prefix, br.base[:br.j])
				prefix[br.j] = br.a
			}
			probe := &optionProbe{replay: sim.NewReplay(prefix), focus: o.Focus}
			cov := newCovChooser(probe)
			r, res, interrupted, err := o.run(f, cov)
			return outcome{r, res, probe, cov, prefix, interrupted, err}
		}, func(i int, out outcome) bool {
			if out.err != nil {
				err = out.err
				return true
			}
			if out.interrupted {
				ex.Interrupted = true
				return true
			}
			queue[head] = branch{}
			head++
			quiet := out.prefix == nil && !quietRan
			quietRan = true
			if quiet && sharded && o.Shard != 0 {
				// Only its branches: shard 0 counts and judges it.
				for j := range out.probe.options {
					for a := 1; a < out.probe.options[j]; a++ {
						if root%o.Shards == o.Shard {
							queue = append(queue, branch{out.probe.taken, j, a})
						}
						root++
					}
				}
				return false
			}
			ex.count(out.res)
			ex.tally(out.r, ex.Schedules)
			ex.Coverage.add(out.cov, ex.Schedules)
			if o.Progress != nil {
				o.Progress(ex.Schedules, o.Runs)
			}
			if sig := signature(out.r, out.res); sig != "" {
				var found *Found
				if found, err = shrink(f, o, out.r.Decisions(), sig); err == nil {
					found.Schedule, found.Order = ex.Schedules, boundedOrder(out.prefix)
					ex.Found = found
				}
				return true
			}
			d := disturbing(out.prefix)
			ex.MostDisturbing = max(ex.MostDisturbing, d)
			if d >= o.Budget {
				for j := len(out.prefix); j < len(out.probe.options) && !cut; j++ {
					cut = out.probe.options[j] > 1
				}
				return false
			}
			// The decisions past the prefix took the quiet course; branch on each.
			for j := len(out.prefix); j < len(out.probe.options); j++ {
				for a := 1; a < out.probe.options[j]; a++ {
					if quiet && sharded {
						mine := root%o.Shards == o.Shard
						root++
						if !mine {
							continue
						}
					}
					if len(queue)-head >= runs-ex.Schedules {
						dropped = true // never to run: --runs ends the search first
						return false
					}
					queue = append(queue, branch{out.probe.taken, j, a})
				}
			}
			return false
		})
		if head > 4096 && head > len(queue)/2 { // let the run branches go
			queue = append([]branch(nil), queue[head:]...)
			head = 0
		}
	}
	ex.Bound, ex.Focus = o.Budget, o.Focus
	if err != nil || ex.Found != nil {
		return err
	}
	if head < len(queue) && o.stopped() {
		ex.Interrupted = true
	}
	if head == len(queue) && !dropped && !ex.Interrupted {
		ex.CompleteUpTo = o.Budget
		ex.Exhausted = !cut
	}
	return nil
}

// optionProbe replays a decision list and records, for every decision of the
// run, how many options it had and which one was taken.
type optionProbe struct {
	replay  *sim.Replay
	focus   []string // when set: options only for the decisions these match
	options []int
	taken   []int
}

// Choose implements sim.Chooser.
func (p *optionProbe) Choose(n int, what string) int {
	d := p.replay.Choose(n, what)
	if len(p.focus) > 0 && !focused(what, p.focus) {
		n = 1 // not a branch point of this search
	}
	p.options = append(p.options, n)
	p.taken = append(p.taken, d)
	return d
}

// focused reports whether a decision's question contains one of focus.
func focused(what string, focus []string) bool {
	for _, f := range focus {
		if strings.Contains(what, f) {
			return true
		}
	}
	return false
}

// disturbingDecisions says "1 disturbing decision" or "N disturbing decisions".
func disturbingDecisions(n int) string {
	if n == 1 {
		return "1 disturbing decision"
	}
	return fmt.Sprintf("%d disturbing decisions", n)
}

// focusText says where a focused search disturbed.
func focusText(focus []string) string {
	if len(focus) == 0 {
		return ""
	}
	return ", each at a question containing " + strings.Join(focus, " or ")
}

// boundedOrder is a schedule's place in the order the bounded search runs
// schedules (Found.Order), from the prefix it replayed: its disturbing
// decisions d, then each one's index and option (d, j1, a1, ..., jd, ad).
// The queue is first in, first out: every schedule with d disturbances
// runs before any with d+1, and among those with d, a schedule's branches
// are queued after the branches of every schedule run before it, each run's
// in decision order (then option order). So schedules run in increasing
// order of this list, element by element; the shards of a search (which
// take the quiet schedule's branches round robin) each run theirs in the
// same order.
func boundedOrder(prefix []int) []int {
	out := []int{disturbing(prefix)}
	for j, a := range prefix {
		if a != 0 {
			out = append(out, j, a)
		}
	}
	return out
}

// compareOrder compares two Found.Order lists (element by element; lists
// of one disturbance count have the same length).
func compareOrder(a, b []int) int {
	return slices.Compare(a, b)
}
