package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
	"perfsim/sim"
)

// viaJSON writes ex as explore --json does and reads it back, as merge does.
func viaJSON(t *testing.T, ex *Result) *Result {
	t.Helper()
	var b bytes.Buffer
	if err := ex.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJSON("shard.json", &b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return back
}

// exploreShards runs the search o in shards shards and merges their JSON; it
// returns the unsharded search and the merge.
func exploreShards(t *testing.T, f *scenarios.File, o Options, shards int) (one, merged *Result, parts []*Result) {
	t.Helper()
	one, err := Explore(f, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range shards {
		so := o
		so.Shard, so.Shards = i, shards
		p, err := Explore(f, so)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, viaJSON(t, p))
	}
	merged, err = Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	return one, merged, parts
}

// jsonMap is ex's JSON as a map, with the coverage detail, less the fields
// only a merge has.
func jsonMap(t *testing.T, ex *Result) map[string]any {
	t.Helper()
	ex.CoverageInJSON = true
	var b bytes.Buffer
	if err := ex.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "merged_shards")
	if fd, ok := m["found"].(map[string]any); ok {
		delete(fd, "shard")
	}
	return m
}

func text(ex *Result) string {
	var b bytes.Buffer
	ex.WriteText(&b)
	return b.String()
}

// TestMergeBoundedViolationInSearchOrder: bounded shards take the quiet
// schedule's branches round robin, so the lowest shard is not the first in
// the search's order. The merge picks the violation the unsharded search
// finds (shard 2's here, not shard 0's of schedule 332), numbers it in its
// shard's count and says so, and says its counts run past the violation.
func TestMergeBoundedViolationInSearchOrder(t *testing.T) {
	f := loadBuiltin(t, "aux-pause-resume-nmi")
	o := Options{Strategy: "bounded", Runs: 100000, Jobs: 1, Knobs: map[string]string{"aux-pause-guard": "off"}}
	one, m, parts := exploreShards(t, f, o, 3)
	const token = "s2.BQACAgABAuiIO18" // the unsharded search's, schedule 182
	if one.Found == nil || sim.EncodeToken(one.Found.Decisions) != token || one.Found.Schedule != 182 {
		t.Fatalf("unsharded: found %+v; want schedule 182, token %s", one.Found, token)
	}
	type found struct {
		Token, Shard    string
		Schedule        int
		InShard, Past   bool
		Order           []int
		ShardSchedules  int
		MergedSchedules int
	}
	all := 0
	for _, p := range parts {
		all += p.Schedules
	}
	got := found{sim.EncodeToken(m.Found.Decisions), m.Found.Shard, m.Found.Schedule, m.Found.ScheduleInShard, m.CountsPastViolation,
		m.Found.Order, parts[2].Schedules, m.Schedules}
	want := found{token, "2/3", 21, true, true, one.Found.Order, 21, all}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merge (-want +got):\n%s", diff)
	}
	if s := parts[0].Found; s == nil || s.Schedule != 332 || compareOrder(s.Order, m.Found.Order) <= 0 {
		t.Errorf("shard 0's violation: %+v; want schedule 332, later in the search's order than shard 2's", s)
	}
	out := text(m)
	for _, s := range []string{"VIOLATION in schedule 21 of shard 2/3 (that shard's count",
		"merged counts: every shard's schedules, including ones past the first violation", "token: " + token + "\n", "FAIL\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("text lacks %q:\n%s", s, out)
		}
	}
	// Merged JSON says what the numbers are.
	mj := jsonMap(t, m)
	if mj["counts_past_violation"] != true || mj["found"].(map[string]any)["schedule_in_shard"] != true {
		t.Errorf("merged JSON: counts_past_violation %v, found.schedule_in_shard %v", mj["counts_past_violation"], mj["found"].(map[string]any)["schedule_in_shard"])
	}
}

// TestBoundedOrder: the order bounded runs schedules in is the order of
// their Found.Order lists: disturbances first, then the earlier branch.
func TestBoundedOrder(t *testing.T) {
	ordered := [][]int{
		nil,          // the quiet schedule
		{0, 0, 1},    // one disturbance, at decision 2
		{0, 0, 0, 2}, // at decision 3, option 2
		{0, 0, 0, 0, 1},
		{1, 0, 1},    // two: the branches of {1} first
		{1, 0, 0, 1}, // ...
		{0, 0, 2, 1}, // then of {0, 0, 2}: queued after {1}'s
		{0, 2, 0, 1, 0, 1},
	}
	for i := 1; i < len(ordered); i++ {
		a, b := boundedOrder(ordered[i-1]), boundedOrder(ordered[i])
		if compareOrder(a, b) >= 0 {
			t.Errorf("%v (%v) not before %v (%v)", ordered[i-1], a, ordered[i], b)
		}
	}
}

