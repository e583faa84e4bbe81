// Command simrun runs perfsim scenarios.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr *os.File) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: simrun demo")
		return 2
	}
	switch args[0] {
	case "demo":
		return demo(stdout)
	}
	fmt.Fprintf(stderr, "simrun: unknown command %q\n", args[0])
	return 2
}
