package explore

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// Options says how to search the schedules of a scenario.
type Options struct {
	Strategy string // "random" (default), "rapid", "sparse", "pct" or "bounded"
	// Depth (pct): the bug depth PCT targets, Depth-1 priority change
	// points per schedule (default 3).
	Depth int
	Runs  int    // schedules to run (default 100); bounded: the most to run
	Seed  uint64 // random, sparse: seeds Seed..Seed+Runs-1; rapid: rapid's seed; bounded has none
	// Budget bounds the disturbing decisions of one random schedule (sim.Limited;
	// default 16), which keeps found schedules short; rapid: the most
	// disturbances one schedule draws (simrapid.Chooser's Max, default 16);
	// sparse: the most disturbances one schedule plans (Sparse's Max);
	// bounded: the bound, every schedule with at most Budget disturbances
	// (default 2). Negative is an error.
	Budget int
	Limit  sim.Time // the virtual time limit of each run (0: DefaultLimit)
	// MaxSteps, MaxWall and MaxMemory bound each run as runner.Options do
	// (0: the runner's defaults; negative: no limit). A run that reaches one
	// ends the exploration with its *runner.LimitError.
	MaxSteps  int64
	MaxWall   time.Duration
	MaxMemory int64
	Knobs     map[string]string // knob overrides
	Perf      runner.PerfBackend
	// MaxShrinkRuns bounds the replays spent shrinking (default 2000).
	MaxShrinkRuns int
	// Focus (bounded): disturb only the decisions whose question contains
	// one of these (a step point label such as perf_mmap_aux, "tie",
	// nmi-skid, select_task_rq); the others keep the quiet course.
	Focus []string
	// Jobs runs that many schedules at once (random, sparse and bounded; 0
	// or 1: one at a time). The results are the same for any value.
	Jobs int
	// Shard and Shards split the schedule space into Shards disjoint parts
	// and run part Shard (0-based; Shards 0 or 1: all of it). random,
	// sparse and pct: the Runs schedules (seeds) in contiguous ranges;
	// bounded: the subtrees of the quiet schedule's branches, round robin,
	// each shard running at most its share of Runs. Merge combines the
	// shards' results into the result of one unsharded search (random,
	// sparse, pct: exactly; bounded: its violation, but numbered in its
	// shard and with every shard's counts when one was found).
	// The failure corpus is re-run by shard 0 only.
	Shard, Shards int
	// Corpus, when set, is the failure corpus directory (see corpus.go):
	// its entries for this scenario and knobs run first, and a violation
	// found is saved there. "": no corpus.
	Corpus string
	// Progress, when set, is called after each schedule.
	Progress func(done, total int)
	// Context, when set, interrupts the exploration when it is done (simrun:
	// Ctrl-C or SIGTERM): no more schedules are handed out, a run under way
	// stops at its next decision, shrinking stops with the smallest schedule
	// so far, and Explore returns what it has (Result.Interrupted). rapid
	// stops between schedules.
	Context context.Context

	done <-chan struct{} // Context.Done(), or nil
	// noMemo (tests): every schedule runs, none is judged from the tree of
	// those run before (memo.go).
	noMemo bool
	// corpusRan (tests), when set, is called after each failure corpus
	// entry's run, before its violation (if any) is shrunk.
	corpusRan func()
}

// OutcomeCount is how many schedules satisfied an outcome, as herd7 counts them.
type OutcomeCount struct {
	Outcome  string `json:"outcome"`
	Line     int    `json:"line"`
	Quant    string `json:"quantifier"`
	Positive int    `json:"positive"` // schedules where its condition was true
	Negative int    `json:"negative"`
	Verdict  string `json:"verdict"` // Always, Sometimes, Never; "-" when it never applied
	OK       bool   `json:"ok"`      // the verdict is what the quantifier claims
}

