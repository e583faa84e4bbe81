package explore

import (
	"fmt"
	"slices"
	"sort"
)

// Merge combines the results of the n shards of one search (explore --shard
// i/n, each written with --json and read back with ReadJSON) into the
// result of the search they split. The shards must be of the same scenario
// (by hash), knobs (by hash), strategy, seed, runs, budget, depth and time
// limit, and be exactly shards 0..n-1 of n.
//
// The violation is the one the unsharded search meets first: one the
// failure corpus showed (shard 0 re-runs the corpus, before any schedule);
// for random, sparse and pct the smallest schedule number (the shards run
// contiguous ranges of the seeds and number their schedules as the
// unsharded search does); for bounded the least Found.Order (the order the
// bounded search runs schedules in, which the shards keep too).
//
// The counts, the coverage and the oracles' tallies add up over the shards
// the unsharded search would have run: random, sparse and pct stop, as it
// does, at the first shard (in range order) with a violation, whose counts
// end at it; the later shards' work is left out, so the merge is exactly
// the unsharded search. bounded's shards take the quiet schedule's
// branches round robin, so none can tell which of its schedules the
// unsharded search would run after the first violation: a merged bounded
// violation counts every shard's schedules (CountsPastViolation) and is
// numbered in its shard's count (Found.ScheduleInShard).
//
// A claim holds when every shard makes it (a bounded search is complete up
// to its bound, or exhaustive, when every shard's part is). For random,
// sparse and pct, the shards' trees of the schedules they ran (shardtree.go)
// give the unsharded search's distinct schedules, repeats and exhaustive
// claim; a shard without one (its tree was dropped as not paying) leaves
// the merge to its own repeats (each shard's, as shards do not share what
// they ran) and to a shard that ran every schedule by itself for the claim.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("merge: no shard results")
	}
	p0 := parts[0]
	n := max(p0.Shards, 1)
	if len(parts) != n {
		return nil, fmt.Errorf("merge: %d results for %d shards (shard %d/%d): every shard 0..%d once", len(parts), n, p0.Shard, n, n-1)
	}
	seen := make([]bool, n)
	for _, p := range parts {
		type id struct {
			Scenario, SHA, Knobs, Strategy string
			Seed                           uint64
			Runs, Budget, Depth, Shards    int
			Limit                          int64
			Focus                          string
		}
		mk := func(r *Result) id {
			seed := r.Seed
			if r.Strategy == "bounded" {
				seed = 0 // bounded draws nothing: its seed is no part of the search
			}
			return id{r.Scenario, r.ScenarioSHA256, r.KnobsSHA256(), r.Strategy, seed, r.Runs, r.Budget, r.Depth,
				max(r.Shards, 1), int64(r.Limit), fmt.Sprint(r.Focus)}
		}
		if a, b := mk(p0), mk(p); a != b {
			return nil, fmt.Errorf("merge: shard %d/%d is not of the same search as shard %d/%d: %+v vs %+v", p.Shard, n, p0.Shard, n, b, a)
		}
		if p.Shard < 0 || p.Shard >= n || seen[p.Shard] {
			return nil, fmt.Errorf("merge: shard %d/%d given twice (or out of range)", p.Shard, n)
		}
		seen[p.Shard] = true
		if p.Merged > 0 {
			return nil, fmt.Errorf("merge: shard %d/%d is itself a merge", p.Shard, n)
		}
	}
	parts = slices.Clone(parts)
	sort.Slice(parts, func(i, j int) bool { return parts[i].Shard < parts[j].Shard })
	for _, p := range parts {
		if p.NoDecisions {
			// The scenario makes no decision: every shard ran its one
			// schedule, which is every schedule.
			out := *p
			out.Shard, out.Shards, out.First, out.Merged = 0, 0, 0, n
			out.scheduleTree = ""
			out.finish()
			return &out, nil
		}
	}
	seeded := p0.Strategy == "random" || p0.Strategy == "sparse" || p0.Strategy == "pct"
	// The shards whose work the unsharded search would have done.
	use := parts
	switch fd := parts[0].Found; {
	case fd != nil && fd.Corpus != "":
		use = parts[:1] // before any schedule of any shard
	case fd != nil && p0.Strategy == "bounded" && slices.Equal(fd.Order, []int{0}):
		use = parts[:1] // the quiet schedule, the first of all (shard 0 counts it)
	case seeded:
		for i, p := range parts {
			if p.Found != nil {
				use = parts[:i+1]
				break
			}
		}
	}
	out := &Result{Scenario: p0.Scenario, File: p0.File, Strategy: p0.Strategy, Seed: p0.Seed, Knobs: p0.Knobs,
		Limit: p0.Limit, Bound: p0.Bound, Focus: p0.Focus, Depth: p0.Depth, PCTAgents: p0.PCTAgents, PCTSteps: p0.PCTSteps,
		ScenarioSHA256: p0.ScenarioSHA256, ResolvedKnobs: p0.ResolvedKnobs, knobsSHA256: p0.KnobsSHA256(), Runs: p0.Runs,
		Budget: p0.Budget, Merged: n}
	out.Outcomes = make([]OutcomeCount, len(p0.Outcomes))
	copy(out.Outcomes, p0.Outcomes)
	for i := range out.Outcomes {
		out.Outcomes[i].Positive, out.Outcomes[i].Negative = 0, 0
	}
	complete, exhausted, seededAll := true, true, false
	var causes []string
	foundShard := 0
	for _, p := range use {
		if len(p.Outcomes) != len(out.Outcomes) {
			return nil, fmt.Errorf("merge: shard %d/%d has %d outcomes, shard 0 %d", p.Shard, n, len(p.Outcomes), len(out.Outcomes))
		}
		out.Schedules += p.Schedules
		out.CorpusRuns += p.CorpusRuns
		// Each shard's cross-schedule lock cycles (a cycle whose halves
		// fell in two shards is not found: the shards' graphs are not in
		// their JSON).
		out.LockCycles = append(out.LockCycles, p.LockCycles...)
		for _, l := range p.LifetimeReports {
			out.lifetime.count(l)
		}
		for _, l := range p.DataRaceReports {
			out.races.count(l)
		}
		for i, c := range p.Outcomes {
			out.Outcomes[i].Positive += c.Positive
			out.Outcomes[i].Negative += c.Negative
		}
		if p.Coverage != nil {
			if out.Coverage == nil {
				out.Coverage = newCoverage(0)
			}
			out.Coverage.merge(p.Coverage)
		}
		if p.Interrupted {
			out.Interrupted = true
			if p.Cause != "" {
				causes = append(causes, p.Cause)
			}
		}
		complete = complete && p.CompleteUpTo == p.Bound && p.Bound > 0
		exhausted = exhausted && p.Exhausted
		// A seeded search's claim is of the whole scenario (every one of
		// its schedules ran in that shard), not of the shard's part.
		seededAll = seededAll || (p.Exhausted && p.Distinct > 0)
		out.Distinct = max(out.Distinct, p.Distinct)
		out.Repeats += p.Repeats // each shard's own, unless the trees say better (below)
		out.MostDisturbing = max(out.MostDisturbing, p.MostDisturbing)
		if fd := p.Found; fd != nil && better(p.Strategy, fd, p.Shard, out.Found, foundShard) {
			f := *fd
			if n > 1 {
				f.Shard = fmt.Sprintf("%d/%d", p.Shard, n)
			}
			out.Found, foundShard = &f, p.Shard
		}
	}
	if len(causes) > 0 {
		out.Cause = causes[0]
	}
	if out.Found == nil && !out.Interrupted {
		if out.Strategy == "bounded" && complete {
			out.CompleteUpTo = out.Bound
		}
		out.Exhausted = exhausted || seededAll
	}
	if seeded {
		if m, ok := unshardedMemo(use); ok {
			out.Repeats = m.repeats
			out.Exhausted, out.Distinct = m.claimed && out.Found == nil, m.distinct
		}
	}
	if out.Found != nil && len(use) > 1 && !seeded {
		// bounded: which of the shards' schedules come after the first
		// violation in the unsharded search's order is not known.
		out.CountsPastViolation = true
		out.Found.ScheduleInShard = true
	}
	if !out.Exhausted {
		out.Distinct = 0
	}
	if !out.Exhausted {
		out.MostDisturbing = 0
	}
	out.finish()
	return out, nil
}

