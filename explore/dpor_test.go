package explore

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDPORShapeSameStates: on small shapes of the per-CPU AUX pause/resume
// family, dpor reaches exactly the final states the full tree reaches
// (with the guard on and off, with a counter the CPUs share, with a
// fragment nobody vouched for), and says it is exhaustive.
func TestDPORShapeSameStates(t *testing.T) {
	for _, sh := range []porShape{
		{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: true},
		{CPUs: 1, K: 2, NMIs: []int{0, 1}, Guard: false},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Shared: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: false, Hidden: true},
		{CPUs: 2, K: 1, NMIs: []int{0}, Guard: true, Hidden: true},
	} {
		full, fruns, _, fex, err := shapeStates(sh, false, 200000)
		if err != nil || !fex {
			t.Fatalf("%+v: full walk: %v, exhausted %v", sh, err, fex)
		}
		got, runs, blocked, ex, err := shapeStates(sh, true, 200000)
		if err != nil || !ex {
			t.Fatalf("%+v: dpor: %v, exhausted %v", sh, err, ex)
		}
		if d := cmp.Diff(full, got); d != "" {
			t.Errorf("%+v: dpor's final states differ from the full tree's (-full +dpor):\n%s", sh, d)
		}
		t.Logf("%+v: %d states; full %d schedules, dpor %d (+%d blocked)", sh, len(full), fruns, runs, blocked)
	}
}

// TestDPORShapeScaling prints, for C = 1..8 CPUs of the shape (K = 1, one
// NMI per CPU, guard on), the schedules dpor runs and the distinct final
// states, which every complete search must reach (2 per CPU, 2^C in all).
// Long: PERFSIM_DPOR_TABLE=1.
func TestDPORShapeScaling(t *testing.T) {
	if os.Getenv("PERFSIM_DPOR_TABLE") == "" {
		t.Skip("PERFSIM_DPOR_TABLE=1 prints the table")
	}
	for c := 1; c <= 8; c++ {
		sh := porShape{CPUs: c, K: 1, NMIs: []int{0}, Guard: true}
		start := time.Now()
		states, runs, blocked, ex, err := shapeStates(sh, true, 2000000)
		if err != nil || !ex {
			t.Fatalf("C=%d: %v, exhausted %v", c, err, ex)
		}
		t.Logf("C=%d: %d final states, dpor %d schedules + %d blocked, %v", c, len(states), runs, blocked, time.Since(start).Round(time.Millisecond))
	}
}
