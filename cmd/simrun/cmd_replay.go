package main

import (
	"fmt"
	"io"
	"os"

	"perfsim/explore"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// cmdReplay re-runs the schedule of a replay file exactly and prints its
// result (the same violation) and timeline.
func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay", "FILE [--trace-json FILE] [--perf-data DIR]", stderr)
	outs := addOutputFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
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
	file, ok := rf.Get("file")
	if !ok {
		fmt.Fprintf(stderr, "simrun replay: %s has no \"file:\" line naming the scenario\n", pos[0])
		return exitUsage
	}
	f, ok := loadScenario(replayPath(file, pos[0]), stderr)
	if !ok {
		return exitUsage
	}
	knobs := knobFlags{}
	for _, k := range rf.All("kernel") {
		if err := knobs.Set(k); err != nil {
			fmt.Fprintf(stderr, "simrun replay: %s: kernel: %v\n", pos[0], err)
			return exitUsage
		}
	}
	opts := runner.Options{Knobs: knobs, KeepTrace: true, StopAtViolation: true}
	if l, ok := rf.Get("limit"); ok {
		d, err := scenarios.ParseDuration(l)
		if err != nil {
			fmt.Fprintf(stderr, "simrun replay: %s: limit: %v\n", pos[0], err)
			return exitUsage
		}
		opts.Limit = sim.Time(d)
	}
	ch := sim.NewReplay(rf.Decisions)
	opts.Chooser = ch
	r, res, err := runner.RunOnce(f, opts)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if v, ok := rf.Get("violation"); ok {
		fmt.Fprintf(stdout, "replaying: %s\n", v)
	}
	res.WriteText(stdout, f)
	fmt.Fprint(stdout, r.Timeline(60))
	if !outs.write(r, stdout, stderr) {
		return exitUsage
	}
	if ch.Mismatches > 0 {
		fmt.Fprintf(stderr, "simrun replay: %d decisions did not fit this scenario: it changed since the file was written\n", ch.Mismatches)
	}
	if res.Failed {
		return exitFailed
	}
	return exitOK
}
