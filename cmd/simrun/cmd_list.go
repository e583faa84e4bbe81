package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"perfsim/scenarios"
)

// cmdList prints the built-in scenarios, one per line: name, then title.
func cmdList(args []string, stdout, stderr io.Writer) int {
	if code := parseNoArgs("list", args, stderr); code >= 0 {
		return code
	}
	tw := tabwriter.NewWriter(stdout, 0, 8, 2, ' ', 0)
	for _, b := range scenarios.Builtins() {
		fmt.Fprintf(tw, "%s\t%s\n", b.Name, b.Title)
	}
	tw.Flush()
	return exitOK
}
