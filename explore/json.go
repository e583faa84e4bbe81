package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"perfsim/sim"
)

// exploreJSON is what explore --json writes: everything WriteText prints, for
// scripts, and what Merge reads back. The wall clock is left out, so the
// same exploration writes the same bytes.
type exploreJSON struct {
	Scenario  string   `json:"scenario"`
	File      string   `json:"file"`
	Strategy  string   `json:"strategy"`
	Seed      uint64   `json:"seed"`
	Knobs     []string `json:"knobs,omitempty"`
	Schedules int      `json:"schedules"`
	Bound     int      `json:"bound,omitempty"`
	Focus     []string `json:"focus,omitempty"`
	// CompleteUpTo (bounded): every schedule with at most this many
	// disturbing decisions ran; Exhausted: every schedule of the scenario
	// ran (the bound cut none).
	CompleteUpTo   int  `json:"complete_up_to_budget,omitempty"`
	Exhausted      bool `json:"exhausted"`
	MostDisturbing int  `json:"most_disturbing,omitempty"`
	// Blocked (dpor): schedules stopped part way as equivalent to one run before.
	Blocked int `json:"dpor_blocked,omitempty"`
	// Footprints (dpor): the fragments with a complete footprint, and the
	// most met starts without one.
	Footprints *PORFootprints `json:"dpor_footprints,omitempty"`
	// Depth, Agents and Steps (pct): the depth, the n and k of its
	// guarantee, and the guarantee 1/(n*k^(depth-1)).
	Depth       int     `json:"depth,omitempty"`
	Agents      int     `json:"pct_agents,omitempty"`
	Steps       int     `json:"pct_steps,omitempty"`
	Guarantee   float64 `json:"pct_guarantee,omitempty"`
	NoDecisions bool    `json:"no_decisions,omitempty"`
	// Repeats (random, sparse, pct): schedules that drew one run before
	// them (with one job, judged from it, not run again); Distinct: when
	// exhausted, the scenario's schedules, every one of which ran.
	Repeats     int            `json:"repeats,omitempty"`
	Distinct    int            `json:"distinct_schedules,omitempty"`
	Interrupted bool           `json:"interrupted"`
	Cause       string         `json:"interrupted_by,omitempty"`
	Failed      bool           `json:"failed"`
	Outcomes    []OutcomeCount `json:"outcomes"`
	Found       *foundJSON     `json:"found,omitempty"`
	// CorpusRuns: failure corpus entries re-run before the search (not
	// among the schedules, nor in the outcome counts); CorpusSaved: where
	// the found violation was saved.
	CorpusRuns  int    `json:"corpus_runs,omitempty"`
	CorpusSaved string `json:"corpus_saved,omitempty"`
	CorpusError string `json:"corpus_error,omitempty"` // why it could not be saved
	// LockCycles: lock-order cycles found only across schedules.
	LockCycles []string `json:"lock_cycles,omitempty"`
	// LifetimeReports: the object-lifetime reports across schedules.
	LifetimeReports []*LifetimeReport `json:"lifetime_reports,omitempty"`
	// DataRaceReports: the data-race reports across schedules.
	DataRaceReports []*DataRaceReport `json:"data_race_reports,omitempty"`
	// The search's identity and shape, which Merge checks its shards
	// agree on: the scenario's and the resolved knobs' hashes, the time
	// limit, the schedules asked for (all shards), the budget, and the
	// shard ("i/n", 0-based; absent: unsharded) with its first schedule.
	ScenarioSHA256 string `json:"scenario_sha256"`
	KnobsSHA256    string `json:"knobs_sha256"`
	Limit          int64  `json:"limit_ns"`
	Runs           int    `json:"runs"`
	Budget         int    `json:"budget,omitempty"`
	Shard          string `json:"shard,omitempty"`
	First          int    `json:"first_schedule,omitempty"`
	// Merged: the number of shard files Merge combined into this one.
	Merged int `json:"merged_shards,omitempty"`
	// CountsPastViolation (merged): the counts are of every shard's
	// schedules, past the first violation too (Result.CountsPastViolation).
	CountsPastViolation bool `json:"counts_past_violation,omitempty"`
	// ScheduleTree (a shard of random, sparse or pct): the distinct
	// schedules it ran, for Merge (shardtree.go).
	ScheduleTree string `json:"schedule_tree,omitempty"`
	// Coverage: the step points and pairs reached (see coverage.go), in
	// a shard's file (for merge), a merge's, or when asked for
	// (Result.CoverageInJSON).
	Coverage *Coverage `json:"coverage,omitempty"`
}

