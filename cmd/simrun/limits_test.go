package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLimitsGolden runs each testdata/limits/NAME.sim with the simrun
// arguments of its first line ("# args: run NAME.sim --max-steps 100000"),
// in that directory, and compares what simrun printed and its exit status
// with NAME.golden (-update rewrites them). The knobs line, which grows with
// every model, is left out.
func TestLimitsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/limits/*.sim")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/limits/*.sim: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			line, ok := strings.CutPrefix(first, "# args: ")
			if !ok {
				t.Fatalf("%s: the first line must be # args: COMMAND ARGS...", path)
			}
			args := strings.Fields(line)
			for i, a := range args {
				if strings.HasSuffix(a, ".sim") {
					args[i] = filepath.Join("testdata/limits", a)
				}
			}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			got := "$ simrun " + line + "\n" + dropKnobs(stdout.String()) + stderr.String() +
				"exit " + string(rune('0'+code)) + "\n"
			got = strings.ReplaceAll(got, "testdata/limits/", "")
			goldenFile(t, strings.TrimSuffix(path, ".sim")+".golden", got)
		})
	}
}

var knobsLine = regexp.MustCompile(`(?m)^knobs: .*\n`)

func dropKnobs(s string) string { return knobsLine.ReplaceAllString(s, "") }

// goldenFile compares got with the file at path, or writes it with -update.
func goldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs (go test -update rewrites it):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// TestLimitsStop: the limits that depend on the machine (the wall clock, the
// heap) stop a runaway with their message and status 3; the defaults stop
// each runaway of testdata/limits by themselves.
func TestLimitsStop(t *testing.T) {
	spin := filepath.Join("testdata", "limits", "step-limit.sim")
	closes := filepath.Join("testdata", "limits", "time-limit.sim")
	tests := []struct {
		name string
		args []string
		want string // a prefix of stderr (spin starts after one context switch: 723ns under this machine's costs)
	}{
		{"wall clock", []string{"run", spin, "--max-steps", "0", "--max-wall", "200ms"},
			"simrun: stopped at the wall-clock limit of 200ms at 723ns, after "},
		{"heap", []string{"run", closes, "--time", "0", "--max-memory", "1M"},
			"simrun: stopped at the memory limit of 1M at "},
		{"default steps", []string{"run", spin}, "simrun: stopped at the step limit of 100000000 steps at 723ns (raise it with --max-steps)"},
	}
	if testing.Short() {
		tests = tests[:2]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != exitLimit || !strings.HasPrefix(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q...", code, stderr.String(), exitLimit, tt.want)
			}
		})
	}
}