// TestMergeSeededStopsAtFirstViolation: random, sparse and pct shards run
// contiguous ranges of the seeds; the merge is the unsharded search exactly:
// the first shard with a violation wins, its counts end there, and the
// shards after it are left out (shard 1 ran 66 schedules to its own).
func TestMergeSeededStopsAtFirstViolation(t *testing.T) {
	f := loadBuiltin(t, "rb-data-head-backwards")
	o := Options{Runs: 2000, Seed: 18446744073709551000, Jobs: 1, Knobs: map[string]string{"rb-put-handle": "pre-1b038c6e05ff"}}
	one, m, parts := exploreShards(t, f, o, 2)
	if one.Found == nil || one.Schedules != 6 || one.Found.Schedule != 6 {
		t.Fatalf("unsharded: %d schedules, found %+v; want a violation in schedule 6", one.Schedules, one.Found)
	}
	if parts[1].Found == nil || parts[1].Schedules != 66 {
		t.Fatalf("shard 1: %d schedules, found %v; want its own violation at its 66th", parts[1].Schedules, parts[1].Found != nil)
	}
	if m.Schedules != 6 || m.Found.Schedule != 6 || m.Found.Seed != 18446744073709551005 || m.CountsPastViolation || m.Found.ScheduleInShard {
		t.Errorf("merge: %d schedules, violation in schedule %d (seed %d), counts past it %v", m.Schedules, m.Found.Schedule, m.Found.Seed, m.CountsPastViolation)
	}
	if diff := cmp.Diff(jsonMap(t, one), jsonMap(t, m)); diff != "" {
		t.Errorf("merge vs one search (-one +merged):\n%s", diff)
	}
	if !strings.Contains(text(m), "strategy random, seed 18446744073709551000, 6 schedules") {
		t.Errorf("text:\n%s", text(m))
	}
}

// TestMergeSeededExhaustive: 40 random schedules of a scenario with 7 run
// every one of them, but no shard of 4 does by itself; the shards' trees
// of schedules (schedule_tree) give the merge the one search's claim,
// distinct schedules and repeats.
func TestMergeSeededExhaustive(t *testing.T) {
	f := loadBuiltin(t, "pmu-overflow-vs-sched-out")
	for _, strategy := range []string{"random", "sparse", "pct"} {
		t.Run(strategy, func(t *testing.T) {
			one, m, parts := exploreShards(t, f, Options{Strategy: strategy, Runs: 40, Seed: 1, Jobs: 1}, 4)
			sum := 0
			for _, p := range parts {
				if p.Exhausted || p.scheduleTree == "" {
					t.Errorf("shard %d: exhausted %v, tree %q; want a part, with its tree", p.Shard, p.Exhausted, p.scheduleTree)
				}
				sum += p.Repeats
			}
			if diff := cmp.Diff(jsonMap(t, one), jsonMap(t, m)); diff != "" {
				t.Errorf("merge vs one search (-one +merged):\n%s", diff)
			}
			if sum == one.Repeats {
				t.Errorf("the shards' repeats add up to the one search's %d: the test shows nothing", sum)
			}
			if strategy != "random" {
				return
			}
			if !one.Exhausted || one.Distinct != 7 || one.Repeats != 33 {
				t.Fatalf("one search: exhausted %v, %d distinct, %d repeats; want true, 7, 33", one.Exhausted, one.Distinct, one.Repeats)
			}
			if want := "exhaustive, they include every one of the scenario's 7 schedules (33 repeated"; !strings.Contains(text(m), want) {
				t.Errorf("text lacks %q:\n%s", want, text(m))
			}
		})
	}
}