// Found is the violation explore found, shrunk.
type Found struct {
	// Schedule is the 1-based number of the schedule that showed it (in
	// the whole search, sharded or not, but see ScheduleInShard); when
	// Corpus is set, the 1-based number of the failure corpus entry among
	// those re-run before the search's first schedule.
	Schedule  int
	Seed      uint64 // its seed (random strategy)
	Violation string // what failed: "invariant NAME: ...", "outcome ...", "oops: ..."
	Original  int    // decisions of the schedule as found
	// OriginalDisturbing is how many of those were disturbing (non-zero).
	OriginalDisturbing int
	Decisions          []int // the shrunk decision list
	ShrinkRuns         int   // replays spent shrinking
	// ShrinkElapsed is the wall clock spent shrinking (and describing the
	// shrunk schedule): Result.Elapsed less it is the time to the violation.
	ShrinkElapsed time.Duration
	// ShrinkInterrupted: the exploration was interrupted while shrinking, so
	// Decisions is the smallest schedule found by then (the schedule as
	// found when no replay had finished).
	ShrinkInterrupted bool
	Lines             []string       // the disturbing choices, as trace lines
	Result            *runner.Result // the shrunk schedule's result
	Timeline          string
	// Signature names what failed (the shrinking kept it); Questions is
	// every decision's question in the shrunk schedule's run. The replay
	// file records both.
	Signature string
	Questions *Questions
	// Corpus is the corpus entry (a replay file's path) that showed it,
	// when it was found by re-running the corpus.
	Corpus string
	// Shard (merged results) is the shard that found it, "i/n".
	Shard string
	// ScheduleInShard (merged bounded results): Schedule counts the
	// schedules of shard Shard alone, not of the whole search (the shards
	// take the quiet schedule's branches round robin, so no shard knows
	// how many schedules the unsharded search runs before this one).
	ScheduleInShard bool
	// Order (bounded) is the found schedule's place in the order the
	// bounded search runs schedules, as found (not shrunk): its number of
	// disturbing decisions d, then the index and option of each, in
	// decision order (d, j1, a1, ..., jd, ad). The search runs schedules in
	// increasing Order (compared element by element), sharded or not:
	// Merge picks the shards' violation the unsharded search meets first
	// by it. nil: not known (a result of another strategy, or read from
	// JSON that lacks it).
	Order []int
}

