package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// An output is a file or directory a command writes once its run is done
// (--json, --trace-json, --perf-data, --coverage, --out, --memprofile):
// checked before the run, so a path that cannot be written fails at once
// with its flag named, not after minutes of exploration with the verdict
// printed and the file lost.
type output struct {
	flag, path string
	dir        bool // a directory the command makes (MkdirAll) and writes into
}

// checkOutputs reports each output that cannot be written (its directory
// missing or not one, or the path itself a directory where a file goes);
// false when it printed one. "" and "-" (standard output) pass.
func checkOutputs(cmd string, stderr io.Writer, outs ...output) bool {
	ok := true
	for _, o := range outs {
		if o.path == "" || o.path == "-" {
			continue
		}
		if err := checkOutput(o); err != nil {
			fmt.Fprintf(stderr, "simrun %s: --%s %s: %v\n", cmd, o.flag, o.path, err)
			ok = false
		}
	}
	return ok
}

// checkOutput is checkOutputs of one output.
func checkOutput(o output) error {
	if st, err := os.Stat(o.path); err == nil {
		switch {
		case o.dir && !st.IsDir():
			return fmt.Errorf("not a directory")
		case !o.dir && st.IsDir():
			return fmt.Errorf("is a directory")
		}
		return nil
	}
	// the nearest existing ancestor must be a directory: MkdirAll or the
	// file's create starts there
	dir := filepath.Dir(filepath.Clean(o.path))
	for {
		st, err := os.Stat(dir)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			return nil
		}
		if !o.dir {
			return fmt.Errorf("no directory %s", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("no directory %s", dir)
		}
		dir = parent
	}
}
