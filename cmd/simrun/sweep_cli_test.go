package main

import (
	"strings"
	"testing"
)

// TestSweepCLI: the no-false-positive sweep explores a built-in with the three
// strategies on today's kernel and reports each search's schedules and
// violations; a name that is not a built-in is a usage error.
func TestSweepCLI(t *testing.T) {
	out, stderr, code := cli(t, t.TempDir(), "sweep", "task-work-nmi-race", "--runs", "20", "--bounded-runs", "200")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	for _, want := range []string{
		"task-work-nmi-race                 random          20          0",
		"task-work-nmi-race                 sparse          20          0",
		"task-work-nmi-race                 bounded         27          0  exhaustive: the budget cut no schedule",
		"0 violations in 1 built-ins x 3 strategies",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep output lacks %q:\n%s", want, out)
		}
	}
	if _, stderr, code := cli(t, t.TempDir(), "sweep", "no-such-built-in"); code != exitUsage || !strings.Contains(stderr, `no built-in scenario "no-such-built-in"`) {
		t.Errorf("sweep of an unknown name: exit %d, stderr %q", code, stderr)
	}
}

// TestExploreStopsAtLimit: a schedule that reaches a limit ends explore with
// status 3 and the limit's message, not a verdict and not a usage error.
func TestExploreStopsAtLimit(t *testing.T) {
	_, stderr, code := cli(t, t.TempDir(), "explore", "task-work-nmi-race", "--max-steps", "10", "-q")
	if code != exitLimit || !strings.Contains(stderr, "stopped at the step limit of 10 steps") || !strings.Contains(stderr, "(raise it with --max-steps)") {
		t.Errorf("exit %d, stderr %q; want 3 and the step limit's message", code, stderr)
	}
}
