package main

import (
	"fmt"
	"io"
)

// cmdCheck parses and checks scenario files without running them.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", "FILE...", stderr)
	files, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(files) == 0 {
		fs.Usage()
		return exitUsage
	}
	code := exitOK
	for _, name := range files {
		if _, ok := loadScenario(name, stderr); !ok {
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", name)
	}
	return code
}
