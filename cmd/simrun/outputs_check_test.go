package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOutputsCheckedFirst: a file or directory a command would write after
// its run that cannot be written is refused before the run (exit 2, the
// flag named, nothing on standard output): run printed its verdict and then
// failed, explore searched first.
func TestOutputsCheckedFirst(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "munmap-ring-twice", "--trace-json", "/nonexistent/x"}, "simrun run: --trace-json /nonexistent/x: no directory /nonexistent\n"},
		{[]string{"run", "munmap-ring-twice", "--json", file + "/x"}, "simrun run: --json " + file + "/x: " + file + " is not a directory\n"},
		{[]string{"run", "munmap-ring-twice", "--perf-data", file}, "simrun run: --perf-data " + file + ": not a directory\n"},
		{[]string{"explore", "munmap-ring-twice", "--json", "/nonexistent/x.json"}, "simrun explore: --json /nonexistent/x.json: no directory /nonexistent\n"},
		{[]string{"explore", "munmap-ring-twice", "--coverage", tmp}, "simrun explore: --coverage " + tmp + ": is a directory\n"},
		{[]string{"explore", "munmap-ring-twice", "--out", "/nonexistent/x.replay"}, "simrun explore: --out /nonexistent/x.replay: no directory /nonexistent\n"},
		{[]string{"--memprofile", "/nonexistent/mem", "run", "munmap-ring-twice"}, "simrun run: --memprofile /nonexistent/mem: no directory /nonexistent\n"},
		{[]string{"merge", file, "--coverage", "/nonexistent/c"}, "simrun merge: --coverage /nonexistent/c: no directory /nonexistent\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if d := cmp.Diff([]any{exitUsage, "", tc.want}, []any{code, stdout.String(), stderr.String()}); d != "" {
			t.Errorf("simrun %v (-want +got):\n%s", tc.args, d)
		}
	}
	// a perf-data directory that does not exist yet is made: fine
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", "munmap-ring-twice", "--perf-data", filepath.Join(tmp, "a", "b")}, &stdout, &stderr); code != exitOK {
		t.Errorf("--perf-data of a new directory: exit %d, %s", code, stderr.String())
	}
}
