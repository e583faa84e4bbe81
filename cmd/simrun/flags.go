package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"perfsim/perftool"
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/uapi"
)

// newFlagSet returns a command's flag set writing its errors and usage to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: simrun %s %s\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags anywhere among the positional arguments (the flag
// package alone stops at the first positional one). It reports a help request
// as flag.ErrHelp.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseNoArgs parses the arguments of a command that takes none (list, knobs):
// it returns -1 to go on, or the exit code to return.
func parseNoArgs(name string, args []string, stderr io.Writer) int {
	fs := newFlagSet(name, "", stderr)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError(err)
	}
	if len(pos) > 0 {
		fs.Usage()
		return exitUsage
	}
	return -1
}

// usageError reports a flag error: exit code 2, or 0 for -h.
func usageError(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	return exitUsage
}

// knobFlags collects repeated --kernel NAME=VALUE flags.
type knobFlags map[string]string

func (k knobFlags) String() string {
	return strings.Join(runner.KnobList(k), " ")
}

func (k knobFlags) Set(s string) error {
	name, value, err := runner.ParseKnobArg(s)
	if err != nil {
		return err
	}
	if old, ok := k[name]; ok { // as a knob set twice in a file is
		return fmt.Errorf("%s is set twice (%s=%s, then %s=%s): give it once", name, name, old, name, value)
	}
	k[name] = value
	return nil
}

// loadScenario opens (a path or a built-in name), parses and checks a scenario.
// Errors are printed with their snippets; ok is false then.
func loadScenario(arg string, stderr io.Writer) (*scenarios.File, bool) {
	src, err := scenarios.Open(arg)
	if err != nil {
		fmt.Fprintf(stderr, "simrun: %v\n", err)
		return nil, false
	}
	f, err := runner.Load(src)
	if err != nil {
		printError(stderr, err)
		return nil, false
	}
	return f, true
}

// printError prints an error; scenario errors with their source line and caret.
func printError(w io.Writer, err error) {
	var se *scenarios.Error
	var list scenarios.ErrorList
	switch {
	case errors.As(err, &list):
		fmt.Fprintln(w, list.Error())
	case errors.As(err, &se):
		fmt.Fprintln(w, se.Snippet())
	default:
		fmt.Fprintf(w, "simrun: %v\n", err)
	}
}

// outputFlags are the files run and replay write besides their text: the
// Chrome trace and each session's perf.data.
type outputFlags struct {
	traceJSON string
	perfData  string
}

func addOutputFlags(fs *flag.FlagSet) *outputFlags {
	o := &outputFlags{}
	fs.StringVar(&o.traceJSON, "trace-json", "", "write the run as a Chrome trace-event `FILE` (chrome://tracing, Perfetto): a track per CPU")
	fs.StringVar(&o.perfData, "perf-data", "", "write each session's perf.data into `DIR` (SESSION.data), for the real perf script and perf report")
	return o
}

// write writes the files the flags ask for; false after an error it printed.
func (o *outputFlags) write(r *runner.Run, stdout, stderr io.Writer) bool {
	if o.traceJSON != "" {
		if err := writeChrome(o.traceJSON, r); err != nil {
			printError(stderr, err)
			return false
		}
	}
	if o.perfData != "" {
		paths, err := r.WritePerfData(o.perfData)
		if err != nil {
			printError(stderr, err)
			return false
		}
		for _, p := range paths {
			if p == os.DevNull {
				fmt.Fprintf(stdout, "perf.data: none (perf record -o /dev/null wrote it to /dev/null, as the real perf does)\n")
				continue
			}
			fmt.Fprintf(stdout, "perf.data: %s (perf script -f -i %s --symfs %s)\n", p, p, filepath.Dir(p))
			if n := perfDataAttrSize(p); n > uapi.PERF_ATTR_SIZE_VER7 {
				fmt.Fprintf(stdout, "  its attrs are %d bytes, as today's perf writes them: a perf before 6.3 refuses the file "+
					"(\"file uses a more recent and unsupported ABI (%d bytes extra)\"); --kernel perf-version=6.1 writes what perf 6.1 reads\n",
					n, n-uapi.PERF_ATTR_SIZE_VER7)
			}
		}
	}
	return true
}

// perfDataAttrSize is the size of a perf.data file's perf_event_attrs, 0 if
// its header cannot be read.
func perfDataAttrSize(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	var h [24]byte // magic, size, attr_size
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return 0
	}
	n, err := perftool.DataFileAttrSize(h[:])
	if err != nil {
		return 0
	}
	return int(n)
}
