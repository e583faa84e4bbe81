package main

import (
	"errors"
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
// missing or not one, the path itself a directory where a file goes, or a
// place that refuses the write: /proc, a read-only file system); false when
// it printed one. "" and "-" (standard output) pass.
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
		case o.dir:
			return probe(os.CreateTemp(o.path, ".simrun-check-*"))
		case !st.Mode().IsRegular():
			return nil // /dev/null, a FIFO: an open could block on it
		}
		// opened for writing without O_TRUNC: the file stays as it is
		return probeOpen(os.OpenFile(o.path, os.O_WRONLY, 0))
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
			if o.dir {
				return probeDir(os.MkdirTemp(dir, ".simrun-check-*"))
			}
			return probe(os.OpenFile(o.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644))
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

// probe, probeOpen and probeDir say why a file or directory the check made
// (and removes) or opened could not be: a directory's mode or mount, or a
// file system that takes no new files (/proc, /sys) refuses only the write
// itself.
func probe(f *os.File, err error) error {
	if err != nil {
		return fmt.Errorf("cannot be created: %v", pathErr(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

func probeOpen(f *os.File, err error) error {
	if err != nil {
		return fmt.Errorf("cannot be written: %v", pathErr(err))
	}
	return f.Close()
}

func probeDir(dir string, err error) error {
	if err != nil {
		return fmt.Errorf("cannot be created: %v", pathErr(err))
	}
	return os.Remove(dir)
}

// pathErr is the errno of a *PathError ("permission denied"), the path
// being the one the message names already.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
