package explore

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/sim"
)

// At the c-th change point the asking agent drops below every other agent,
// those lowered before included: with depth 3 and change points at the two
// decisions of a horizon of two, cpu1 asks first and is lowered (cpu0 goes
// on), then cpu0 asks and goes below cpu1 (cpu1 goes on), and from then on
// cpu1 wins every tie: cpu0, cpu1, cpu0 taking turns as in the posted
// PAUSE_OUTPUT race (pmu-pause-output-rb-check).
func TestPCTLaterChangeGoesLower(t *testing.T) {
	cpu0, cpu1 := sim.CPUAgent(0), sim.CPUAgent(1)
	for seed := uint64(1); seed <= 20; seed++ {
		p := NewPCT(seed, 2, 3)
		got := []int{
			p.ChooseAgents(2, "step", []sim.Agent{cpu1, cpu0}),
			p.ChooseAgents(2, "step", []sim.Agent{cpu0, cpu1}),
			p.ChooseAgents(2, "step", []sim.Agent{cpu0, cpu1}),
			p.ChooseAgents(2, "tie", []sim.Agent{cpu1, cpu0}),
		}
		type prios struct{ Cpu0, Cpu1 uint64 }
		if diff := cmp.Diff([]int{1, 1, 1, 0}, got); diff != "" {
			t.Errorf("seed %d: options taken (-want +got):\n%s", seed, diff)
		}
		if diff := cmp.Diff(prios{1, 2}, prios{p.prio[cpu0], p.prio[cpu1]}); diff != "" {
			t.Errorf("seed %d: priorities after the change points (-want +got):\n%s", seed, diff)
		}
	}
}

// The change points are depth-1 distinct decisions, every set of them
// equally likely: over many seeds each of the C(k, d-1) sets shows up about
// equally often, and PCTGuarantee's 1/(n*C(k, d-1)) is 1/n over the number
// of sets seen. With fewer decisions than depth-1, every decision is one.
func TestPCTChangePointsUniform(t *testing.T) {
	const k, d, seeds = 6, 3, 30000
	count := map[[2]int]int{}
	for seed := uint64(1); seed <= seeds; seed++ {
		p := NewPCT(seed, k, d)
		if len(p.change) != 2 || p.change[0] >= p.change[1] || p.change[1] >= k {
			t.Fatalf("seed %d: change points %v, want 2 distinct increasing in [0,%d)", seed, p.change, k)
		}
		count[[2]int{p.change[0], p.change[1]}]++
	}
	if got, want := len(count), int(1/PCTGuarantee(1, k, d)+0.5); got != want {
		t.Errorf("%d sets of change points seen, PCTGuarantee says %d", got, want)
	}
	for set, c := range count {
		// seeds/15 = 2000 each; 5 standard deviations is about 220.
		if c < 1750 || c > 2250 {
			t.Errorf("set %v drawn %d times of %d, want about %d", set, c, seeds, seeds/len(count))
		}
	}
	if p := NewPCT(1, 1, 4); !slices.Equal(p.change, []int{0}) {
		t.Errorf("horizon 1, depth 4: change points %v, want [0]", p.change)
	}
	type g struct{ N, K, D int }
	got := map[g]float64{}
	for _, c := range []g{{2, 92, 3}, {1, 6, 3}, {3, 216, 2}, {2, 10, 1}, {2, 2, 4}} {
		got[c] = PCTGuarantee(c.N, c.K, c.D)
	}
	want := map[g]float64{{2, 92, 3}: 1 / (2 * 92 * 91 / 2.0), {1, 6, 3}: 1 / 15.0, {3, 216, 2}: 1 / (3 * 216.0), {2, 10, 1}: 0.5, {2, 2, 4}: 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PCTGuarantee (-want +got):\n%s", diff)
	}
}

// pctExact runs PCT on f with every order of the agents the quiet probes
// name and every set of depth-1 change points, and returns the probability
// that one PCT schedule shows a violation, counting as a miss every run
// whose course the enumeration does not fix (it names another agent, or a
// change point falls on a decision without agents that has more than two
// options): a lower bound of the exact figure. It also returns n and k.
func pctExact(t *testing.T, name string, knobs map[string]string, depth int) (p float64, n, k int) {
	t.Helper()
	f := loadBuiltin(t, name)
	o := Options{Knobs: knobs}
	k, n, err := measureQuiet(f, o)
	if err != nil {
		t.Fatal(err)
	}
	named := map[sim.Agent]bool{}
	for _, cpuFirst := range []bool{false, true} {
		q := &pctAgentsProbe{quietProbe: quietProbe{cpuFirst: cpuFirst}, named: named}
		if _, _, err := runner.RunOnce(f, o.runOptions(q, false)); err != nil && !runner.IsLimit(err) {
			t.Fatal(err)
		}
	}
	var agents []sim.Agent
	for a := range named {
		agents = append(agents, a)
	}
	slices.Sort(agents)
	orders := permutations(agents)
	sets := subsets(k, depth-1)
	hits := 0
	for _, order := range orders {
		for _, set := range sets {
			p := &PCT{g: sim.NewRandom(1), depth: depth, change: set, prio: map[sim.Agent]uint64{}, used: map[uint64]bool{}}
			for i, a := range order {
				p.prio[a] = uint64(depth + len(order) - i)
				p.used[p.prio[a]] = true
			}
			spy := &pctSpy{p: p, known: named}
			ro := o.runOptions(spy, false)
			ro.MaxWall = 0
			r, res, err := runner.RunOnce(f, ro)
			if err != nil && !runner.IsLimit(err) {
				t.Fatal(err)
			}
			if !spy.unfixed && res != nil && signature(r, res) != "" {
				hits++
			}
		}
	}
	return float64(hits) / float64(len(orders)*len(sets)), n, k
}

