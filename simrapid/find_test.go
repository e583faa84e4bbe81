package simrapid_test

import (
	"testing"

	"pgregory.net/rapid"

	"perfsim/simrapid"
)

// TestFindChecks: Find tries exactly Options.Checks schedules when none
// fails, with -short or without (rapid alone runs a fifth of its checks
// under -short: explore's rapid strategy would then not run its --runs).
func TestFindChecks(t *testing.T) {
	calls := 0
	msg, err := simrapid.Find("checks", simrapid.Options{Seed: 7, Checks: 37}, func(*rapid.T) { calls++ })
	if err != nil || msg != "" {
		t.Fatalf("Find: %q, %v", msg, err)
	}
	if calls != 37 {
		t.Errorf("Find ran the property %d times (short %v); want 37", calls, testing.Short())
	}
}