// TestReplayMemo: the union of the trees of shards that each kept their own
// (schedMemo, per shard, as a sharded search does) replayed by replayMemo
// gives what one tree over every schedule gives: the repeats, where it is
// dropped as not paying (probation) or kept, and the exhaustive claim.
func TestReplayMemo(t *testing.T) {
	var compared, dropped, claimed, partial int // the cases compared, and of what kind
	dropAt := map[int]int{}                     // the cases by the schedule the one tree was dropped after
	check := func(name string, paths [][]memoCall, shards int) {
		t.Helper()
		run := func(memo *schedMemo, ex *Result, from, to int) {
			for s := from; s < to; s++ {
				rec := &memoRecorder{calls: paths[s]}
				if err := memo.add(rec, func() *memoLeaf { return &memoLeaf{clean: true} }, s+1); err != nil {
					t.Fatal(err)
				}
				memo.claim(ex)
			}
		}
		whole, wex := &schedMemo{}, &Result{}
		run(whole, wex, 0, len(paths))
		want := memoReplay{repeats: whole.repeats, claimed: wex.Exhausted, distinct: wex.Distinct}
		var root *unionNode
		for i := range shards {
			first, last := shardRange(len(paths), i, shards)
			memo := &schedMemo{}
			run(memo, &Result{}, first, last)
			tree := memo.encode()
			if tree == "" {
				return // that shard dropped its own: the merge cannot replay
			}
			if err := unionTree(&root, tree); err != nil {
				t.Fatal(err)
			}
		}
		if got := replayMemo(root, len(paths)); got != want {
			t.Errorf("%s: replayed %+v, one tree %+v (dropped %v after schedule %d)", name, got, want, whole.off, whole.runs)
		}
		compared++
		switch {
		case whole.off:
			dropped++
			dropAt[whole.runs]++
		case want.claimed:
			claimed++
		default:
			partial++
		}
	}
	// Random trees: a path of answers reaches a leaf when depth answers are
	// taken; question i at depth d has 1+(i+d)%width options.
	type shape struct{ depth, width, draws, shards int }
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []shape{{2, 3, 40, 4}, {3, 3, 100, 4}, {8, 3, 200, 4}, {8, 3, 60, 3}, {4, 3, 300, 5},
		{1, 3, 10, 2}, {6, 3, 130, 2}, {10, 4, 250, 4}, {4, 3, 200, 4}} {
		for trial := range 20 {
			paths := make([][]memoCall, sh.draws)
			for s := range paths {
				var p []memoCall
				node := 0
				for d := range sh.depth {
					n := 1 + (node+d)%sh.width
					a := rng.IntN(n)
					if trial%2 == 0 && n > 1 {
						a = min(rng.IntN(n*2), n-1) // skewed: more repeats
					}
					p = append(p, memoCall{what: fmt.Sprintf("q%d", node), n: int32(n), d: int32(a), a0: -1, a1: -1})
					node = node*3 + a + 1
				}
				paths[s] = p
			}
			check(fmt.Sprintf("shape %+v trial %d", sh, trial), paths, sh.shards)
		}
	}
	// Sequences of schedules by number: leaf k of a tree of 16 two-way
	// questions; -1: a new schedule each time.
	leaf := func(k int) []memoCall {
		var p []memoCall
		for d := range 16 {
			p = append(p, memoCall{what: fmt.Sprintf("q%d", d), n: 2, d: int32(k >> d & 1), a0: -1, a1: -1})
		}
		return p
	}
	seq := func(ids ...int) [][]memoCall {
		var out [][]memoCall
		next := 1000
		for _, k := range ids {
			if k < 0 {
				k, next = next, next+1
			}
			out = append(out, leaf(k))
		}
		return out
	}
	rep := func(n, k int) []int { return slices.Repeat([]int{k}, n) }
	cat := func(parts ...[]int) []int { return slices.Concat(parts...) }
	// 57 new, then 7 repeats: dropped after schedule 64, itself a repeat.
	check("drop at 64, a repeat", seq(cat(rep(57, -1), rep(7, 1000), rep(50, -1))...), 2)
	// 54 new and 10 repeats, then new ones: kept until 10*8 < 81.
	check("drop at 81", seq(cat(rep(54, -1), rep(10, 1000), rep(60, -1))...), 2)
	// 20 new, then the same ones again: kept.
	check("kept", seq(cat(rep(20, -1), rep(44, 1005), rep(40, 1007))...), 3)
	if dropAt[memoProbation] == 0 || dropAt[81] == 0 || claimed == 0 || partial == 0 {
		t.Errorf("of %d cases compared, %d dropped the one tree (after schedule: cases %v), %d claimed every schedule, %d neither: want some of each, and drops at probation and after", compared, dropped, dropAt, claimed, partial)
	}
	t.Logf("%d cases: %d dropped (after schedule: cases %v), %d claimed, %d neither", compared, dropped, dropAt, claimed, partial)
}

// TestMergeBoundedSeedsDiffer: bounded draws nothing, so shards given
// different --seed values are shards of one search; a seeded strategy's are
// not.
func TestMergeBoundedSeedsDiffer(t *testing.T) {
	f := loadBuiltin(t, "task-work-nmi-race")
	var parts []*Result
	for i, seed := range []uint64{1, 7} {
		p, err := Explore(f, Options{Strategy: "bounded", Seed: seed, Runs: 1000, Jobs: 1, Shard: i, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, viaJSON(t, p))
	}
	if _, err := Merge(parts); err != nil {
		t.Errorf("bounded shards with seeds 1 and 7: %v", err)
	}
	for i, seed := range []uint64{1, 7} {
		p, err := Explore(f, Options{Strategy: "random", Seed: seed, Runs: 10, Jobs: 1, Shard: i, Shards: 2})
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = viaJSON(t, p)
	}
	if _, err := Merge(parts); err == nil || !strings.Contains(err.Error(), "is not of the same search") {
		t.Errorf("random shards with seeds 1 and 7: %v, want them refused", err)
	}
}
