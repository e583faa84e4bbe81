package explore

import (
	"fmt"
	"slices"
	"sort"
)

// Merge combines the results of the n shards of one search (explore --shard
// i/n, each written with --json and read back with ReadJSON) into the
// result of the search they split: the schedules and the outcome counts add
// up, the coverage adds up, and a claim holds when every shard makes it (a
// bounded search is complete up to its bound, or exhaustive, when every
// shard's part is). The violation is the one the unsharded search meets
// first: for random, sparse and pct the smallest schedule number (shards
// number their schedules as the unsharded search does), for bounded the
// fewest disturbing decisions, then the lowest shard. The shards must be of
// the same scenario (by hash), knobs (by hash), strategy, seed, runs,
// budget, depth and time limit, and be exactly shards 0..n-1 of n.
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
			return id{r.Scenario, r.ScenarioSHA256, r.KnobsSHA256(), r.Strategy, r.Seed, r.Runs, r.Budget, r.Depth,
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
			out.finish()
			return &out, nil
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
	for _, p := range parts {
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
		out.Repeats += p.Repeats // each shard's own: shards do not share what they ran
		out.MostDisturbing = max(out.MostDisturbing, p.MostDisturbing)
		if fd := p.Found; fd != nil && better(p.Strategy, fd, out.Found) {
			f := *fd
			if n > 1 {
				f.Shard = fmt.Sprintf("%d/%d", p.Shard, n)
			}
			out.Found = &f
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
	if !out.Exhausted {
		out.Distinct = 0
	}
	if !out.Exhausted {
		out.MostDisturbing = 0
	}
	out.finish()
	return out, nil
}

// better reports whether fd is met before cur by the unsharded search.
func better(strategy string, fd, cur *Found) bool {
	if cur == nil {
		return true
	}
	if strategy == "bounded" {
		return disturbing(fd.Decisions) < disturbing(cur.Decisions)
	}
	return fd.Schedule < cur.Schedule
}
