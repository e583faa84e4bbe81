package explore

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/sim"
)

// At the c-th change point the asking agent drops below every other agent,
// those lowered before included: with depth 3 and change points at
// decisions 0 and 1, cpu1 asks first and is lowered (cpu0 goes on), then
// cpu0 asks and goes below cpu1 (cpu1 goes on), and from then on cpu1 wins
// every tie: cpu1, cpu0, cpu1 taking turns as in the posted PAUSE_OUTPUT
// race (pmu-pause-output-rb-check). Two change points drawn at one
// decision lower once.
func TestPCTLaterChangeGoesLower(t *testing.T) {
	cpu0, cpu1 := sim.CPUAgent(0), sim.CPUAgent(1)
	type prios struct{ Cpu0, Cpu1 uint64 }
	for seed := uint64(1); seed <= 20; seed++ {
		p := NewPCT(seed, 2, 3)
		p.change = []int{0, 1}
		got := []int{
			p.ChooseAgents(2, "step", []sim.Agent{cpu1, cpu0}),
			p.ChooseAgents(2, "step", []sim.Agent{cpu0, cpu1}),
			p.ChooseAgents(2, "step", []sim.Agent{cpu0, cpu1}),
			p.ChooseAgents(2, "tie", []sim.Agent{cpu1, cpu0}),
		}
		if diff := cmp.Diff([]int{1, 1, 1, 0}, got); diff != "" {
			t.Errorf("seed %d: options taken (-want +got):\n%s", seed, diff)
		}
		if diff := cmp.Diff(prios{1, 2}, prios{p.prio[cpu0], p.prio[cpu1]}); diff != "" {
			t.Errorf("seed %d: priorities after the change points (-want +got):\n%s", seed, diff)
		}
		q := NewPCT(seed, 2, 3)
		q.change = []int{1, 1}
		q.ChooseAgents(2, "step", []sim.Agent{cpu0, cpu1})
		type lowered struct{ Option, Cpu1 int }
		got1 := lowered{q.ChooseAgents(2, "step", []sim.Agent{cpu1, cpu0}), int(q.prio[cpu1])}
		if diff := cmp.Diff(lowered{1, 2}, got1); diff != "" {
			t.Errorf("seed %d: two change points at decision 1 (-want +got):\n%s", seed, diff)
		}
	}
}

// The change points are depth-1 independent uniform draws over the
// decisions, as the paper's: over many seeds each sorted pair (i, j) of a
// horizon of k shows up with probability 2/k^2 (i < j) or 1/k^2 (i = j),
// k^2 = 1/PCTGuarantee(1, k, 3).
func TestPCTChangePointsUniform(t *testing.T) {
	const k, d, seeds = 5, 3, 50000
	count := map[[2]int]int{}
	for seed := uint64(1); seed <= seeds; seed++ {
		p := NewPCT(seed, k, d)
		if len(p.change) != 2 || p.change[0] > p.change[1] || p.change[1] >= k {
			t.Fatalf("seed %d: change points %v, want 2 sorted in [0,%d)", seed, p.change, k)
		}
		count[[2]int{p.change[0], p.change[1]}]++
	}
	pairs := 1 / PCTGuarantee(1, k, d) // k^2 ordered pairs
	if len(count) != k*(k+1)/2 {
		t.Errorf("%d sorted pairs seen, want %d", len(count), k*(k+1)/2)
	}
	for pair, c := range count {
		ways := 2.0
		if pair[0] == pair[1] {
			ways = 1
		}
		want := seeds * ways / pairs
		// Within 5 standard deviations.
		if sd := math.Sqrt(want); math.Abs(float64(c)-want) > 5*sd {
			t.Errorf("pair %v drawn %d times of %d, want about %.0f", pair, c, seeds, want)
		}
	}
	type g struct{ N, K, D int }
	got := map[g]float64{}
	for _, c := range []g{{2, 92, 3}, {1, 5, 3}, {3, 216, 2}, {2, 10, 1}} {
		got[c] = PCTGuarantee(c.N, c.K, c.D)
	}
	want := map[g]float64{{2, 92, 3}: 1 / (2 * 92 * 92.0), {1, 5, 3}: 1 / 25.0, {3, 216, 2}: 1 / (3 * 216.0), {2, 10, 1}: 0.5}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PCTGuarantee (-want +got):\n%s", diff)
	}
}

// pctExact runs PCT on f with every order of the agents the quiet probes
// name and every sorted tuple of depth-1 change points (repeats included),
// and returns the probability that one PCT schedule shows a violation: each
// order weighs 1/m! (m agents), each tuple the number of draws k_1..k_{d-1}
// that sort to it over k^(d-1). It counts as a miss every run whose course
// the enumeration does not fix (it names another agent, or a change point
// falls on a decision without agents that has more than two options): a
// lower bound of the exact figure. It also returns n and k.
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
	tuples := sortedTuples(k, depth-1)
	hit := 0.0 // sum of the weights, in draws
	for _, order := range orders {
		for _, tuple := range tuples {
			p := &PCT{g: sim.NewRandom(1), depth: depth, change: tuple, prio: map[sim.Agent]uint64{}, used: map[uint64]bool{}}
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
				hit += draws(tuple)
			}
		}
	}
	return hit / (float64(len(orders)) * math.Pow(float64(k), float64(depth-1))), n, k
}

// draws is the number of sequences that sort to tuple: r!/(m_1!*m_2!*...).
func draws(tuple []int) float64 {
	w := 1.0
	for i, run := 0, 1; i < len(tuple); i++ {
		w *= float64(i+1) / float64(run)
		if i+1 < len(tuple) && tuple[i+1] == tuple[i] {
			run++
		} else {
			run = 1
		}
	}
	return w
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

// sortedTuples are the non-decreasing r-tuples of [0, k).
func sortedTuples(k, r int) [][]int {
	if r == 0 {
		return [][]int{nil}
	}
	var out [][]int
	for _, s := range sortedTuples(k, r-1) {
		first := 0
		if len(s) > 0 {
			first = s[len(s)-1]
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
