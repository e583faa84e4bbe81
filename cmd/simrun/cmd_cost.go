package main

import (
	"fmt"
	"io"

	"perfsim/cost"
	"perfsim/realperf"
)

// cmdCost prints the cost model's profiles and, for each, seed 002's ratio
// (the close(-1) loop traced by perf record -e 'raw_syscalls:*' over the
// bare loop) as the real machine measured it and as the simulation gives it.
func cmdCost(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("cost", "simrun cost [--calls N]", stderr)
	calls := fs.Int("calls", 100000, "close(-1) calls in the simulated loop")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "simrun cost: takes no arguments, found %q\n", rest[0])
		return exitUsage
	}
	if *calls < 1 {
		fmt.Fprintln(stderr, "simrun cost: --calls must be at least 1")
		return exitUsage
	}
	real := map[string]float64{"i7-4790": cost.Seed002TracedUs / cost.Seed002BaseUs}
	if m, err := cost.ParseMeasurements(cost.ThisMachineText()); err == nil && m["closeloop.base"] > 0 {
		real["this-machine"] = m["closeloop.raw_syscalls"] / m["closeloop.base"]
	}
	for _, name := range []string{"this-machine", "i7-4790"} {
		p, _ := cost.Lookup(name)
		fmt.Fprintf(stdout, "profile %s: %s\n", p.Name, p.Source)
		for _, row := range p.Table() {
			fmt.Fprintf(stdout, "    %s\n", row)
		}
		base, traced, err := realperf.SeedRatio(*calls, name)
		if err != nil {
			printError(stderr, err)
			return exitFailed
		}
		sim := float64(traced) / float64(base)
		fmt.Fprintf(stdout, "    seed 002 traced/untraced: real %.2f, simulated %.2f (%d calls: %v and %v), %+.0f%%\n",
			real[name], sim, *calls, base, traced, (sim/real[name]-1)*100)
	}
	return exitOK
}
