package explore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/sim"
)

// judged is what a search says of its schedules, for comparing a search
// that judged repeats from its tree with one that ran every schedule.
type judged struct {
	Schedules                  int
	Outcomes                   []OutcomeCount
	Coverage                   *Coverage
	LockCycles                 []string
	Lifetime, Races            []*LifetimeReport
	Failed, Interrupted        bool
	FoundSchedule              int
	FoundSeed                  uint64
	FoundViolation, FoundToken string
}

func judgedOf(ex *Result) judged {
	j := judged{Schedules: ex.Schedules, Outcomes: ex.Outcomes, Coverage: ex.Coverage, LockCycles: ex.LockCycles,
		Lifetime: ex.LifetimeReports, Races: ex.DataRaceReports, Failed: ex.Failed, Interrupted: ex.Interrupted}
	if fd := ex.Found; fd != nil {
		j.FoundSchedule, j.FoundSeed, j.FoundViolation, j.FoundToken = fd.Schedule, fd.Seed, fd.Violation, sim.EncodeToken(fd.Decisions)
	}
	return j
}

// TestMemoJudgesAsRun: on the shipped built-ins, a seeded search that
// judges the schedules it drew before from its tree says exactly what the
// same search running every schedule says (counts, coverage, oracle
// reports, the violation and its shrunk schedule), in one job and in two;
// and it claims exhaustive exactly when it has run every schedule the
// bounded search finds the scenario has.
func TestMemoJudgesAsRun(t *testing.T) {
	for _, tc := range []struct {
		name, strategy string
		runs           int
		knobs          map[string]string
		distinct       int // > 0: exhaustive, with this many schedules
		repeats        int
		violation      string
	}{
		{"pmu-overflow-vs-sched-out", "random", 300, nil, 7, 293, ""},
		{"pmu-overflow-vs-sched-out", "sparse", 300, nil, 0, 294, ""},
		{"pmu-overflow-vs-sched-out", "pct", 300, nil, 0, 298, ""},
		{"aux-pause-resume-nmi-throttle", "random", 60, nil, 2, 58, ""},
		{"deferred-callchain-nmi-schedule", "random", 200, nil, 24, 176, ""}, // its deepest has 4 disturbances
		{"aux-pause-resume-nmi", "pct", 100, map[string]string{"aux-pause-guard": "off"}, 0, 0, "invariant pmu-pause-resume-exclusive"},
	} {
		t.Run(tc.name+"/"+tc.strategy, func(t *testing.T) {
			f := loadBuiltin(t, tc.name)
			o := Options{Strategy: tc.strategy, Runs: tc.runs, Jobs: 1, Knobs: tc.knobs}
			memo, err := Explore(f, o)
			if err != nil {
				t.Fatal(err)
			}
			o.noMemo = true
			all, err := Explore(f, o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(judgedOf(all), judgedOf(memo)); diff != "" {
				t.Errorf("judged from the tree vs every schedule run (-run +tree):\n%s", diff)
			}
			o.noMemo, o.Jobs = false, 2
			two, err := Explore(f, o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(judgedOf(memo), judgedOf(two)); diff != "" || two.Repeats != memo.Repeats || two.Distinct != memo.Distinct {
				t.Errorf("two jobs (repeats %d, distinct %d) vs one (%d, %d) (-one +two):\n%s", two.Repeats, two.Distinct, memo.Repeats, memo.Distinct, diff)
			}
			got := fmt.Sprintf("exhausted %v distinct %d repeats %d violation %q", memo.Exhausted, memo.Distinct, memo.Repeats, "")
			if memo.Found != nil {
				got = fmt.Sprintf("exhausted %v distinct %d repeats %d violation %q", memo.Exhausted, memo.Distinct, memo.Repeats, memo.Found.Signature)
			}
			want := fmt.Sprintf("exhausted %v distinct %d repeats %d violation %q", tc.distinct > 0, tc.distinct, tc.repeats, tc.violation)
			if tc.violation != "" {
				want = fmt.Sprintf("exhausted false distinct 0 repeats %d violation %q", memo.Repeats, tc.violation)
			}
			if got != want {
				t.Errorf("got %s\nwant %s", got, want)
			}
			if all.Exhausted || all.Repeats != 0 {
				t.Errorf("every schedule run: exhausted %v, repeats %d; want no claim from a tree", all.Exhausted, all.Repeats)
			}
			if tc.distinct == 0 {
				return
			}
			b, err := Explore(f, Options{Strategy: "bounded", Budget: 8, Runs: 1000, Jobs: 1, Knobs: tc.knobs})
			if err != nil {
				t.Fatal(err)
			}
			if !b.Exhausted || b.Schedules != tc.distinct {
				t.Errorf("bounded: exhausted %v in %d schedules; the seeded search claims %d", b.Exhausted, b.Schedules, tc.distinct)
			}
		})
	}
}

// memoTree is a synthetic decision tree: the question after the answers
// path has kids(path) options (0: the run ends), asked with agents on odd
// depths.
type memoTree struct{ fan map[string]int }

func (m memoTree) kids(path string) int { return m.fan[path] }

// run runs the tree with ch, as the model would: each question asked in
// turn; it returns the path taken.
func (m memoTree) run(ch sim.Chooser) string {
	path := ""
	for depth := 0; ; depth++ {
		n := m.kids(path)
		if n == 0 {
			return path
		}
		var d int
		if depth%2 == 1 {
			agents := make([]sim.Agent, n)
			for i := range agents {
				agents[i] = sim.Agent(i % 3)
			}
			d = sim.ChooseWith(ch, n, "q"+path, agents)
		} else {
			d = ch.Choose(n, "q"+path)
		}
		path += string(rune('0' + d))
	}
}

// leaves lists every path of the tree.
func (m memoTree) leaves(path string) []string {
	n := m.kids(path)
	if n == 0 {
		return []string{path}
	}
	var out []string
	for d := range n {
		out = append(out, m.leaves(path+string(rune('0'+d)))...)
	}
	return out
}

// countingChooser counts the questions it is asked.
type countingChooser struct {
	inner sim.Chooser
	asked int
}

func (c *countingChooser) Choose(n int, what string) int { c.asked++; return c.inner.Choose(n, what) }
func (c *countingChooser) ChooseAgents(n int, what string, agents []sim.Agent) int {
	c.asked++
	return sim.ChooseWith(c.inner, n, what, agents)
}

// TestMemoTreeProperty: over random decision trees and random seeds, the
// tree finds a seed's schedule exactly when a seed before it ran that
// schedule, asking the chooser what the run asks; it counts the distinct
// schedules, and it is complete exactly when every schedule of the tree ran.
func TestMemoTreeProperty(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		fan := map[string]int{}
		var grow func(path string, depth int)
		grow = func(path string, depth int) {
			n := 0
			if depth < 4 {
				n = rapid.SampledFrom([]int{0, 2, 3}).Draw(rt, "fan "+path)
			}
			fan[path] = n
			for d := range n {
				grow(path+string(rune('0'+d)), depth+1)
			}
		}
		grow("", 0)
		tree := memoTree{fan}
		all := tree.leaves("")
		var m schedMemo
		ran := map[string]bool{}
		seeds := rapid.IntRange(1, memoProbation-1).Draw(rt, "seeds")
		for s := range seeds {
			path := tree.run(sim.NewRandom(uint64(s)))
			probe := &countingChooser{inner: sim.NewRandom(uint64(s))}
			leaf := m.lookup(probe)
			if (leaf != nil) != ran[path] {
				rt.Fatalf("seed %d (path %q): found in the tree %v, ran before %v", s, path, leaf != nil, ran[path])
			}
			if leaf != nil {
				if want := len(path); probe.asked != want {
					rt.Fatalf("seed %d: the lookup asked %d questions, the run asks %d", s, probe.asked, want)
				}
				if leaf.outcomes[0] != uint8(len(path)) {
					rt.Fatalf("seed %d: the leaf of path %q is another run's", s, path)
				}
				m.repeat()
				continue
			}
			rec := newMemoRecorder(sim.NewRandom(uint64(s)))
			if got := tree.run(rec); got != path {
				rt.Fatalf("recorded run took %q, the run %q", got, path)
			}
			mk := func() *memoLeaf { return &memoLeaf{clean: true, outcomes: []uint8{uint8(len(path))}} }
			if err := m.add(rec, mk, s+1); err != nil {
				rt.Fatal(err)
			}
			ran[path] = true
		}
		ok, leaves := m.complete()
		if leaves != len(ran) || ok != (len(ran) == len(all)) {
			rt.Fatalf("complete %v with %d leaves; ran %d distinct of the tree's %d", ok, leaves, len(ran), len(all))
		}
	})
}