// Result is the outcome of an exploration.
type Result struct {
	notJudged string // the outcomes no schedule judged: their when names other knob values
	Scenario  string
	File      string
	Strategy  string
	Seed      uint64
	Knobs     []string // the overrides
	Limit     sim.Time
	Schedules int // schedules run (not counting shrinking)
	Outcomes  []OutcomeCount
	Found     *Found
	Elapsed   time.Duration // wall clock (for schedules/second; not in replay files)
	Failed    bool
	// CompleteUpTo (bounded strategy, no violation): every schedule with at
	// most this many disturbing decisions (at the Focus decisions, when set)
	// was run; 0 when the search stopped first (at Runs, or interrupted).
	CompleteUpTo int
	// Exhausted (bounded strategy): complete, and no schedule was cut by the
	// bound: every schedule of the scenario (disturbing only at the Focus
	// decisions, when set) was run. MostDisturbing is then the most
	// disturbing decisions any of them has.
	Exhausted      bool
	MostDisturbing int
	// PORBlocked (dpor): schedules stopped part way as equivalent to one
	// run before (dpor.go); not judged and not in Schedules.
	PORBlocked int
	// Footprints (dpor): how many of the walk's fragments had a complete
	// footprint, and the most met that did not (dpor_footprints.go).
	Footprints *PORFootprints
	// NoDecisions: the first schedule asked no question at all, so every
	// schedule is that one; the search stopped there, exhaustive (random and
	// sparse; bounded finds the same by itself).
	NoDecisions bool
	// Repeats (random, sparse, pct): schedules that drew a schedule run
	// before them (the same answers to the same questions), judged from
	// what that run left (memo.go; with more than one job, one may have
	// been run again by a job that drew it first). Distinct: when Exhausted, how many
	// schedules the scenario has: the search ran every one.
	Repeats, Distinct int
	Bound             int
	Focus             []string
	// Depth, PCTAgents and PCTSteps (pct): the depth searched, and the
	// agents (n: 3 per CPU, and other lanes) and decisions (k) of the
	// quiet run its guarantee is for.
	Depth     int
	PCTAgents int
	PCTSteps  int
	// Shard, Shards: the part of the schedule space this search ran
	// (Shards 0: all). Runs is the number of schedules asked for, of all
	// the shards; First is the 0-based index of this shard's first
	// schedule (random, sparse, pct).
	Shard, Shards int
	Runs, First   int
	// Budget is the strategy's budget as run (random's disturbances,
	// bounded's bound), for Merge to check shards agree.
	Budget int
	// Merged is the number of shard results Merge combined into this one.
	Merged int
	// CountsPastViolation (merged): the schedule and outcome counts (and
	// coverage and the oracles' tallies) are of every shard's schedules,
	// including schedules the unsharded search would not have run, as it
	// stops at its first violation (bounded: the shards cannot tell which
	// of their schedules come after that violation in its order).
	CountsPastViolation bool
	// scheduleTree (a shard of random, sparse or pct): the tree of the
	// distinct schedules the shard ran, with the first schedule number of
	// each (schedMemo.encode), for Merge to count the distinct schedules and the
	// repeats of the unsharded search; "" when the shard did not keep it.
	scheduleTree string
	// Coverage is what the schedules reached (see coverage.go), nil when
	// not collected.
	Coverage *Coverage
	// CoverageInJSON puts the coverage detail in WriteJSON's output even
	// when the search is not a shard (a shard's and a merge's always have it).
	CoverageInJSON bool
	knobsSHA256    string // read back from JSON, where ResolvedKnobs are not
	// Interrupted: Options.Context ended the search (Schedules were run) or
	// the shrinking (Found.ShrinkInterrupted) early; Cause says why.
	Interrupted bool
	Cause       string
	// ScenarioSHA256 and ResolvedKnobs (every knob's value, NAME=VALUE,
	// sorted) are the identity a replay file records.
	ScenarioSHA256 string
	ResolvedKnobs  []string
	// CorpusRuns is how many failure corpus entries were re-run before the
	// search (not among the Schedules, nor in the outcome counts, the
	// coverage or the oracles' tallies, nor within Runs); CorpusSaved is
	// the entry the found violation was saved as, when it was.
	CorpusRuns  int
	CorpusSaved string
	// CorpusError is why the violation could not be saved to the corpus
	// (an unwritable --corpus DIR): the verdict stands.
	CorpusError string
	// LockCycles are the lock-order cycles lockdep's graph shows only when
	// the schedules' dependencies are put together (lockdep.go); each fails
	// the search like a violation.
	LockCycles []string
	locks      lockGraph
	// LifetimeReports are the object-lifetime oracle's reports across the
	// schedules, one per kind, with how many schedules showed it (lifetime.go).
	LifetimeReports []*LifetimeReport
	lifetime        lifetimeTally
	// DataRaceReports are the data-race oracle's reports across the
	// schedules, one per kind (datarace.go).
	DataRaceReports []*DataRaceReport
	races           raceTally
}

