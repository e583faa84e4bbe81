package main

import (
	"fmt"
	"io"
	"os"

	"perfsim/runner"
)

// cmdRun runs a scenario once and prints its outcomes and replay token.
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("run", "SCENARIO [--seed N] [--kernel NAME=VALUE]... [--json FILE] [--timeline] [--script] [--perf-data DIR] [--trace-json FILE] [--time LIMIT] [--max-steps N] [--max-wall DURATION] [--max-memory SIZE]", stderr)
	seed := fs.Uint64("seed", 1, "the schedule's seed (the same as explore's schedule of that seed)")
	knobs := knobFlags{}
	fs.Var(knobs, "kernel", "set a kernel (or tool) knob, `NAME=VALUE`; repeatable; see simrun knobs")
	jsonOut := fs.String("json", "", "write the result as JSON to `FILE` (- for standard output)")
	timeline := fs.Bool("timeline", false, "print the per-CPU timeline")
	script := fs.Bool("script", false, "print the perf script output of the sessions")
	outs := addOutputFlags(fs)
	limits := addLimitFlags(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitUsage
	}
	if !checkOutputs("run", stderr, output{flag: "json", path: *jsonOut}, output{flag: "trace-json", path: outs.traceJSON},
		output{flag: "perf-data", path: outs.perfData, dir: true}) {
		return exitUsage
	}
	f, ok := loadScenario(pos[0], stderr)
	if !ok {
		return exitUsage
	}
	opts := runner.Options{Knobs: knobs, Chooser: runner.ScheduleChooser(*seed, 0), KeepTrace: *timeline || *jsonOut != "" || outs.traceJSON != "",
		PerfDataDir: outs.perfData}
	if err := limits.apply(&opts); err != nil {
		fmt.Fprintf(stderr, "simrun run: %v\n", err)
		return exitUsage
	}
	r, res, err := runner.RunOnce(f, opts)
	if code, ok := limitExit(err, stderr); ok {
		if r != nil && outs.perfData != "" {
			// perf record stopped by a signal still writes its perf.data:
			// what it recorded until the limit.
			(&outputFlags{perfData: outs.perfData}).write(r, stdout, stderr)
		}
		return code
	}
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	if *jsonOut != "" {
		if code := writeJSON(*jsonOut, res, stdout, stderr); code != exitOK {
			return code
		}
	}
	if *jsonOut != "-" {
		res.WriteText(stdout, f)
	}
	if *timeline {
		fmt.Fprint(stdout, r.Timeline(60))
	}
	if *script {
		if len(f.Records) == 0 {
			fmt.Fprintln(stdout, "(no perf session in this scenario)")
		} else if err := r.Script(stdout); err != nil {
			printError(stderr, err)
			return exitUsage
		}
	}
	if !outs.write(r, stdout, stderr) {
		return exitUsage
	}
	if res.Failed {
		return exitFailed
	}
	return exitOK
}

func writeJSON(name string, res *runner.Result, stdout, stderr io.Writer) int {
	if name == "-" {
		if err := res.WriteJSON(stdout); err != nil {
			printError(stderr, err)
			return exitUsage
		}
		return exitOK
	}
	fh, err := os.Create(name)
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	err = res.WriteJSON(fh)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		printError(stderr, err)
		return exitUsage
	}
	return exitOK
}

// writeChrome writes r's trace as Chrome trace-event JSON to name.
func writeChrome(name string, r *runner.Run) error {
	fh, err := os.Create(name)
	if err != nil {
		return err
	}
	err = r.Trace().WriteChrome(fh, len(r.M.CPUs), r.M.Now())
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	return err
}