// TestMemoDivergence: a run that asks, after the same answers, another
// question than the one the tree holds (or one more, or one fewer) is an
// error that names the schedule and both questions: the model is not
// deterministic and the tree cannot judge its schedules.
func TestMemoDivergence(t *testing.T) {
	leaf := func() *memoLeaf { return &memoLeaf{clean: true} }
	rec := func(qs ...string) *memoRecorder {
		r := newMemoRecorder(sim.NewReplay(nil))
		for _, q := range qs {
			r.Choose(2, q)
		}
		return r
	}
	for _, tc := range []struct {
		second *memoRecorder
		want   string
	}{
		{rec("a", "c"), `schedule 2: at its decision 2 it asked "c" (2 options) where an earlier schedule with the same answers asked "b" (2 options): the model is not deterministic`},
		{rec("a", "b", "x"), `schedule 2: at its decision 3 it asked "x" (2 options) where an earlier schedule with the same answers asked nothing (that run ended): the model is not deterministic`},
		{rec("a"), `schedule 2: at its decision 2 it asked nothing (the run ended) where an earlier schedule with the same answers asked "b" (2 options): the model is not deterministic`},
		{rec("a", "b"), ""},
	} {
		var m schedMemo
		if err := m.add(rec("a", "b"), leaf, 1); err != nil {
			t.Fatal(err)
		}
		err := m.add(tc.second, leaf, 2)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// TestMemoRecorderCap: a run that asks more than memoMaxCalls questions
// keeps no more of them (the long runs of the scaled seed benchmark ask
// millions), and putting it in the tree drops the tree: no error, no
// claim, every schedule after it runs.
func TestMemoRecorderCap(t *testing.T) {
	var m schedMemo
	rec := newMemoRecorder(sim.NewReplay(nil))
	for range memoMaxCalls + 10 {
		rec.Choose(2, "q")
	}
	if len(rec.calls) != memoMaxCalls || !rec.over {
		t.Fatalf("recorded %d calls (over %v); want %d and over", len(rec.calls), rec.over, memoMaxCalls)
	}
	if err := m.add(rec, func() *memoLeaf { return &memoLeaf{clean: true} }, 1); err != nil {
		t.Fatal(err)
	}
	if ok, _ := m.complete(); ok || m.active() || m.nodes != 0 {
		t.Errorf("after a run over the cap: complete %v, active %v, %d nodes; want the tree dropped", ok, m.active(), m.nodes)
	}
}
