package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuxPauseResumeNMIExplore is issue #6's must-show, guard off: explore
// finds overlapping PERF_EF_PAUSE/RESUME callbacks, exits 1 and writes a
// shrunk replay file; replaying it twice prints the same violation.
func TestAuxPauseResumeNMIExplore(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := cli(t, dir, "explore", "aux-pause-resume-nmi", "--kernel", "aux-pause-guard=off", "-q")
	if code != 1 {
		t.Fatalf("explore --kernel aux-pause-guard=off: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if !strings.Contains(out, "VIOLATION") || !strings.Contains(out, "pmu-pause-resume-exclusive") || !strings.Contains(out, "shrunk from") {
		t.Errorf("explore output lacks the shrunk pmu-pause-resume-exclusive violation:\n%s", out)
	}
	replay := filepath.Join(dir, "aux-pause-resume-nmi.replay")
	if _, err := os.Stat(replay); err != nil {
		t.Fatalf("no replay file: %v", err)
	}
	var runs [2]string
	for i := range runs {
		o, e, c := cli(t, dir, "replay", replay)
		if c != 1 {
			t.Fatalf("replay %d: exit %d, want 1\n%s%s", i, c, o, e)
		}
		runs[i] = o
	}
	if runs[0] != runs[1] {
		t.Errorf("two replays differ:\n%s\n---\n%s", runs[0], runs[1])
	}
	if n := strings.Count(runs[0], "PERF_EF_PAUSE of event"); n < 2 {
		t.Errorf("replay prints the violation %d times, want it announced and found again:\n%s", n, runs[0])
	}
}

// TestAuxPauseResumeNMIGuardOn: with the guard, a short explore holds every
// outcome (the 10,000-schedule run is BenchmarkAuxPauseResumeNMIGuardOn).
func TestAuxPauseResumeNMIGuardOn(t *testing.T) {
	out, errOut, code := cli(t, t.TempDir(), "explore", "aux-pause-resume-nmi", "--kernel", "aux-pause-guard=on", "--runs", "300", "-q")
	if code != 0 || !strings.Contains(out, "no violation in 300 schedules") {
		t.Fatalf("explore --kernel aux-pause-guard=on --runs 300: exit %d, want 0\n%s%s", code, out, errOut)
	}
}

// BenchmarkAuxPauseResumeNMIGuardOn is the must-show's guard-on half: 10,000
// schedules (about 25 s on 2 cores, so not in the default go test), exit 0,
// the dropped-request outcome reported Sometimes.
//
//	go test ./cmd/simrun -run '^$' -bench AuxPauseResumeNMIGuardOn -benchtime 1x
func BenchmarkAuxPauseResumeNMIGuardOn(b *testing.B) {
	for i := 0; i < b.N; i++ {
		out, errOut, code := cliTB(b, b.TempDir(), "explore", "aux-pause-resume-nmi", "--kernel", "aux-pause-guard=on", "--runs", "10000", "-q")
		if code != 0 || !strings.Contains(out, "no violation in 10000 schedules") {
			b.Fatalf("exit %d, want 0\n%s%s", code, out, errOut)
		}
		dropped := false
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "Sometimes") && strings.Contains(l, "aux.pause_resume.dropped > 0") {
				dropped = true
			}
		}
		if !dropped {
			b.Fatalf("the dropped-request outcome is not reported Sometimes:\n%s", out)
		}
	}
}

// cliTB is cli for a benchmark.
func cliTB(tb testing.TB, dir string, args ...string) (string, string, int) {
	tb.Helper()
	cmd := exec.Command(simrun, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		tb.Fatal(err)
	}
	return out.String(), errb.String(), code
}