// Explore runs many schedules of f, counts its outcomes, stops at the first
// violation (an invariant, an always/never outcome failing in a schedule, or an
// oops) and shrinks it.
func Explore(f *scenarios.File, o Options) (*Result, error) {
	if o.Runs <= 0 {
		o.Runs = 100
	}
	if o.Budget < 0 {
		return nil, fmt.Errorf("budget %d: the disturbing decisions a schedule may make cannot be negative (0: the default)", o.Budget)
	}
	if o.Jobs < 0 {
		return nil, fmt.Errorf("jobs %d: expected 1 or more schedules at once (0: one)", o.Jobs)
	}
	if len(o.Focus) > 0 && o.Strategy != "bounded" {
		return nil, fmt.Errorf("focus: only the bounded strategy focuses (strategy %s)", strategyName(o.Strategy))
	}
	if err := CheckFocus(f, o.Focus, o.Perf); err != nil {
		return nil, err
	}
	if o.Budget <= 0 && o.Strategy == "bounded" {
		o.Budget = 2
	}
	if o.Budget <= 0 {
		o.Budget = 16
	}
	if o.Depth < 0 {
		return nil, fmt.Errorf("depth %d: expected 1 or more (0: the default, 3)", o.Depth)
	}
	if o.Depth == 0 {
		o.Depth = 3
	}
	if o.MaxShrinkRuns <= 0 {
		o.MaxShrinkRuns = 2000
	}
	if o.Strategy == "" {
		o.Strategy = "random"
	}
	switch o.Strategy {
	case "random", "rapid", "sparse", "pct", "bounded", "dpor":
	default:
		return nil, fmt.Errorf("unknown strategy %q (random, rapid, sparse, pct, bounded or dpor)", o.Strategy)
	}
	if o.Shards < 0 || o.Shards > 0 && (o.Shard < 0 || o.Shard >= o.Shards) {
		return nil, fmt.Errorf("shard %d/%d: expected a shard 0..n-1 of n >= 1", o.Shard, o.Shards)
	}
	if o.Shards > 1 && o.Strategy == "dpor" {
		return nil, fmt.Errorf("shard: dpor walks one decision tree whose sleep sets cross every branch and cannot be split yet; shard random, sparse, pct or bounded")
	}
	if o.Shards > 1 && o.Strategy == "rapid" {
		return nil, fmt.Errorf("shard: rapid draws every schedule from one generator and cannot be split; shard random, sparse, pct or bounded")
	}
	// Reject bad knobs before the first run.
	resolved, err := resolvedKnobs(f, o.Knobs, o.Perf)
	if err != nil {
		return nil, err
	}
	ex := &Result{Scenario: runner.ScenarioName(f), File: f.Name, Strategy: o.Strategy, Seed: o.Seed,
		Knobs: runner.KnobList(o.Knobs), Limit: o.Limit, ScenarioSHA256: ScenarioSHA256(f), ResolvedKnobs: resolved,
		Shard: o.Shard, Shards: o.Shards, Runs: o.Runs, Budget: o.Budget}
	if o.Strategy == "pct" {
		ex.Budget = 0 // PCT has no budget
	}
	if o.Context != nil {
		o.done = o.Context.Done()
	}
	if ex.Limit <= 0 {
		ex.Limit = runner.DefaultLimit
	}
	for _, oc := range f.Outcomes {
		ex.Outcomes = append(ex.Outcomes, OutcomeCount{Outcome: f.OutcomeText(oc), Line: oc.Pos.Line, Quant: oc.Quant.String()})
	}
	if o.Strategy == "bounded" {
		ex.Bound, ex.Focus = o.Budget, o.Focus
	}
	start := time.Now()
	corpusEnded := false // the corpus showed a violation, or was interrupted
	if o.Corpus != "" && o.Shard == 0 {
		found, err := replayCorpus(f, o, ex)
		if err != nil {
			return nil, err
		}
		corpusEnded = found || ex.Interrupted
	}
	if !corpusEnded { // else the search does not start; it finishes as below
		switch o.Strategy {
		case "random":
			err = exploreRandom(f, o, ex)
		case "rapid":
			err = exploreRapid(f, o, ex)
		case "sparse":
			err = exploreSparse(f, o, ex)
		case "pct":
			err = explorePCT(f, o, ex)
		case "bounded":
			err = exploreBounded(f, o, ex)
		case "dpor":
			err = exploreDPOR(f, o, ex)
		}
	}
	ex.Elapsed = time.Since(start)
	if err != nil {
		return nil, err
	}
	if ex.Found != nil && ex.Found.ShrinkInterrupted {
		ex.Interrupted = true
	}
	if o.Corpus != "" && ex.Found != nil && !ex.Found.ShrinkInterrupted && ex.Found.Corpus == "" {
		if ex.CorpusSaved, err = SaveCorpus(o.Corpus, ex.ReplayFile()); err != nil {
			// the violation stands: say the corpus could not keep it
			ex.CorpusError = err.Error()
		}
	}
	if ex.Interrupted && o.Context != nil {
		if c := context.Cause(o.Context); c != nil {
			ex.Cause = c.Error()
		}
	}
	ex.finish()
	ex.notJudged = notJudged(f, ex)
	return ex, nil
}

// notJudged is the line naming the outcomes no schedule judged because
// their when names other knob values (runner.NotJudgedHint): an outcome
// whose when holds for the search's knobs and that no schedule judged (one
// at a time no run reached) is not one of them.
func notJudged(f *scenarios.File, ex *Result) string {
	knobs := map[string]string{}
	for _, kv := range ex.ResolvedKnobs {
		if k, v, ok := strings.Cut(kv, "="); ok {
			knobs[k] = v
		}
	}
	na := make([]bool, len(ex.Outcomes))
	for i, c := range ex.Outcomes {
		na[i] = c.Positive+c.Negative == 0 && ex.Schedules > 0
		if i < len(f.Outcomes) && len(knobs) > 0 {
			na[i] = na[i] && !runner.WhenHolds(f.Outcomes[i], knobs)
		}
	}
	return runner.NotJudgedHint(f, na, "explore")
}

