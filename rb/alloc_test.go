package rb

import "testing"

// The hot path writes a sample without allocating: a handle that escapes to the
// heap (a callback taking it, say) turned every record into an allocation once.
// This counts allocations, not time.
func TestOutputDoesNotAllocate(t *testing.T) {
	rb := mustBuffer(64, 0, 0)
	ev := &SimpleEvent{}
	s := benchSample()
	for _, backward := range []bool{false, true} {
		allocs := testing.AllocsPerRun(1000, func() {
			if err := PerfEventOutput(NoSteps{}, rb, ev, s, backward); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("backward=%v: %.1f allocations per sample, want 0", backward, allocs)
		}
	}
}