// unshardedMemo is what the unsharded search's tree of schedules did
// (shardtree.go) over the schedules of use (shards 0..k of a seeded search,
// in order), when every one of them wrote its tree and ran its whole range
// (the last may have stopped early: at its violation, or interrupted), so
// that together they ran schedules 1..last with no gap.
func unshardedMemo(use []*Result) (memoReplay, bool) {
	var root *unionNode
	next := 0 // the first schedule (0-based) the next shard must start at
	for i, p := range use {
		if p.First != next || p.scheduleTree == "" && p.Schedules > 0 {
			return memoReplay{}, false // a gap, or a shard that kept no tree
		}
		next = p.First + p.Schedules
		if i+1 < len(use) {
			// A shard before the last ran its whole range.
			if f, _ := shardRange(p.Runs, p.Shard+1, max(p.Shards, 1)); f != next {
				return memoReplay{}, false
			}
		}
		if p.scheduleTree == "" {
			continue // an empty range (more shards than runs)
		}
		if err := unionTree(&root, p.scheduleTree); err != nil {
			return memoReplay{}, false
		}
	}
	return replayMemo(root, next), true
}

// better reports whether fd (of shard) is met before cur (of curShard) by
// the unsharded search: the smaller schedule number for the seeded
// strategies (numbered as the unsharded search does); for bounded, the
// lesser Order (the order bounded runs schedules in), or, when a shard did
// not say it (JSON from before it was written), the fewer disturbing
// decisions, then the lower shard.
func better(strategy string, fd *Found, shard int, cur *Found, curShard int) bool {
	if cur == nil {
		return true
	}
	if strategy == "bounded" {
		if fd.Order != nil && cur.Order != nil {
			return compareOrder(fd.Order, cur.Order) < 0
		}
		if a, b := orderDisturbing(fd), orderDisturbing(cur); a != b {
			return a < b
		}
		return shard < curShard
	}
	return fd.Schedule < cur.Schedule
}

// orderDisturbing is the disturbing decisions of the schedule that showed
// fd, as found when known (else as shrunk).
func orderDisturbing(fd *Found) int {
	if len(fd.Order) > 0 {
		return fd.Order[0]
	}
	return disturbing(fd.Decisions)
}