// shardRange is the range [first, last) of the runs schedules that shard
// of shards runs: contiguous, the sizes differing by at most one.
func shardRange(runs, shard, shards int) (first, last int) {
	if shards <= 1 {
		return 0, runs
	}
	return runs * shard / shards, runs * (shard + 1) / shards
}

// initCoverage starts the coverage of a search.
func (ex *Result) initCoverage(f *scenarios.File, o Options) {
	ex.Coverage = newCoverage(len(QuestionNames(f, o.Perf)))
}

func strategyName(s string) string {
	if s == "" {
		return "random"
	}
	return s
}

func (o Options) runOptions(ch sim.Chooser, keep bool) runner.Options {
	return runner.Options{Knobs: o.Knobs, Chooser: ch, Limit: o.Limit, KeepTrace: keep, StopAtViolation: true, Perf: o.Perf,
		MaxSteps: o.MaxSteps, MaxWall: o.MaxWall, MaxMemory: o.MaxMemory, OutcomesOnly: !keep}
}

// count adds one schedule's outcomes to the counts.
func (ex *Result) count(res *runner.Result) {
	ex.Schedules++
	for i, oc := range res.Outcomes {
		ex.countOutcome(i, oc.Counted, oc.Truth)
	}
}

// countOutcome counts outcome i of one schedule: nothing when the schedule
// did not count it (a when that did not hold).
func (ex *Result) countOutcome(i int, counted, truth bool) {
	switch {
	case !counted:
	case truth:
		ex.Outcomes[i].Positive++
	default:
		ex.Outcomes[i].Negative++
	}
}

func (ex *Result) finish() {
	ex.LockCycles = append(ex.LockCycles, ex.locks.Cycles...)
	ex.locks.Cycles = nil
	if ex.lifetime.Reports != nil {
		ex.LifetimeReports = ex.lifetime.Reports
	}
	if ex.races.Reports != nil {
		ex.DataRaceReports = ex.races.Reports
	}
	ex.Failed = ex.Found != nil || len(ex.LockCycles) > 0
	for i := range ex.Outcomes {
		c := &ex.Outcomes[i]
		switch {
		case c.Positive+c.Negative == 0:
			c.Verdict, c.OK = "-", true
			continue
		case c.Negative == 0:
			c.Verdict = "Always"
		case c.Positive == 0:
			c.Verdict = "Never"
		default:
			c.Verdict = "Sometimes"
		}
		switch c.Quant {
		case "always":
			c.OK = c.Negative == 0
		case "never":
			c.OK = c.Positive == 0
		default:
			c.OK = c.Positive > 0
		}
		if !c.OK {
			ex.Failed = true
		}
	}
}

// signature names the first thing that failed in a schedule, or "". Shrinking
// keeps a schedule only while it fails the same way.
func signature(r *runner.Run, res *runner.Result) string {
	if res.Oops != nil && !r.OopsExpected() {
		return "oops: " + res.Oops.Message
	}
	for _, v := range res.Violations {
		if !r.Judged(v.Invariant) {
			return "invariant " + v.Invariant
		}
	}
	for _, oc := range res.Outcomes {
		if oc.Failure() {
			return "outcome " + oc.Outcome
		}
	}
	return ""
}

// describeFailure is the one-line account of the failure of a schedule.
func describeFailure(r *runner.Run, res *runner.Result, sig string) string {
	if res.Oops != nil && !r.OopsExpected() {
		return fmt.Sprintf("kernel oops on cpu%d at %s: %s", res.Oops.CPU, res.Oops.T, res.Oops.Message)
	}
	for _, v := range res.Violations {
		if "invariant "+v.Invariant == sig {
			return "invariant " + v.String()
		}
	}
	return sig
}

func exploreRandom(f *scenarios.File, o Options, ex *Result) error {
	return exploreSeeds(f, o, ex, func(seed uint64) sim.Chooser { return runner.ScheduleChooser(seed, o.Budget) })
}

