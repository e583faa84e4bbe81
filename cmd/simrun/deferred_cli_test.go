package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/perftool"
	"perfsim/runner"
)

// TestDeferredInvariantsListed: the deferred callchain invariants are named
// invariants of the default backend (simrun and "always NAME" see them),
// with their statements, not only perf.violations.NAME observables.
func TestDeferredInvariantsListed(t *testing.T) {
	got := map[string]string{}
	for _, inv := range runner.AllInvariants(runner.DefaultPerf) {
		got[inv.Name] = inv.Says
	}
	want := map[string]string{}
	for _, inv := range perftool.DeferredInvariants {
		want[inv.Name] = inv.Says
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			delete(got, name)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("deferred invariants listed (-want +got):\n%s", d)
	}
}

// TestDeferredExploreFindsInvariants: each deferred-callchain built-in with
// the knob of the old code explores to its bug, named as an invariant (exit
// 1, a shrunk replay file that replays to the same violation); with today's
// values it explores clean.
func TestDeferredExploreFindsInvariants(t *testing.T) {
	for _, tc := range []struct {
		scenario, knob string
		invariants     []string // the explore names one of these
	}{
		{"deferred-callchain-nmi-schedule", "task-work-nmi=pre-ef1ea98c8fff",
			[]string{"task-work-before-user-return", "deferred-callchain-stitched"}},
		{"deferred-callchain-shared-buffer", "unwind-buffer=rfc-per-cpu", []string{"deferred-user-frames"}},
		{"deferred-callchain-stitch", "deferred-callchain-output=rfc-sample",
			[]string{"deferred-no-double-period", "deferred-callchain-stitched"}},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			dir := t.TempDir()
			out, errOut, code := cli(t, dir, "explore", tc.scenario, "--kernel", tc.knob, "--runs", "200", "-q")
			if code != 1 {
				t.Fatalf("explore --kernel %s: exit %d, want 1\n%s%s", tc.knob, code, out, errOut)
			}
			named := ""
			for _, inv := range tc.invariants {
				if strings.Contains(out, "VIOLATION") && strings.Contains(out, "invariant "+inv+" at") {
					named = inv
				}
			}
			if named == "" || !strings.Contains(out, "shrunk from") {
				t.Fatalf("explore output names none of the invariants %v as a shrunk violation:\n%s", tc.invariants, out)
			}
			replay := filepath.Join(dir, tc.scenario+".replay")
			if _, err := os.Stat(replay); err != nil {
				t.Fatalf("no replay file: %v", err)
			}
			o, e, c := cli(t, dir, "replay", replay)
			if c != 1 || !strings.Contains(o, named) {
				t.Errorf("replay: exit %d, want 1 with %s\n%s%s", c, named, o, e)
			}
			out, errOut, code = cli(t, dir, "explore", tc.scenario, "--runs", "50", "-q")
			if code != 0 || !strings.Contains(out, "no violation in 50 schedules") {
				t.Errorf("explore with today's knobs: exit %d, want 0\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestDataHeadBackwardsExplore: with the old perf_output_put_handle(),
// explore finds the spinning reader reading a record nobody wrote (exit 1, a
// shrunk replay file that replays to it); today's kernel explores clean.
func TestDataHeadBackwardsExplore(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, dir, "explore", "rb-data-head-backwards", "--kernel", "rb-put-handle=pre-1b038c6e05ff", "-q")
	if code != 1 {
		t.Fatalf("explore --kernel rb-put-handle=pre-1b038c6e05ff: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "VIOLATION") || !strings.Contains(out, "invariant read-record-was-written at") || !strings.Contains(out, "shrunk from") {
		t.Fatalf("explore output lacks the shrunk read-record-was-written violation:\n%s", out)
	}
	o, e, c := cli(t, dir, "replay", filepath.Join(dir, "rb-data-head-backwards.replay"))
	if c != 1 || !strings.Contains(o, "read-record-was-written at") {
		t.Errorf("replay: exit %d, want 1 with read-record-was-written\n%s%s", c, o, e)
	}
	out, errOut, code = cli(t, dir, "explore", "rb-data-head-backwards", "--runs", "300", "-q")
	if code != 0 || !strings.Contains(out, "no violation in 300 schedules") {
		t.Errorf("explore with today's kernel: exit %d, want 0\n%s%s", code, out, errOut)
	}
}
