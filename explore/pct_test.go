package explore

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// PCT takes, at each decision, the option whose agent has the highest
// priority; at a change point the asking agent (option 0) drops below all.
func TestPCTPriorities(t *testing.T) {
	cpu0, nmi0, cpu1 := sim.CPUAgent(0), sim.NMIAgent(0), sim.CPUAgent(1)
	p := NewPCT(7, 10, 1) // depth 1: no change point
	var got []int
	for range 5 {
		got = append(got, p.ChooseAgents(3, "step", []sim.Agent{cpu0, nmi0, cpu1}))
	}
	best := 0
	for j, a := range []sim.Agent{cpu0, nmi0, cpu1} {
		if p.prio[a] > p.prio[[]sim.Agent{cpu0, nmi0, cpu1}[best]] {
			best = j
		}
	}
	if diff := cmp.Diff([]int{best, best, best, best, best}, got); diff != "" {
		t.Errorf("depth 1 keeps the highest priority agent running (-want +got):\n%s", diff)
	}
	// Depth 2 with one decision: the change point is decision 0, where cpu0
	// drops to priority 1, below nmi0 (whose priority is above the depth).
	q := NewPCT(7, 1, 2)
	if d := q.ChooseAgents(2, "step", []sim.Agent{cpu0, nmi0}); d != 1 {
		t.Errorf("at the change point the NMI should land: option %d", d)
	}
	if q.prio[cpu0] != 1 {
		t.Errorf("cpu0's priority after the change point: %d, want 1", q.prio[cpu0])
	}
	// A decision with no agents takes 0 away from a change point.
	if d := q.Choose(4, "select_task_rq:x"); d != 0 {
		t.Errorf("no agents, no change point: option %d", d)
	}
}

// A strategy honours its seed: the same seed gives the same schedule (the
// same decision list); PCT's seeds give different ones.
func TestPCTSeedDeterminism(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	k, n, err := measureQuiet(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k == 0 || n < 2 {
		t.Fatalf("quiet run: %d decisions, %d agents", k, n)
	}
	run := func(seed uint64) string {
		rec := &sim.Recorder{Inner: NewPCT(seed, k, 3)}
		if _, _, err := runner.RunOnce(f, runner.Options{Chooser: rec}); err != nil {
			t.Fatal(err)
		}
		return sim.EncodeToken(rec.Decisions)
	}
	distinct := map[string]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		a, b := run(seed), run(seed)
		if a != b {
			t.Errorf("seed %d: two runs gave %s and %s", seed, a, b)
		}
		distinct[a] = true
	}
	if len(distinct) < 4 {
		t.Errorf("8 seeds gave %d distinct schedules", len(distinct))
	}
}

