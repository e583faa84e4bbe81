package sim

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCoroutineUnwinding: a deferred function of the coroutine's body sees
// Unwinding() false when the body returns by itself and true when Kill
// unwinds it from a Yield.
func TestCoroutineUnwinding(t *testing.T) {
	var got []string
	body := func(co **Coroutine, yield bool) func() {
		return func() {
			defer func() { got = append(got, fmt.Sprintf("yield=%v unwinding=%v", yield, (*co).Unwinding())) }()
			if yield {
				(*co).Yield()
			}
		}
	}
	for _, yield := range []bool{false, true} {
		var co *Coroutine
		co = NewCoroutine(body(&co, yield))
		co.Resume()
		co.Kill()
	}
	if d := cmp.Diff([]string{"yield=false unwinding=false", "yield=true unwinding=true"}, got); d != "" {
		t.Errorf("deferred calls (-want +got):\n%s", d)
	}
}

// A clean-up deferred in model code that a run's end kills mid-way checks
// Unwinding and leaves the (finished) machine alone.
func ExampleCoroutine_Unwinding() {
	var co *Coroutine
	co = NewCoroutine(func() {
		defer func() {
			if co.Unwinding() {
				fmt.Println("killed: no clean-up")
				return
			}
			fmt.Println("clean-up")
		}()
		co.Yield() // suspended here when the run ends
	})
	co.Resume()
	co.Kill()
	// Output: killed: no clean-up
}
