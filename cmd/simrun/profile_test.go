package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCutProfileFlags: the profile flags come off wherever they are before
// a "--", in each spelling; the command's own arguments stay in order.
func TestCutProfileFlags(t *testing.T) {
	for _, tc := range []struct {
		args, rest []string
		cpu, mem   string
		err        string
	}{
		{args: []string{"--cpuprofile", "c.out", "explore", "x"}, rest: []string{"explore", "x"}, cpu: "c.out"},
		{args: []string{"explore", "x", "-memprofile=m.out", "--runs", "5"}, rest: []string{"explore", "x", "--runs", "5"}, mem: "m.out"},
		{args: []string{"explore", "--cpuprofile=c.out", "x", "--memprofile", "m.out"}, rest: []string{"explore", "x"}, cpu: "c.out", mem: "m.out"},
		{args: []string{"run", "x", "--", "--cpuprofile", "c.out"}, rest: []string{"run", "x", "--", "--cpuprofile", "c.out"}},
		{args: []string{"explore", "x", "--cpuprofile"}, err: "--cpuprofile: expected a FILE after it"},
	} {
		p, rest, err := cutProfileFlags(tc.args)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if d := cmp.Diff(tc.rest, rest); d != "" || p.cpu != tc.cpu || p.mem != tc.mem {
			t.Errorf("%q: cpu %q mem %q, rest (-want +got):\n%s", tc.args, p.cpu, p.mem, d)
		}
	}
}

// TestProfileFlagAfterCommand: simrun explore NAME --cpuprofile FILE writes
// the profile (before, the flag was refused after the command).
func TestProfileFlagAfterCommand(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.out")
	var out, errb strings.Builder
	code := run([]string{"explore", "sigtrap-vs-exit", "--runs", "3", "--corpus", "off", "-q", "--cpuprofile", prof}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out.String(), errb.String())
	}
	if st, err := os.Stat(prof); err != nil || st.Size() == 0 {
		t.Errorf("no profile written: %v", err)
	}
}
