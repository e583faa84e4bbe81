package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"perfsim/explore"
	"perfsim/runner"
)

// cmdReplay re-runs the schedule of a replay file exactly and prints its
// result and timeline, then whether the recorded violation recurred (exit 1)
// or not (exit 4). It refuses a file whose scenario or knobs changed since it
// was written (exit 2) unless --force, and stops at the first decision whose
// question is not the recorded one (exit 4); a run stopped at the file's
// time limit is not the recorded run (exit 3: no verdict).
func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", "FILE [--force] [--trace-json FILE] [--perf-data DIR] [--max-steps N] [--max-wall DURATION] [--max-memory SIZE]", stderr)
	force := fs.Bool("force", false, "replay even when the scenario or its knobs changed since the file was written, or the file is too old to tell")
	outs := addOutputFlags(fs)
	limits := &limitFlags{}
	addMachineLimitFlags(fs, limits)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	var ro runner.Options
	if err := limits.apply(&ro); err != nil {
		fmt.Fprintf(stderr, "simrun replay: %v\n", err)
		return exitUsage
	}
	if !checkOutputs("replay", stderr, output{flag: "trace-json", path: outs.traceJSON}, output{flag: "perf-data", path: outs.perfData, dir: true}) {
		return exitUsage
	}
	fh, err := os.Open(pos[0])
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	rf, err := explore.ParseReplayFile(pos[0], fh)
	fh.Close()
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if rf.File == "" {
		fmt.Fprintf(stderr, "simrun replay: %s has no \"file:\" line naming the scenario\n", pos[0])
		return exitUsage
	}
	f, ok := loadScenario(replayPath(rf.File, pos[0]), stderr)
	if !ok {
		return exitUsage
	}
	rp, err := explore.Replay(f, rf, explore.ReplayOptions{Force: *force, MaxSteps: ro.MaxSteps, MaxWall: ro.MaxWall, MaxMemory: ro.MaxMemory})
	var changed *explore.ChangedError
	if errors.As(err, &changed) {
		fmt.Fprintf(stderr, "simrun replay: %s: not replayed:\n", changed.File)
		for _, c := range changed.Changes {
			fmt.Fprintf(stderr, "  %s\n", c)
		}
		fmt.Fprintln(stderr, "simrun replay: explore again to record this scenario, or --force to replay the file anyway")
		return exitUsage
	}
	var atLimit *explore.LimitStopError
	if errors.As(err, &atLimit) { // not runner's "raise it with --time": the limit is the file's
		fmt.Fprintf(stderr, "simrun replay: %v\n", atLimit)
		return exitLimit
	}
	if code, ok := limitExit(err, stderr); ok {
		return code
	}
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	for _, c := range rp.Changes {
		fmt.Fprintf(stderr, "simrun replay: --force: %s\n", c)
	}
	for _, n := range rp.Notes {
		fmt.Fprintf(stderr, "simrun replay: note: %s\n", n)
	}
	if rf.Violation != "" {
		fmt.Fprintf(stdout, "replaying: %s\n", rf.Violation)
	}
	if d := rp.Diverged; d != nil {
		fmt.Fprintf(stdout, "the replay diverged and stopped at decision #%d: the recorded run asked %s, this run asked %s\n", d.Decision, d.Want, d.Got)
		if rp.Recurred {
			fmt.Fprintf(stdout, "the recorded violation recurred before that: %s\n", rp.Signature)
			return exitFailed
		}
		fmt.Fprintln(stdout, "the recorded violation did not recur: the run left the recorded schedule first")
		return exitNotRecurred
	}
	rp.Result.WriteText(stdout, f)
	fmt.Fprint(stdout, rp.Run.Timeline(60))
	if !outs.write(rp.Run, stdout, stderr) {
		return exitUsage
	}
	switch {
	case rp.Recurred:
		fmt.Fprintf(stdout, "the recorded violation recurred: %s\n", rp.Signature)
		return exitFailed
	case rf.Signature == "" && rp.Signature != "":
		// A format 1 file (--force) records no signature to compare.
		fmt.Fprintf(stdout, "this run failed (%s); the file records no signature to compare it with\n", rp.Signature)
		return exitFailed
	case rp.Signature != "":
		fmt.Fprintf(stdout, "the recorded violation did not recur: recorded %s, this run failed otherwise: %s\n", rf.Signature, rp.Signature)
	case rf.Signature != "":
		fmt.Fprintf(stdout, "the recorded violation did not recur: recorded %s, this run held\n", rf.Signature)
	default:
		fmt.Fprintln(stdout, "the recorded violation did not recur: this run held")
	}
	return exitNotRecurred
}
