package main

import (
	"fmt"
	"io"

	"perfsim/runner"
)

// cmdCheck checks scenario files without running them: it parses and checks
// each, then builds its run as simrun run would (runner.Validate: the knobs,
// the PMU lines, each record line as perf parses it, the actions and the
// times against the time limit), and prints what perf would warn about.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "FILE... [--time LIMIT]", stderr)
	lf := addTimeFlag(fs)
	files, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(files) == 0 {
		fs.Usage()
		return exitUsage
	}
	var opts runner.Options
	if err := lf.apply(&opts); err != nil {
		fmt.Fprintf(stderr, "simrun check: %v\n", err)
		return exitUsage
	}
	code := exitOK
	for _, name := range files {
		f, ok := loadScenario(name, stderr)
		if !ok {
			code = exitUsage
			continue
		}
		msgs, err := runner.Validate(f, opts)
		if err != nil {
			printError(stderr, err)
			code = exitUsage
			continue
		}
		for _, m := range msgs {
			fmt.Fprintln(stdout, m)
		}
		fmt.Fprintf(stdout, "%s: ok\n", name)
	}
	return code
}
