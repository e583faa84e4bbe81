package realperf

import (
	"testing"

	"perfsim/cost"
)

// TestSeedRatioMatchesTheRealMachines: seed 002's loop, simulated with and
// without perf record -e 'raw_syscalls:*', slows down by the ratio the real
// machines measured, within 20%: this machine's (cost/testdata/this-machine.txt:
// closeloop.raw_syscalls over closeloop.base) and the seed's i7-4790
// (2253846.7 us over 800214.95 us). Under the free profile nothing slows.
func TestSeedRatioMatchesTheRealMachines(t *testing.T) {
	m, err := cost.ParseMeasurements(cost.ThisMachineText())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		profile string
		real    float64
	}{
		{"this-machine", m["closeloop.raw_syscalls"] / m["closeloop.base"]},
		{"i7-4790", cost.Seed002TracedUs / cost.Seed002BaseUs},
		{"free", 1},
	} {
		base, traced, err := SeedRatio(20000, tc.profile)
		if err != nil {
			t.Fatalf("%s: %v", tc.profile, err)
		}
		got := float64(traced) / float64(base)
		if tc.profile == "free" { // sched's flat SyscallCost, and perf costs nothing
			if got > 1.01 || got < 0.99 {
				t.Errorf("free: traced/untraced %.3f (%v, %v), want 1", got, traced, base)
			}
			continue
		}
		if r := got / tc.real; r < 0.8 || r > 1.2 {
			t.Errorf("%s: simulated %.2f (%v / %v), real %.2f: off by %+.0f%%", tc.profile, got, traced, base, tc.real, (r-1)*100)
		}
		t.Logf("%s: simulated %.2f, real %.2f", tc.profile, got, tc.real)
	}
}
