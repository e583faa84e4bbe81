package explore

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What is left, both ways: Good-Turing's expected new pairs (singletons over
// schedules) can pass 1, the leave-one-out chance (schedules holding a
// singleton over schedules) cannot.
func TestCoverageLeftEstimates(t *testing.T) {
	for _, tc := range []struct {
		name       string
		schedules  int
		pairs      map[string]int // pair -> schedules that took it
		first      map[string]int
		singletons int
		singleSch  int
	}{
		// one schedule took ten pairs: Good-Turing expects 10 new pairs, the
		// chance of one is 1
		{"one schedule, many pairs", 1, map[string]int{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1, "j": 1},
			map[string]int{"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1, "j": 1}, 10, 1},
		// 4 schedules: pairs x and y only schedule 2's, z schedule 3's, w everyone's
		{"two schedules hold singletons", 4, map[string]int{"x": 1, "y": 1, "z": 1, "w": 4},
			map[string]int{"x": 2, "y": 2, "z": 3, "w": 1}, 3, 2},
		{"nothing left", 3, map[string]int{"w": 3}, map[string]int{"w": 1}, 0, 0},
	} {
		cv := newCoverage(0)
		cv.Schedules, cv.Pairs, cv.First = tc.schedules, tc.pairs, tc.first
		got := []int{cv.Singletons(), cv.SingletonSchedules()}
		if d := cmp.Diff([]int{tc.singletons, tc.singleSch}, got); d != "" {
			t.Errorf("%s: singletons, singleton schedules (-want +got):\n%s", tc.name, d)
		}
		if p := float64(cv.SingletonSchedules()) / float64(cv.Schedules); p > 1 {
			t.Errorf("%s: leave-one-out chance %g > 1", tc.name, p)
		}
	}
}