// exploreSeeds runs the schedules of seeds Seed..Seed+Runs-1, each with the
// chooser chooser(seed) makes, and shrinks the first violation.
func exploreSeeds(f *scenarios.File, o Options, ex *Result, chooser func(seed uint64) sim.Chooser) error {
	type outcome struct {
		r           *runner.Run
		res         *runner.Result
		cov         *covChooser
		rec         *memoRecorder // the run's questions (nil: not recorded)
		repeat      *memoLeaf     // a schedule run before: judged from the tree
		interrupted bool
		err         error
	}
	var err error
	first, last := shardRange(o.Runs, o.Shard, o.Shards)
	ex.First = first
	n := last - first
	ex.initCoverage(f, o)
	memo := &schedMemo{off: o.noMemo}
	runOrdered(n, o.Jobs, o.stopped, func(i int) outcome {
		cov := newCovChooser(chooser(o.Seed + uint64(first+i)))
		if !memo.active() {
			r, res, interrupted, err := o.run(f, cov)
			return outcome{r: r, res: res, cov: cov, interrupted: interrupted, err: err}
		}
		if l := memo.lookup(cov); l != nil {
			return outcome{cov: cov, repeat: l}
		}
		cov = newCovChooser(chooser(o.Seed + uint64(first+i))) // afresh: lookup asked it
		rec := newMemoRecorder(cov)
		r, res, interrupted, err := o.run(f, rec)
		return outcome{r: r, res: res, cov: cov, rec: rec, interrupted: interrupted, err: err}
	}, func(i int, out outcome) bool {
		if out.err != nil {
			err = out.err
			return true
		}
		if out.interrupted {
			ex.Interrupted = true
			return true
		}
		schedule := first + i + 1
		if out.repeat != nil {
			memo.repeat()
			ex.countLeaf(out.repeat)
			ex.tallyLeaf(out.repeat, schedule)
		} else {
			ex.count(out.res)
			ex.tally(out.r, schedule)
			if out.rec != nil {
				if err = memo.add(out.rec, func() *memoLeaf { return newMemoLeaf(out.r, out.res) }, schedule); err != nil {
					return true
				}
			}
		}
		ex.Coverage.add(out.cov, schedule)
		if o.Progress != nil {
			o.Progress(i+1, n)
		}
		if out.repeat != nil {
			memo.claim(ex)
			return false
		}
		if sig := signature(out.r, out.res); sig != "" {
			var found *Found
			if found, err = shrink(f, o, out.r.Decisions(), sig); err == nil {
				// The schedule's number in the whole (unsharded) search.
				found.Schedule, found.Seed = schedule, o.Seed+uint64(first+i)
				ex.Found = found
			}
			return true
		}
		// A run that asked no question went the only way the scenario can
		// go: the chooser was never consulted, so no other seed can differ.
		if i == 0 && out.r.NumDecisions() == 0 {
			ex.NoDecisions, ex.Exhausted = true, true
			return true
		}
		memo.claim(ex)
		return false
	})
	ex.Repeats = memo.repeats
	if o.Shards > 1 {
		ex.scheduleTree = memo.encode()
	}
	if err == nil && ex.Found == nil && ex.Schedules < n && o.stopped() {
		ex.Interrupted = true
	}
	return err
}

