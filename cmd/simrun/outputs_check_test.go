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
// failed, explore searched first. Run, explore and replay.
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
		// a directory there that refuses the file: found by making it (and removing it) first
		{[]string{"run", "munmap-ring-twice", "--trace-json", "/proc/x"}, "simrun run: --trace-json /proc/x: cannot be created: no such file or directory\n"},
		{[]string{"run", "munmap-ring-twice", "--json", "/sys/x"}, "simrun run: --json /sys/x: cannot be created: permission denied\n"},
		{[]string{"run", "munmap-ring-twice", "--perf-data", "/proc/a/b"}, "simrun run: --perf-data /proc/a/b: cannot be created: no such file or directory\n"},
		{[]string{"explore", "munmap-ring-twice", "--out", "/proc/x.replay"}, "simrun explore: --out /proc/x.replay: cannot be created: no such file or directory\n"},
		{[]string{"replay", "/nonexistent/r.replay", "--trace-json", "/nonexistent/t"}, "simrun replay: --trace-json /nonexistent/t: no directory /nonexistent\n"},
		{[]string{"replay", "/nonexistent/r.replay", "--trace-json", "/sys/t"}, "simrun replay: --trace-json /sys/t: cannot be created: permission denied\n"},
		{[]string{"replay", "/nonexistent/r.replay", "--perf-data", file}, "simrun replay: --perf-data " + file + ": not a directory\n"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if d := cmp.Diff([]any{exitUsage, "", tc.want}, []any{code, stdout.String(), stderr.String()}); d != "" {
			t.Errorf("simrun %v (-want +got):\n%s", tc.args, d)
		}
	}
	// a perf-data directory that does not exist yet is made: fine; and the
	// check leaves nothing behind, an existing file as it was until the run
	// writes it
	var stdout, stderr bytes.Buffer
	if code := run([]string{"run", "munmap-ring-twice", "--perf-data", filepath.Join(tmp, "a", "b")}, &stdout, &stderr); code != exitOK {
		t.Errorf("--perf-data of a new directory: exit %d, %s", code, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"run", "munmap-ring-twice", "--json", file, "--time", "1x"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("--time 1x: exit %d, %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("%s after a refused run: %q, want \"x\"", file, b)
	}
	var names []string
	for _, d := range []string{tmp, filepath.Join(tmp, "a")} {
		es, _ := os.ReadDir(d)
		for _, e := range es {
			names = append(names, e.Name())
		}
	}
	if d := cmp.Diff([]string{"a", "f", "b"}, names); d != "" {
		t.Errorf("left in %s (-want +got):\n%s", tmp, d)
	}
}
