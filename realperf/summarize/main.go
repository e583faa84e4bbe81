// Command summarize prints the paired-case summary of a perf.data file
// (realperf.Summarize): capture.sh runs it on the real perf's output.
package main

import (
	"fmt"
	"os"

	"perfsim/realperf"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: summarize PERF.DATA")
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[1])
	if err == nil {
		var s realperf.Summary
		if s, err = realperf.Summarize(b); err == nil {
			for _, l := range s.Lines() {
				fmt.Println(l)
			}
			return
		}
	}
	fmt.Fprintln(os.Stderr, "summarize:", err)
	os.Exit(1)
}