// WriteText prints the exploration: the herd7-style table, then the violation,
// its shrunk schedule and the replay token.
func (ex *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "explore %s (%s): strategy %s", ex.Scenario, ex.File, ex.Strategy)
	if ex.Strategy != "bounded" && ex.Strategy != "dpor" { // bounded and dpor have no seed
		fmt.Fprintf(w, ", seed %d", ex.Seed)
	}
	fmt.Fprintf(w, ", %d schedules", ex.Schedules)
	if len(ex.Knobs) > 0 {
		fmt.Fprintf(w, ", %s", strings.Join(ex.Knobs, " "))
	}
	fmt.Fprintln(w)
	if ex.Strategy == "pct" {
		fmt.Fprintln(w, ex.pctText())
	}
	if ex.Interrupted {
		cause := ""
		if ex.Cause != "" {
			cause = " (" + ex.Cause + ")"
		}
		switch {
		case ex.Found != nil && ex.Found.ShrinkInterrupted:
			fmt.Fprintf(w, "INTERRUPTED%s while shrinking the violation of %s\n", cause, ex.Found.where())
		case ex.CorpusRuns > 0:
			fmt.Fprintf(w, "INTERRUPTED%s after %d schedules (and %s re-run before them): the counts below are of those schedules\n",
				cause, ex.Schedules, plural(ex.CorpusRuns, "failure corpus entry", "failure corpus entries"))
		default:
			fmt.Fprintf(w, "INTERRUPTED%s after %d schedules: the counts below are of those\n", cause, ex.Schedules)
		}
	}
	if len(ex.Outcomes) > 0 {
		fmt.Fprintf(w, "%-9s %9s %9s  %s\n", "verdict", "positive", "negative", "outcome")
	}
	for _, c := range ex.Outcomes {
		mark := ""
		if !c.OK {
			mark = "   <- claimed " + c.Quant
		}
		fmt.Fprintf(w, "%-9s %9d %9d  %s%s\n", c.Verdict, c.Positive, c.Negative, c.Outcome, mark)
	}
	if ex.notJudged != "" {
		fmt.Fprintln(w, ex.notJudged)
	}
	if ex.Coverage != nil && ex.Coverage.Schedules > 0 {
		fmt.Fprintln(w, ex.Coverage.Summary())
	}
	for _, c := range ex.LockCycles {
		fmt.Fprintln(w, "LOCKDEP:", c)
	}
	for _, l := range lifetimeLines(ex.LifetimeReports, ex.Schedules) {
		fmt.Fprintln(w, l)
	}
	for _, l := range raceLines(ex.DataRaceReports, ex.Schedules) {
		fmt.Fprintln(w, l)
	}
	if ex.CorpusRuns > 0 && (ex.Found == nil || ex.Found.Corpus == "") {
		fmt.Fprintf(w, "failure corpus: %s re-run before the search, none failed again (not among the schedules)\n", plural(ex.CorpusRuns, "entry", "entries"))
	}
	if ex.CountsPastViolation {
		fmt.Fprintf(w, "merged counts: every shard's schedules, including ones past the first violation: the unsharded search stops there and counts fewer\n")
	}
	switch {
	case ex.Found == nil && ex.NoDecisions:
		fmt.Fprintf(w, "no violation in %d schedule: exhaustive, the scenario makes no decision, so this schedule is every schedule\n", ex.Schedules)
	case ex.Found == nil && ex.Exhausted && ex.Strategy == "dpor":
		fmt.Fprintf(w, "no violation in %d schedules: exhaustive, one schedule of every class of equivalent interleavings (%d more stopped part way as equivalent to one run before)\n",
			ex.Schedules, ex.PORBlocked)
	case ex.Found == nil && ex.Exhausted && ex.Distinct > 0:
		fmt.Fprintf(w, "no violation in %d schedules: exhaustive, they include every one of the scenario's %d schedules (%d repeated a schedule run before them)\n",
			ex.Schedules, ex.Distinct, ex.Repeats)
	case ex.Found == nil && ex.Strategy == "dpor":
		fmt.Fprintf(w, "no violation in %d schedules (not exhaustive: the walk stopped at --runs or was interrupted; %d more stopped part way as equivalent)\n", ex.Schedules, ex.PORBlocked)
		if l := ex.Footprints.footprintLine(); l != "" {
			fmt.Fprintln(w, l)
		}
	case ex.Found == nil && ex.Exhausted:
		fmt.Fprintf(w, "no violation in %d schedules: exhaustive, every schedule of the scenario%s (the bound of %s cut none; the most disturbing has %d)\n",
			ex.Schedules, focusText(ex.Focus), disturbingDecisions(ex.Bound), ex.MostDisturbing)
	case ex.Found == nil && ex.CompleteUpTo > 0:
		fmt.Fprintf(w, "no violation in %d schedules: complete up to %s%s (not exhaustive: schedules with more were not run)\n",
			ex.Schedules, disturbingDecisions(ex.CompleteUpTo), focusText(ex.Focus))
	case ex.Found == nil && ex.Strategy == "bounded" && ex.Interrupted:
		fmt.Fprintf(w, "no violation in %d schedules (not complete: interrupted before every schedule with at most %s ran)\n", ex.Schedules, disturbingDecisions(ex.Bound))
	case ex.Found == nil && ex.Strategy == "bounded":
		fmt.Fprintf(w, "no violation in %d schedules (not complete: the search stopped at --runs before every schedule with at most %s ran)\n", ex.Schedules, disturbingDecisions(ex.Bound))
	case ex.Found == nil:
		fmt.Fprintf(w, "no violation in %d schedules\n", ex.Schedules)
	default:
		fd := ex.Found
		fmt.Fprintf(w, "VIOLATION in %s", fd.where())
		if (ex.Strategy == "random" || ex.Strategy == "sparse" || ex.Strategy == "pct") && fd.Corpus == "" {
			fmt.Fprintf(w, " (seed %d)", fd.Seed)
		}
		fmt.Fprintf(w, ": %s\n", fd.Violation)
		if fd.Corpus != "" {
			fmt.Fprintf(w, "found again by the failure corpus: %s\n", fd.Corpus)
		}
		if fd.ShrinkInterrupted && countNonZero(fd.Decisions) == fd.OriginalDisturbing {
			fmt.Fprintf(w, "shrinking interrupted after %d replays: kept unshrunk, %d disturbing decisions (of %d)\n",
				fd.ShrinkRuns, fd.OriginalDisturbing, fd.Original)
		} else if fd.ShrinkInterrupted {
			fmt.Fprintf(w, "shrinking interrupted after %d replays: partly shrunk from %d disturbing decisions (of %d) to %d (of %d)\n",
				fd.ShrinkRuns, fd.OriginalDisturbing, fd.Original, len(fd.Lines), len(fd.Decisions))
		} else {
			fmt.Fprintf(w, "shrunk from %d disturbing decisions (of %d) to %d (of %d) in %d replays\n",
				fd.OriginalDisturbing, fd.Original, len(fd.Lines), len(fd.Decisions), fd.ShrinkRuns)
		}
		fmt.Fprintln(w, "disturbing choices:")
		for _, l := range fd.Lines {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintf(w, "token: %s\n", sim.EncodeToken(fd.Decisions))
		if fd.Timeline != "" {
			fmt.Fprint(w, fd.Timeline)
		}
	}
	if ex.CorpusError != "" {
		fmt.Fprintf(w, "not saved to the failure corpus: %s\n", ex.CorpusError)
	}
	if ex.CorpusSaved != "" {
		fmt.Fprintf(w, "saved to the failure corpus: %s\n", ex.CorpusSaved)
	}
	switch {
	case ex.Failed:
		fmt.Fprintln(w, "FAIL")
	case ex.Interrupted:
		// Not a pass: the search stopped before it ran what it was asked to.
		fmt.Fprintln(w, "INTERRUPTED")
	default:
		fmt.Fprintln(w, "ok")
	}
}

