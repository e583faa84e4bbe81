// Command simrun runs perfsim scenarios: one run, an exploration of many
// schedules, the replay of a found one, checks of scenario files, and the list
// of built-in scenarios and kernel knobs.
//
//	simrun list
//	simrun run SCENARIO [--seed N] [--kernel NAME=VALUE]... [--json FILE] [--timeline] [--script] [--perf-data DIR] [--trace-json FILE] [--time LIMIT] [--max-steps N] [--max-wall DURATION] [--max-memory SIZE]
//	simrun explore SCENARIO [--strategy random|sparse|pct|bounded] [--depth D] [--runs N] [--seed N] [--budget N] [--focus WORDS] [--jobs N] [--shard i/n] [--corpus DIR] [--coverage FILE] [--time LIMIT] [--kernel NAME=VALUE]... [--json FILE] [--out FILE] [-q]
//	simrun replay FILE [--force] [--trace-json FILE] [--perf-data DIR]
//	simrun check FILE... [--time LIMIT]
//	simrun knobs
//	simrun merge FILE... [--json FILE] [--coverage FILE]
//	simrun sweep [--runs N] [--budget N] [--bounded-runs N] [--slow DURATION] [--jobs N] [NAME...]
//	simrun names [actions|observables|invariants|steps|syscalls|PMUs|statements|tracepoints|events]...
//	simrun cost [--calls N]
//
// Exit status: 0 when everything held, 1 when an outcome or an invariant failed
// (or explore found a violation, or replay saw the recorded violation recur),
// 2 for a usage or scenario error (and replay's refusal of a file whose
// scenario or knobs changed), 3 when a run stopped at a limit (--time,
// --max-steps, --max-wall, --max-memory): not a verdict, the run did not
// finish; 4 when replay did not see the recorded violation recur (the run
// held, failed otherwise, or left the recorded schedule), 130 when explore was
// interrupted (Ctrl-C, SIGTERM) before it found a violation.
package main

import (
	"fmt"
	"io"
	"os"

	"perfsim/sim"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitLimit       = 3   // a run stopped at a limit: no verdict
	exitNotRecurred = 4   // replay: the recorded violation did not recur
	exitInterrupted = 130 // explore: interrupted before it found a violation (128+SIGINT)
	usageString     = `usage:
  simrun list                       the built-in scenarios
  simrun run SCENARIO [flags]       one run: outcomes, invariants, replay token
  simrun explore SCENARIO [flags]   many schedules; shrink the first violation
  simrun replay FILE                re-run a replay file exactly: did its violation recur?
  simrun check FILE...              parse and check scenario files
  simrun knobs                      every kernel and tool knob
  simrun sweep [NAME...]            explore every built-in on today's kernel: violations per built-in
  simrun merge FILE...              combine the --json files of explore --shard i/n into one result
  simrun names [KIND]...            what a scenario may name: actions, observables,
                                    invariants, steps, syscalls, PMUs, statements,
                                    tracepoints, events, faults
  simrun demo                       find seed 000's race on the old kernel, shrink it, replay it
  simrun cost                       the cost model's profiles and seed 002's ratio, real and simulated
SCENARIO is a .sim file or the name of a built-in scenario.
--cpuprofile FILE, --memprofile FILE (before or after COMMAND) write pprof profiles.
Run "simrun COMMAND -h" for the flags of a command.
Exit status: 0 everything held; 1 an outcome or invariant failed, explore found
a violation, or replay saw the recorded one recur; 2 a usage or scenario error,
or replay refused a file whose scenario or knobs changed (--force); 3 a run
stopped at a limit (--time, --max-steps, --max-wall, --max-memory): no verdict;
4 replay did not see the recorded violation recur; 130 explore was interrupted
first.
`
)

// default.pgo, beside this file, is the CPU profile the go command builds
// simrun with (profile-guided optimization: go build picks it up itself). It
// is of the small built-ins explore runs most schedules of per second, so the
// model's hot paths (the ring buffer output, its invariant log, the PMU's
// mode switches) are inlined where they run. Made from the three profiles of
// simrun explore NAME --runs 6000 --jobs 1 --corpus off --cpuprofile FILE for
// aux-pause-resume-nmi, rb-data-head-backwards and
// coresight-snapshot-sched-out, merged with go tool pprof -proto; remake it
// so when the code it was made from has moved far.
func main() {
	sim.TuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is simrun with its arguments and output streams; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	prof, args, err := cutProfileFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "simrun: %v\n", err)
		return exitUsage
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usageString)
		return exitUsage
	}
	if !checkOutputs(args[0], stderr, output{flag: "memprofile", path: prof.mem}) {
		return exitUsage
	}
	if err := prof.start(); err != nil {
		fmt.Fprintf(stderr, "simrun: --cpuprofile: %v\n", err)
		return exitUsage
	}
	defer prof.stop(stderr)
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "list":
		return cmdList(rest, stdout, stderr)
	case "run":
		return cmdRun(rest, stdout, stderr)
	case "demo":
		return cmdDemo(rest, stdout, stderr)
	case "explore":
		return cmdExplore(rest, stdout, stderr)
	case "replay":
		return cmdReplay(rest, stdout, stderr)
	case "check":
		return cmdCheck(rest, stdout, stderr)
	case "sweep":
		return cmdSweep(rest, stdout, stderr)
	case "merge":
		return cmdMerge(rest, stdout, stderr)
	case "knobs":
		return cmdKnobs(rest, stdout, stderr)
	case "names":
		return cmdNames(rest, stdout, stderr)
	case "cost":
		return cmdCost(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageString)
		return exitOK
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q\n%s", cmd, usageString)
	return exitUsage
}
