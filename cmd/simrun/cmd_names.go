package main

import (
	"fmt"
	"io"

	"perfsim/runner"
	"perfsim/scenarios"
)

// cmdNames prints what a scenario may name: actions, observables,
// invariants, step points, system calls, PMUs, task statements,
// tracepoints, event names and allocation sites (all, or the kinds asked).
func cmdNames(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("names", "[actions|observables|invariants|steps|syscalls|PMUs|statements|tracepoints|events|faults]...", stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	kinds := scenarios.NameKinds
	if len(pos) > 0 {
		kinds = nil
		for _, a := range pos {
			k, ok := scenarios.KindNamed(a)
			if !ok {
				fmt.Fprintf(stderr, "simrun names: unknown kind %q (actions, observables, invariants, steps, syscalls, PMUs, statements, tracepoints, events or faults)\n", a)
				return exitUsage
			}
			kinds = append(kinds, k)
		}
	}
	for i, k := range kinds {
		if len(kinds) > 1 {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "# %s\n", k.Plural())
		}
		for _, e := range runner.Describe(nil, k) {
			if e.Detail == "" {
				fmt.Fprintln(stdout, e.Name)
				continue
			}
			fmt.Fprintf(stdout, "%s\n    %s\n", e.Name, e.Detail)
		}
	}
	return exitOK
}