// where names the schedule that showed the violation: its number in the
// search, in one shard's count, or a failure corpus entry.
func (fd *Found) where() string {
	switch {
	case fd.Corpus != "":
		return fmt.Sprintf("failure corpus entry %d (re-run before any schedule of the search)", fd.Schedule)
	case fd.ScheduleInShard:
		return fmt.Sprintf("schedule %d of shard %s (that shard's count: the unsharded search meets this violation first, at a number the shards cannot tell)", fd.Schedule, fd.Shard)
	}
	return fmt.Sprintf("schedule %d", fd.Schedule)
}

// plural says "1 one" or "N many".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// ReplayFile returns the replay file of the found violation: the scenario's
// identity, every decision's question, the signature and the decisions.
func (ex *Result) ReplayFile() *ReplayFile {
	fd := ex.Found
	if fd == nil {
		return nil
	}
	rf := &ReplayFile{Format: ReplayFormat, Version: Version, Scenario: ex.Scenario, File: ex.File,
		ScenarioSHA256: ex.ScenarioSHA256, Kernel: ex.Knobs, Knobs: ex.ResolvedKnobs, KnobsSHA256: KnobsSHA256(ex.ResolvedKnobs),
		Strategy: ex.Strategy, Seed: fd.Seed, Limit: ex.Limit, LimitSHA256: LimitSHA256(ex.Limit), Violation: fd.Violation, Signature: fd.Signature,
		Questions: fd.Questions, Disturbing: fd.Lines, Decisions: fd.Decisions}
	if rf.Questions == nil {
		rf.Questions = &Questions{}
	}
	rf.QuestionsSHA256 = rf.Questions.SHA256()
	return rf
}

// disturbing counts the non-zero decisions of d.
func disturbing(d []int) int {
	n := 0
	for _, x := range d {
		if x != 0 {
			n++
		}
	}
	return n
}
