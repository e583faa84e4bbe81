package realperf

import (
	"fmt"
	"strings"
	"testing"
)

// TestPairedCases runs every case's scenario and compares its summary with
// the real perf's committed one (testdata/CASE/real.txt).
func TestPairedCases(t *testing.T) {
	cases, err := Cases("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			real, sim, err := c.Summaries()
			if err != nil {
				t.Fatal(err)
			}
			var bad []string
			for _, r := range c.Diff(real, sim) {
				t.Logf("%-45s real %8d [%d..%d]  simulated %8d", r.Key, r.Real, r.RealMin, r.RealMax, r.Sim)
				switch {
				case r.Unexplained:
					bad = append(bad, fmt.Sprintf("%s: real %d, simulated %d: neither compared nor explained in case.txt", r.Key, r.Real, r.Sim))
				case !r.OK && r.Factor > 0:
					bad = append(bad, fmt.Sprintf("%s: real %d..%d, simulated %d (range x%g)", r.Key, r.RealMin, r.RealMax, r.Sim, r.Factor))
				case !r.OK:
					bad = append(bad, fmt.Sprintf("%s: real %d [%d..%d], simulated %d (within %g%%)", r.Key, r.Real, r.RealMin, r.RealMax, r.Sim, r.Within))
				}
			}
			if len(bad) > 0 {
				t.Errorf("%s differs from the real perf:\n%s", c.Name, strings.Join(bad, "\n"))
			}
		})
	}
}