type foundJSON struct {
	Schedule           int      `json:"schedule"`
	Seed               uint64   `json:"seed,omitempty"`
	Violation          string   `json:"violation"`
	Original           int      `json:"original_decisions"`
	OriginalDisturbing int      `json:"original_disturbing"`
	Token              string   `json:"token"`
	Disturbing         []string `json:"disturbing_choices"`
	ShrinkRuns         int      `json:"shrink_runs"`
	ShrinkInterrupted  bool     `json:"shrink_interrupted,omitempty"`
	Signature          string   `json:"signature"`
	Corpus             string   `json:"corpus,omitempty"` // the corpus entry that showed it
	Shard              string   `json:"shard,omitempty"`  // merged: the shard that found it
	// ScheduleInShard (merged bounded): schedule is that shard's count.
	ScheduleInShard bool `json:"schedule_in_shard,omitempty"`
	// Order (a shard of bounded): the schedule's place in the bounded
	// search's order (Found.Order), for Merge.
	Order []int `json:"bounded_order,omitempty"`
}

// WriteJSON writes the exploration as indented JSON.
func (ex *Result) WriteJSON(w io.Writer) error {
	out := exploreJSON{Scenario: ex.Scenario, File: ex.File, Strategy: ex.Strategy, Seed: ex.Seed, Knobs: ex.Knobs,
		Schedules: ex.Schedules, CorpusRuns: ex.CorpusRuns, CorpusSaved: ex.CorpusSaved, CorpusError: ex.CorpusError, LockCycles: ex.LockCycles, LifetimeReports: ex.LifetimeReports, DataRaceReports: ex.DataRaceReports, Exhausted: ex.Exhausted,
		NoDecisions: ex.NoDecisions, Repeats: ex.Repeats, Distinct: ex.Distinct, Interrupted: ex.Interrupted, Cause: ex.Cause, Failed: ex.Failed, Outcomes: ex.Outcomes,
		ScenarioSHA256: ex.ScenarioSHA256, KnobsSHA256: ex.KnobsSHA256(), Limit: int64(ex.Limit), Runs: ex.Runs,
		Budget: ex.Budget, First: ex.First, Merged: ex.Merged, CountsPastViolation: ex.CountsPastViolation}
	if ex.Shards > 1 || ex.Merged > 0 || ex.CoverageInJSON {
		out.Coverage = ex.Coverage
	}
	if ex.Shards > 1 {
		out.Shard = fmt.Sprintf("%d/%d", ex.Shard, ex.Shards)
		out.ScheduleTree = ex.scheduleTree
	}
	if ex.Strategy == "bounded" {
		out.Bound, out.Focus, out.CompleteUpTo = ex.Bound, ex.Focus, ex.CompleteUpTo
		if ex.Exhausted {
			out.MostDisturbing = ex.MostDisturbing
		}
	}
	if ex.Strategy == "dpor" {
		out.Blocked = ex.PORBlocked
		out.Footprints = ex.Footprints
	}
	if ex.Strategy == "pct" {
		out.Depth, out.Agents, out.Steps = ex.Depth, ex.PCTAgents, ex.PCTSteps
		out.Guarantee = PCTGuarantee(ex.PCTAgents, ex.PCTSteps, ex.Depth)
	}
	if fd := ex.Found; fd != nil {
		out.Found = &foundJSON{Schedule: fd.Schedule, Seed: fd.Seed, Violation: fd.Violation, Original: fd.Original,
			OriginalDisturbing: fd.OriginalDisturbing, Token: sim.EncodeToken(fd.Decisions), Disturbing: fd.Lines,
			ShrinkRuns: fd.ShrinkRuns, ShrinkInterrupted: fd.ShrinkInterrupted, Signature: fd.Signature, Corpus: fd.Corpus,
			Shard: fd.Shard, ScheduleInShard: fd.ScheduleInShard}
		if ex.Shards > 1 {
			out.Found.Order = fd.Order
		}
		if out.Found.Disturbing == nil {
			out.Found.Disturbing = []string{}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // outcomes hold > and <
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// KnobsSHA256 is the hash of the resolved knobs (KnobsSHA256), or "" when
// they are not known (a Result read back from JSON carries the hash alone).
func (ex *Result) KnobsSHA256() string {
	if ex.knobsSHA256 != "" {
		return ex.knobsSHA256
	}
	if ex.ResolvedKnobs == nil {
		return ""
	}
	return KnobsSHA256(ex.ResolvedKnobs)
}

// ReadJSON reads an exploration written by WriteJSON (a shard's, for Merge).
func ReadJSON(name string, r io.Reader) (*Result, error) {
	var in exploreJSON
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if in.Scenario == "" || in.Strategy == "" || in.Runs <= 0 {
		return nil, fmt.Errorf("%s: not an explore --json file (no scenario, strategy or runs)", name)
	}
	ex := &Result{Scenario: in.Scenario, File: in.File, Strategy: in.Strategy, Seed: in.Seed, Knobs: in.Knobs,
		Limit: sim.Time(in.Limit), Schedules: in.Schedules, Outcomes: in.Outcomes, CompleteUpTo: in.CompleteUpTo,
		Exhausted: in.Exhausted, MostDisturbing: in.MostDisturbing, NoDecisions: in.NoDecisions, Repeats: in.Repeats, Distinct: in.Distinct, Bound: in.Bound,
		Focus: in.Focus, Depth: in.Depth, PCTAgents: in.Agents, PCTSteps: in.Steps, Interrupted: in.Interrupted,
		Cause: in.Cause, ScenarioSHA256: in.ScenarioSHA256, knobsSHA256: in.KnobsSHA256, CorpusRuns: in.CorpusRuns,
		CorpusSaved: in.CorpusSaved, CorpusError: in.CorpusError, LockCycles: in.LockCycles, LifetimeReports: in.LifetimeReports, DataRaceReports: in.DataRaceReports, Runs: in.Runs, Budget: in.Budget, First: in.First, Merged: in.Merged,
		Coverage: in.Coverage, Failed: in.Failed, CountsPastViolation: in.CountsPastViolation, scheduleTree: in.ScheduleTree}
	if in.Shard != "" {
		i, n, err := ParseShard(in.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: shard: %v", name, err)
		}
		ex.Shard, ex.Shards = i, n
	}
	if fd := in.Found; fd != nil {
		dec, err := sim.DecodeToken(fd.Token)
		if err != nil {
			return nil, fmt.Errorf("%s: found: %v", name, err)
		}
		ex.Found = &Found{Schedule: fd.Schedule, Seed: fd.Seed, Violation: fd.Violation, Original: fd.Original,
			OriginalDisturbing: fd.OriginalDisturbing, Decisions: dec, Lines: fd.Disturbing, ShrinkRuns: fd.ShrinkRuns,
			ShrinkInterrupted: fd.ShrinkInterrupted, Signature: fd.Signature, Corpus: fd.Corpus, Shard: fd.Shard,
			ScheduleInShard: fd.ScheduleInShard, Order: fd.Order}
	}
	return ex, nil
}

// ParseShard parses "i/n" (0 <= i < n).
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%q: expected i/n, a shard 0..n-1 of n >= 1 (like 0/4)", s)
	}
	return i, n, nil
}
