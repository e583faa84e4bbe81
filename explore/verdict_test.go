package explore

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// TestBoundedCompleteness: a bounded search says it is complete up to its
// bound when it ran every schedule with at most that many disturbances, and
// exhaustive only when the bound cut no schedule.
func TestBoundedCompleteness(t *testing.T) {
	f := loadBuiltin(t, "task-work-nmi-race")
	type got struct {
		Schedules, CompleteUpTo, MostDisturbing int
		Exhausted                               bool
		Summary                                 string
	}
	for _, tc := range []struct {
		name   string
		budget int
		runs   int
		focus  []string
		want   got
	}{
		{"bound 2", 2, 100000, nil, got{19, 2, 0, false, "no violation in 19 schedules: complete up to 2 disturbing decisions (not exhaustive: schedules with more were not run)"}},
		{"bound 1", 1, 100000, nil, got{7, 1, 0, false, "no violation in 7 schedules: complete up to 1 disturbing decision (not exhaustive: schedules with more were not run)"}},
		{"bound 3", 3, 100000, nil, got{27, 3, 3, true, "no violation in 27 schedules: exhaustive, every schedule of the scenario (the bound of 3 disturbing decisions cut none; the most disturbing has 3)"}},
		{"bound 5", 5, 100000, nil, got{27, 5, 3, true, "no violation in 27 schedules: exhaustive, every schedule of the scenario (the bound of 5 disturbing decisions cut none; the most disturbing has 3)"}},
		{"runs 5", 2, 5, nil, got{5, 0, 0, false, "no violation in 5 schedules (not complete: the search stopped at --runs before every schedule with at most 2 disturbing decisions ran)"}},
		{"focus", 2, 100000, []string{"__schedule:irqs-off"}, got{7, 2, 0, false, "no violation in 7 schedules: complete up to 2 disturbing decisions, each at a question containing __schedule:irqs-off (not exhaustive: schedules with more were not run)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := Explore(f, Options{Strategy: "bounded", Budget: tc.budget, Runs: tc.runs, Focus: tc.focus})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			ex.WriteText(&b)
			summary := ""
			for _, l := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(l, "no violation") {
					summary = l
				}
			}
			most := 0
			if ex.Exhausted {
				most = ex.MostDisturbing
			}
			if d := cmp.Diff(tc.want, got{ex.Schedules, ex.CompleteUpTo, most, ex.Exhausted, summary}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			b.Reset()
			if err := ex.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			hasUpTo := strings.Contains(b.String(), `"complete_up_to_budget": `)
			hasExhausted := strings.Contains(b.String(), `"exhausted": true`)
			if hasUpTo != (tc.want.CompleteUpTo > 0) || hasExhausted != tc.want.Exhausted {
				t.Errorf("JSON: complete_up_to_budget %v, exhausted %v:\n%s", hasUpTo, hasExhausted, b.String())
			}
		})
	}
}

// TestExploreOptionErrors: options that cannot mean anything are errors,
// not a search of something else.
func TestExploreOptionErrors(t *testing.T) {
	f := loadBuiltin(t, "task-work-nmi-race")
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Budget: -1}, "budget -1: the disturbing decisions a schedule may make cannot be negative (0: the default)"},
		{Options{Jobs: -5}, "jobs -5: expected 1 or more schedules at once (0: one)"},
		{Options{Focus: []string{"tie"}}, "focus: only the bounded strategy focuses (strategy random)"},
		{Options{Strategy: "bounded", Focus: []string{"no-such-question"}}, `focus "no-such-question" matches no question this scenario can ask: a step point label (simrun names steps), tie, nmi-skid, idle_balance, unwind_user:fault, or select_task_rq:TASK for its tasks`},
		{Options{Strategy: "bounded", Focus: []string{"tie", ""}}, "focus: an empty word (between commas?) would match every question"},
		{Options{Strategy: "bounded", Focus: []string{"select_task_rq:nobody"}}, `focus "select_task_rq:nobody" matches no question this scenario can ask: a step point label (simrun names steps), tie, nmi-skid, idle_balance, unwind_user:fault, or select_task_rq:TASK for its tasks`},
	} {
		_, err := Explore(f, tc.o)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v\nwant %s", tc.o, err, tc.want)
		}
	}
	for _, ok := range []string{"tie", "irqs-off", "select_task_rq:app", "task_work_run:nmi-work", "task_work_run:", "nmi-skid", "perf_mmap"} {
		if err := CheckFocus(f, []string{ok}, nil); err != nil {
			t.Errorf("focus %q: %v", ok, err)
		}
	}
}

// TestQuestionNamesCoverWhatRunsAsk: every question a run of a built-in asks
// (random schedules, then the knobs its outcomes name) is one CheckFocus
// knows, so --focus never refuses a question a scenario asks.
func TestQuestionNamesCoverWhatRunsAsk(t *testing.T) {
	t.Parallel() // beside the write audits: its runs share nothing mutable
	for _, b := range scenarios.Builtins() {
		if b.Name == "seed-close-benchmark" || strings.HasPrefix(b.Name, "coresight-snapshot") {
			continue // the same questions as others, in seconds a run
		}
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := loadBuiltin(t, b.Name)
			qs := QuestionNames(f, nil)
			asked := map[string]bool{}
			for _, knobs := range runner.Variants(f) {
				for seed := range uint64(3) {
					ql := &questionLog{inner: runner.ScheduleChooser(seed, 0)}
					// A run cut at 50ms (a longer built-in) has asked its questions so far.
					if _, _, err := runner.RunOnce(f, runner.Options{Knobs: knobs, Chooser: ql, Limit: 50 * sim.Millisecond}); err != nil && !runner.IsLimit(err) {
						t.Fatal(err)
					}
					for _, q := range ql.q.Table {
						asked[q.What] = true
					}
				}
			}
			for what := range asked {
				if !matchesQuestion(what, qs) {
					t.Errorf("%s asks %q, which QuestionNames lacks", b.Name, what)
				}
			}
		})
	}
}

// TestExploreNoDecisionsRunsOnce: a scenario whose run asks no question has
// one schedule; random and sparse run it once and say the search is
// exhaustive, where they used to rerun it --runs times. One that asks
// questions is not cut short.
func TestExploreNoDecisionsRunsOnce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		strategy  string
		schedules int
		none      bool
	}{
		{"rb-nested-nmi-output", "random", 1, true},
		{"rb-nested-nmi-output", "sparse", 1, true},
		{"aux-pause-syscall", "random", 1, true},
		{"task-work-nmi-race", "random", 50, false},
	} {
		t.Run(tc.name+"/"+tc.strategy, func(t *testing.T) {
			ex, err := Explore(loadBuiltin(t, tc.name), Options{Strategy: tc.strategy, Runs: 50, Seed: 1, Jobs: 2})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Schedules != tc.schedules || ex.NoDecisions != tc.none || ex.Exhausted != tc.none || ex.Found != nil {
				t.Errorf("schedules %d, no decisions %v, exhausted %v, found %v; want %d, %v, %v, none",
					ex.Schedules, ex.NoDecisions, ex.Exhausted, ex.Found != nil, tc.schedules, tc.none, tc.none)
			}
		})
	}
}
