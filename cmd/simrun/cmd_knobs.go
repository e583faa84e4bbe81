package main

import (
	"fmt"
	"io"
	"strings"

	"perfsim/runner"
	"perfsim/sim"
)

// cmdKnobs prints every kernel and tool knob: values (the default first),
// where it is modelled, the commit or thread it models, and its help.
func cmdKnobs(args []string, stdout, stderr io.Writer) int {
	if code := parseNoArgs("knobs", args, stderr); code >= 0 {
		return code
	}
	printKnobs(stdout, "kernel", runner.KernelKnobSpecs(nil))
	printKnobs(stdout, "tool", runner.ToolKnobSpecs(nil))
	return exitOK
}

func printKnobs(w io.Writer, kind string, list []sim.KnobSpec) {
	for _, k := range list {
		vals := append([]string{k.Default() + " (default)"}, k.Values[1:]...)
		fmt.Fprintf(w, "%s %s=%s\n", kind, k.Name, strings.Join(vals, "|"))
		fmt.Fprintf(w, "    package: %s\n", k.Package)
		fmt.Fprintf(w, "    source:  %s\n", k.Source)
		for _, v := range k.Values {
			if l := k.Implies[v]; len(l) > 0 {
				fmt.Fprintf(w, "    implies: %s=%s brings %s unless it is set\n", k.Name, v, strings.Join(l, " "))
			}
		}
		fmt.Fprintf(w, "    %s\n", k.Help)
	}
}
