package explore

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// TestDPORBuiltinSweep is the soundness sweep of the footprint
// declarations over the multi-CPU built-ins, loops cut to one iteration
// (PERFSIM_DPOR_SWEEP=N: N schedules at most per walk; long, so not in the
// default run; PERFSIM_DPOR_SWEEP_ONLY=a,b: those built-ins only). A final
// state is every observable's value and the violation signature (outcome
// truths, as in TestDPORBuiltinSameResults, would hide a lost class whose
// outcomes agree). Where dpor's walk is exhaustive within N, every final
// state must be one it reached: each of the full tree's, when that tree has
// at most N schedules; else each of N/10 random schedules' (seeds 1..,
// the random strategy's), which checks the claim on trees too large to
// walk whole.
func TestDPORBuiltinSweep(t *testing.T) {
	env := os.Getenv("PERFSIM_DPOR_SWEEP")
	if env == "" {
		t.Skip("PERFSIM_DPOR_SWEEP=N: dpor's walk of each multi-CPU built-in cut to one iteration, against the full tree or random schedules")
	}
	var maxRuns int
	if _, err := fmt.Sscan(env, &maxRuns); err != nil || maxRuns < 10 {
		t.Fatalf("PERFSIM_DPOR_SWEEP=%q: want a number of schedules, at least 10", env)
	}
	only := os.Getenv("PERFSIM_DPOR_SWEEP_ONLY")
	for _, b := range scenarios.Builtins() {
		name := b.Name
		if only != "" && !slices.Contains(strings.Split(only, ","), name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			f := cutOrShipped(t, name)
			if f.NumCPUs() < 2 {
				t.Skip("one CPU: dpor runs the whole tree")
			}
			got, runs, ex := finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool { return walkTree(t, true, maxRuns, one) })
			if !ex {
				t.Skipf("dpor: not exhausted within %d schedules", maxRuns)
			}
			want, wruns, wex := finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool { return walkTree(t, false, maxRuns, one) })
			what := "the full tree"
			if !wex {
				what = "random schedules"
				want, wruns, _ = finalStates(t, f, func(one func(sim.Chooser, func(*cpu.Machine))) bool {
					for seed := range uint64(maxRuns / 10) {
						one(runner.ScheduleChooser(seed+1, 0), nil)
					}
					return true
				})
			}
			for _, miss := range missingStates(want, got) {
				t.Errorf("a final state of %s that dpor does not reach: %s", what, miss)
			}
			if d := cmp.Diff(want, got); d != "" && !t.Failed() && wex {
				t.Errorf("final states (-full tree +dpor):\n%s", d)
			}
			t.Logf("dpor %d schedules, %d distinct final states; %s: %d schedules, %d distinct final states", runs, len(got), what, wruns, len(want))
		})
	}
}

// cutOrShipped is the built-in with its loops cut to one iteration, or as
// shipped when it has none.
func cutOrShipped(t *testing.T, name string) *scenarios.File {
	src, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	if repeatRE.Match(src.Src) {
		return cutBuiltin(t, name, 1)
	}
	return cutBuiltin(t, name, 0)
}

// finalStates runs walk over f (which calls one per schedule, with its
// chooser and a listener to attach, and says whether it finished) and
// returns the distinct final states: every observable's value but the
// schedule's own count of choices, and the violation signature.
func finalStates(t *testing.T, f *scenarios.File, walk func(one func(sim.Chooser, func(*cpu.Machine))) bool) (states []string, runs int, finished bool) {
	t.Helper()
	seen := map[string]bool{}
	one := func(ch sim.Chooser, attach func(*cpu.Machine)) {
		r := walkedRun(t, f, nil, ch, attach)
		runs++
		var b strings.Builder
		for _, name := range r.ObservableNames() {
			if name == "trace.choices" {
				continue // the schedule's own count of disturbing choices, not the model's state
			}
			v, _ := r.Observe(name)
			fmt.Fprintf(&b, "%s=%d ", name, v)
		}
		b.WriteString(signature(r, r.Result()))
		seen[b.String()] = true
	}
	finished = walk(one)
	for s := range seen {
		states = append(states, s)
	}
	slices.Sort(states)
	return states, runs, finished
}

// missingStates says, for each state of want that got lacks, how it
// differs from the nearest one got has: the observables whose values
// differ (want's value, then got's).
func missingStates(want, got []string) []string {
	var out []string
	for _, w := range want {
		if slices.Contains(got, w) {
			continue
		}
		wa := strings.Fields(w)
		best, bestN := "", -1
		for _, g := range got {
			ga := strings.Fields(g)
			var diff []string
			for i := range min(len(wa), len(ga)) {
				if wa[i] != ga[i] {
					diff = append(diff, wa[i]+" (dpor's nearest: "+ga[i]+")")
				}
			}
			if bestN < 0 || len(diff) < bestN {
				best, bestN = strings.Join(diff, ", "), len(diff)
			}
		}
		out = append(out, best)
	}
	return out
}
