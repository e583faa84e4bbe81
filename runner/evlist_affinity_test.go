package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestEvlistEnableAffinity: perf record enables and disables its events
// CPU by CPU from that CPU (__evlist__enable()/__evlist__disable() with
// affinity__set()): perf moves to each CPU of its evlist in turn, and
// __evlist__disable() makes a second pass for the immediate (dummy) evsel,
// so -a on 2 CPUs moves perf 0->1 for the enable (it starts on cpu0 and
// stays where the last CPU put it: affinity__cleanup() widens the mask
// again) and 1->0, 0->1 twice for the disable. With --per-thread (the
// dummy CPU map) perf does not move.
func TestEvlistEnableAffinity(t *testing.T) {
	const body = `
cpus 2
task spin cpu1
  compute 2ms
task perf-target cpu0
  sleep 3ms
`
	for _, tc := range []struct {
		name, record string
		want         []string
	}{
		{"system-wide", "record -a -e cpu-clock -c 1000000 -- perf-target",
			[]string{"cpu0->cpu1", "cpu1->cpu0", "cpu0->cpu1", "cpu1->cpu0", "cpu0->cpu1"}},
		{"pid", "record -p spin -e cpu-clock -c 1000000",
			// the target's exit ends perf by POLLHUP (draining), which
			// leaves the loop before the disable, as in __cmd_record()
			[]string{"cpu0->cpu1"}},
		{"pid per-thread", "record --per-thread -p spin -e cpu-clock -c 1000000", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runSrc(t, "scenario aff\n"+body+tc.record+"\n")
			var got []string
			for _, rec := range r.Trace().Records {
				if rec.Kind == sim.KMigrate && strings.HasPrefix(rec.Name, "perf-") {
					got = append(got, rec.Detail)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("perf's moves (-want +got):\n%s", diff)
			}
		})
	}
}