// PCT at depth 2 finds the guard-off aux pause/resume race, prints its
// guarantee for the scenario's measured size, and shrinks the found
// schedule to the one decision the race needs in under 50 replays.
func TestPCTFindsAuxPauseRace(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	ex, err := Explore(f, Options{Strategy: "pct", Depth: 2, Runs: 200, Knobs: map[string]string{"aux-pause-guard": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil {
		t.Fatal("PCT depth 2 did not find the race in 200 schedules")
	}
	var b strings.Builder
	ex.WriteText(&b)
	want := fmt.Sprintf("PCT depth 2: n = %d agents (each CPU, its NMI and its irq line; the outcome sampler), k = %d decisions (of the quiet or CPU-first run, where its 1 change point falls): each schedule finds a bug of depth 2 (an agent first, then up to 1 lowered at given decisions) with probability >= 1/(n*k^1) = %.3g",
		ex.PCTAgents, ex.PCTSteps, 1/float64(ex.PCTAgents*ex.PCTSteps))
	if !strings.Contains(b.String(), want) || ex.PCTAgents != 3 {
		t.Errorf("want %q with 3 agents (cpu0, its NMI, its irq line):\n%s", want, b.String())
	}
	// Two: the PMI held by its skid to the end of the tracepoint's work, then
	// taken inside aux_resume (this machine's cost model).
	if d := disturbing(ex.Found.Decisions); d != 2 || ex.Found.ShrinkRuns >= 50 {
		t.Errorf("shrunk to %d disturbing decisions in %d replays; want 2 in under 50", d, ex.Found.ShrinkRuns)
	}
}

// oldKernelCase is a built-in and a knob setting of one of its when lines
// under which it fails.
type oldKernelCase struct {
	Builtin string
	Knobs   map[string]string
}

// oldKernelCases are the old kernels (and posted or proposed patches) the
// built-ins were written for: every value other than today's of every knob a
// built-in names, on its kernel lines or in its when lines, one knob at a
// time. Whether each fails is what the searches find out.
func oldKernelCases(t *testing.T) []oldKernelCase {
	specs := map[string][]string{}
	for _, k := range append(runner.KernelKnobSpecs(nil), runner.ToolKnobSpecs(nil)...) {
		if !k.Config { // the machine's settings are no older kernel
			specs[k.Name] = k.Values
		}
	}
	var out []oldKernelCase
	for _, b := range scenarios.Builtins() {
		f := loadBuiltin(t, b.Name)
		names := map[string]bool{}
		for _, s := range append(append([]*scenarios.Setting(nil), f.Kernel...), f.Tool...) {
			names[s.Name] = true
		}
		for _, v := range runner.Variants(f) {
			for name := range v {
				names[name] = true
			}
		}
		var sorted []string
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			vals := specs[n]
			for _, v := range vals[min(1, len(vals)):] {
				out = append(out, oldKernelCase{b.Name, map[string]string{n: v}})
			}
		}
	}
	return out
}

// TestStrategyTable prints the mean schedules to the first violation per
// strategy on every failing old-kernel setting of the built-ins
// (PERFSIM_STRATEGY_TABLE=1; it takes minutes): random, sparse, PCT at
// depth 1-3 over seeds, and bounded and dpor (one search each: no seed;
// dpor's walk capped at 4x the runs, '-' when it ends or stops without a
// violation). It fails when PCT at depth <= 3 misses a setting that another
// strategy found.
func TestStrategyTable(t *testing.T) {
	if os.Getenv("PERFSIM_STRATEGY_TABLE") == "" {
		t.Skip("PERFSIM_STRATEGY_TABLE=1 prints the table")
	}
	const seeds, runs = 5, 500
	type strat struct {
		name  string
		o     Options
		seeds int
	}
	strategies := []strat{
		{"random", Options{Strategy: "random"}, seeds},
		{"sparse", Options{Strategy: "sparse"}, seeds},
		{"pct-d1", Options{Strategy: "pct", Depth: 1}, seeds},
		{"pct-d2", Options{Strategy: "pct", Depth: 2}, seeds},
		{"pct-d3", Options{Strategy: "pct", Depth: 3}, seeds},
		{"bounded-2", Options{Strategy: "bounded", Budget: 2}, 1},
		{"dpor", Options{Strategy: "dpor"}, 1},
	}
	var dporEnds []string // dpor exhausted without a violation
	fmt.Printf("%-34s %-36s", "built-in", "knobs")
	for _, s := range strategies {
		fmt.Printf(" %10s", s.name)
	}
	fmt.Println()
	for _, c := range oldKernelCases(t) {
		f := loadBuiltin(t, c.Builtin)
		n, nseeds := runs, seeds
		if _, slow := corpusRuns[c.Builtin]; slow {
			n, nseeds = 100, 3 // a slow built-in (a list, not a clock: the table does not depend on the load)
		}
		// Only the settings that fail: a quick look with random and PCT.
		fails := false
		for _, s := range []string{"random", "pct"} {
			ex, err := Explore(f, Options{Strategy: s, Knobs: c.Knobs, Runs: min(n, 300), MaxShrinkRuns: 1, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			fails = fails || ex.Found != nil
		}
		if !fails {
			continue
		}
		fmt.Printf("%-34s %-36s", c.Builtin, strings.Join(runner.KnobList(c.Knobs), " "))
		found := map[string]bool{}
		for _, s := range strategies {
			total, hits := 0, 0
			ns := min(s.seeds, nseeds)
			for seed := 1; seed <= ns; seed++ {
				o := s.o
				o.Knobs, o.Seed, o.Runs, o.MaxShrinkRuns, o.Jobs = c.Knobs, uint64(seed*100000), n, 1, 2
				if s.name == "dpor" {
					o.Seed, o.Runs = 0, 4*n
				}
				ex, err := Explore(f, o)
				if err != nil {
					t.Fatal(err)
				}
				if s.name == "dpor" && ex.Found == nil && ex.Exhausted {
					dporEnds = append(dporEnds, fmt.Sprintf("%s %s (%d classes)", c.Builtin, strings.Join(runner.KnobList(c.Knobs), " "), ex.Schedules))
				}
				if ex.Found != nil {
					hits++
					total += ex.Found.Schedule
				}
			}
			cell := "-"
			if hits > 0 {
				cell = fmt.Sprintf("%.1f", float64(total)/float64(hits))
				if hits < ns {
					cell += fmt.Sprintf("(%d/%d)", hits, ns)
				}
				found[s.name] = true
			}
			fmt.Printf(" %10s", cell)
		}
		fmt.Println()
		if len(found) > 0 && !found["pct-d1"] && !found["pct-d2"] && !found["pct-d3"] {
			t.Errorf("%s %v: found by %v, not by PCT at depth <= 3", c.Builtin, c.Knobs, sortedKeys(found))
		}
	}
	for _, e := range dporEnds {
		fmt.Println("dpor exhausted without a violation:", e)
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// random, within simrun explore's default --runs (1000), finds the
// guard-off aux pause/resume race, and shrinking the failure, which needs
// two decisions (the PMI held by its skid, then taken), takes under 50 replays.
func TestRandomFindsAuxPauseRaceWithinDefaultRuns(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	ex, err := Explore(f, Options{Strategy: "random", Runs: 1000, Seed: 1, Knobs: map[string]string{"aux-pause-guard": "off"}})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Found == nil {
		t.Fatal("random found nothing in 1000 schedules")
	}
	type got struct{ Disturbing, Under50 int }
	if diff := cmp.Diff(got{2, 1}, got{disturbing(ex.Found.Decisions), b2i(ex.Found.ShrinkRuns < 50)}); diff != "" {
		t.Errorf("found at schedule %d, shrunk in %d replays (-want +got):\n%s", ex.Found.Schedule, ex.Found.ShrinkRuns, diff)
	}
	t.Logf("schedule %d, %d shrink replays", ex.Found.Schedule, ex.Found.ShrinkRuns)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