// pctAgentsProbe is a quiet probe that keeps the agents named.
type pctAgentsProbe struct {
	quietProbe
	named map[sim.Agent]bool
}

func (q *pctAgentsProbe) ChooseAgents(n int, what string, agents []sim.Agent) int {
	for _, a := range agents {
		q.named[a] = true
	}
	return q.quietProbe.ChooseAgents(n, what, agents)
}

// pctSpy passes decisions to p and notes what the enumeration does not fix.
type pctSpy struct {
	p       *PCT
	known   map[sim.Agent]bool
	unfixed bool
}

func (s *pctSpy) Choose(n int, what string) int {
	if n > 2 && slices.Contains(s.p.change, s.p.pos) {
		s.unfixed = true
	}
	return s.p.Choose(n, what)
}

func (s *pctSpy) ChooseAgents(n int, what string, agents []sim.Agent) int {
	for _, a := range agents {
		if !s.known[a] {
			s.unfixed = true
		}
	}
	return s.p.ChooseAgents(n, what, agents)
}

func permutations(a []sim.Agent) [][]sim.Agent {
	if len(a) <= 1 {
		return [][]sim.Agent{slices.Clone(a)}
	}
	var out [][]sim.Agent
	for i := range a {
		rest := append(slices.Clone(a[:i]), a[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]sim.Agent{a[i]}, p...))
		}
	}
	return out
}

// subsets are the increasing r-tuples of [0, k).
func subsets(k, r int) [][]int {
	if r == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, s := range subsets(k, r-1) {
		first := 0
		if len(s) > 0 {
			first = s[len(s)-1] + 1
		}
		for i := first; i < k; i++ {
			out = append(out, append(slices.Clone(s), i))
		}
	}
	return out
}

// The printed guarantee holds for the guard-off aux pause/resume race, a
// bug of depth 2 (the PMI held by its skid, then taken in aux_resume): over
// every agent order and change point PCT can draw, the chance that one
// schedule finds it is at least 1/(n*k).
func TestPCTGuaranteeAuxPauseRace(t *testing.T) {
	p, n, k := pctExact(t, "aux-pause-resume-nmi", map[string]string{"aux-pause-guard": "off"}, 2)
	if g := PCTGuarantee(n, k, 2); p < g || p == 0 {
		t.Errorf("depth 2: P(found) >= %.4g by enumeration, below the guarantee %.4g (n %d, k %d)", p, g, n, k)
	}
	t.Logf("depth 2, n %d, k %d: P(found) >= %.4g, guarantee %.4g", n, k, p, PCTGuarantee(n, k, 2))
}

// The posted PAUSE_OUTPUT check (pmu-pause-output-rb-check) is a bug of
// depth 3 for PCT: cpu1 first, lowered after perf_mmap_close() detached the
// buffer, then cpu0 lowered between its two reads of event->rb. The
// enumeration of every schedule PCT can draw at depth 3 (PERFSIM_PCT_EXACT=1:
// about 19,000 runs) shows the chance per schedule and checks it against the
// guarantee; without it the test runs the search itself.
func TestPCTFindsPauseOutputRace(t *testing.T) {
	knobs := map[string]string{"pause-output-rb-check": "posted"}
	if os.Getenv("PERFSIM_PCT_EXACT") != "" {
		p, n, k := pctExact(t, "pmu-pause-output-rb-check", knobs, 3)
		if g := PCTGuarantee(n, k, 3); p < g || p == 0 {
			t.Errorf("depth 3: P(found) >= %.4g by enumeration, below the guarantee %.4g (n %d, k %d)", p, g, n, k)
		}
		fmt.Printf("pmu-pause-output-rb-check pause-output-rb-check=posted, PCT depth 3, n %d, k %d: P(found) >= %.4g (1 in %.0f), guarantee %.4g\n", n, k, p, 1/p, PCTGuarantee(n, k, 3))
	}
	f := loadBuiltin(t, "pmu-pause-output-rb-check")
	ex, err := Explore(f, Options{Strategy: "pct", Depth: 3, Runs: 3000, Seed: 1, Knobs: knobs, MaxShrinkRuns: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil || ex.Found.Signature != "oops: BUG: kernel NULL pointer dereference in rb_toggle_paused() (PERF_EVENT_IOC_PAUSE_OUTPUT: rb read NULL, event->rb re-read non-NULL)" {
		t.Fatalf("PCT depth 3 did not find the NULL rb_toggle_paused() in 3000 schedules: %+v", ex.Found)
	}
	t.Logf("schedule %d", ex.Found.Schedule)
}
