package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"perfsim/explore"
	"perfsim/runner"
	"perfsim/scenarios"
)

// sweepStrategies are the searches the no-false-positive sweep runs on every
// built-in: a coin at every decision, a few disturbances anywhere, and every
// schedule with at most a few disturbing decisions.
var sweepStrategies = []string{"random", "sparse", "bounded"}

// cmdSweep explores every built-in scenario on its default knobs (today's
// kernel) with each strategy and prints the violations found per built-in: the
// standing check that the simulator does not cry wolf. Any violation is either
// an upstream bug the scenario must state as its expected outcome, or a model
// bug. Exit 1 if any search found a violation.
func cmdSweep(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sweep", "[--runs N] [--budget N] [--bounded-runs N] [--slow DURATION] [--jobs N] [NAME...]", stderr)
	runs := fs.Int("runs", 200, "schedules per built-in for random and sparse")
	budget := fs.Int("budget", 3, "bounded: every schedule with at most this many disturbing decisions")
	boundedRuns := fs.Int("bounded-runs", 3000, "bounded: the most schedules to run per built-in (a search cut there says so)")
	slow := fs.Duration("slow", time.Second, "a built-in whose quiet schedule takes longer than this (the 3M-call benchmark) gets 3 schedules per strategy")
	jobs := fs.Int("jobs", runtime.NumCPU(), "schedules to run at once")
	names, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if *runs <= 0 || *budget <= 0 || *boundedRuns <= 0 || *jobs <= 0 {
		fmt.Fprintln(stderr, "simrun sweep: --runs, --budget, --bounded-runs and --jobs must be positive")
		return exitUsage
	}
	var builtins []scenarios.Builtin
	if len(names) == 0 {
		builtins = scenarios.Builtins()
	}
	for _, n := range names {
		b, ok := scenarios.LookupBuiltin(n)
		if !ok {
			fmt.Fprintf(stderr, "simrun sweep: no built-in scenario %q (simrun list names them)\n", n)
			return exitUsage
		}
		builtins = append(builtins, b)
	}
	const row = "%-34s %-8s %9v %10v  %s\n"
	fmt.Fprintf(stdout, row, "built-in", "strategy", "schedules", "violations", "note")
	violations, start := 0, time.Now()
	for _, b := range builtins {
		f, err := runner.Load(&scenarios.Source{Name: "builtin/" + b.Name + ".sim", Src: b.Src, Builtin: true})
		if err != nil {
			printError(stderr, err)
			return exitUsage
		}
		n, nb, slowNote := *runs, *boundedRuns, ""
		t0 := time.Now()
		if _, _, err := runner.RunOnce(f, runner.Options{}); err != nil && !runner.IsLimit(err) {
			printError(stderr, err)
			return exitUsage
		}
		if d := time.Since(t0); d > *slow {
			n, nb = min(n, 3), min(nb, 3)
			slowNote = fmt.Sprintf("slow (%s a schedule): 3 schedules", d.Round(100*time.Millisecond))
		}
		var claims []exhaustiveClaim
		for _, strategy := range sweepStrategies {
			o := explore.Options{Strategy: strategy, Runs: n, Seed: 1, Jobs: *jobs, MaxShrinkRuns: 200}
			if strategy == "bounded" {
				o.Budget, o.Runs = *budget, nb
			}
			ex, err := explore.Explore(f, o)
			if err != nil {
				printError(stderr, err)
				return exitUsage
			}
			found, note := 0, ""
			if ex.Found != nil {
				found, note = 1, ex.Found.Violation
				violations++
			} else if ex.NoDecisions || ex.Exhausted {
				note = "exhaustive (the scenario makes no decision)"
				if ex.Distinct > 0 {
					note = fmt.Sprintf("exhaustive: all %d schedules of the scenario reached", ex.Distinct)
				} else if !ex.NoDecisions {
					note = "exhaustive: the budget cut no schedule"
				}
			} else if strategy == "bounded" {
				note = "complete up to the budget"
				if ex.Schedules >= o.Runs {
					note = fmt.Sprintf("cut at %d schedules", o.Runs)
				}
			}
			if slowNote != "" {
				note = strings.TrimPrefix(note+"; "+slowNote, "; ")
			}
			if unmet := unmetOutcomes(ex); unmet != "" && ex.Found == nil {
				note = strings.TrimSpace(note + "; not seen: " + unmet)
			}
			fmt.Fprintf(stdout, row, b.Name, strategy, ex.Schedules, found, note)
			if n, ok := exhaustiveCount(ex); ok {
				claims = append(claims, exhaustiveClaim{strategy, n})
			}
		}
		if bad := disagreeing(claims); bad != "" {
			fmt.Fprintf(stdout, "%s: the exhaustive claims disagree on how many schedules the scenario has: %s\n", b.Name, bad)
			violations++
		}
	}
	fmt.Fprintf(stdout, "%d violations in %d built-ins x %d strategies (%s)\n", violations, len(builtins), len(sweepStrategies), time.Since(start).Round(time.Second))
	if violations > 0 {
		return exitFailed
	}
	return exitOK
}

// exhaustiveClaim is a search's claim to have run every schedule of the
// scenario, and how many that is.
type exhaustiveClaim struct {
	strategy  string
	schedules int
}

// exhaustiveCount is the number of schedules a search claims the scenario
// has, when it claims to have run them all: the one schedule of a scenario
// with no decision, the distinct schedules a seeded search's tree holds, or
// every schedule bounded ran when its bound cut none.
func exhaustiveCount(ex *explore.Result) (int, bool) {
	switch {
	case ex.Found != nil || !ex.Exhausted:
		return 0, false
	case ex.NoDecisions:
		return 1, true
	case ex.Distinct > 0:
		return ex.Distinct, true
	case ex.Strategy == "bounded" && len(ex.Focus) == 0:
		return ex.Schedules, true // corpus re-runs are not among them
	}
	return 0, false
}

// disagreeing says which claims name different counts ("" when they
// agree): the two searches cannot both have run every schedule.
func disagreeing(claims []exhaustiveClaim) string {
	for _, c := range claims[min(1, len(claims)):] {
		if c.schedules != claims[0].schedules {
			var parts []string
			for _, c := range claims {
				parts = append(parts, fmt.Sprintf("%s %d", c.strategy, c.schedules))
			}
			return strings.Join(parts, ", ")
		}
	}
	return ""
}

// unmetOutcomes lists the outcomes whose verdict the search did not meet (a
// sometimes outcome no schedule showed), which is no violation.
func unmetOutcomes(ex *explore.Result) string {
	var out []string
	for _, c := range ex.Outcomes {
		if !c.OK {
			out = append(out, fmt.Sprintf("line %d", c.Line))
		}
	}
	return strings.Join(out, ", ")
}
