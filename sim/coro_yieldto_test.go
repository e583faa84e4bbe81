package sim

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCoroutineYieldTo hands runs around rings of coroutines: each, when
// resumed, logs, then hands over to the next (YieldTo) until a count runs
// out, and the last one yields back; Resume returns the one that came back.
// Rounds reuse the pooled workers, which by then wait in one another's
// iter.Pull slots (a permutation): a switch on the wrong slot runs the wrong
// goroutine (the log says so) or trips iter.Pull's own checks (a panic). A
// handed-to coroutine's panic reaches Resume; Kill unwinds coroutines
// suspended in YieldTo; more than maxIdleWorkers at once end the surplus.
func TestCoroutineYieldTo(t *testing.T) {
	for round := range 4 {
		n := []int{2, 3, 7, 300}[round]
		var log []string
		cos := make([]*Coroutine, n)
		left := 0
		var panicAt = -1
		for i := range n {
			cos[i] = NewCoroutine(func() {
				for {
					log = append(log, fmt.Sprint(i))
					if i == panicAt {
						panic(fmt.Sprintf("boom %d", i))
					}
					if left--; left <= 0 {
						cos[i].Yield()
						continue
					}
					cos[i].YieldTo(cos[(i+1)%n])
				}
			})
		}
		// Start each (a coroutine runs once before YieldTo may run it).
		for i, co := range cos {
			log, left = nil, 0
			if back := co.Resume(); back != co {
				t.Fatalf("%d coroutines: start %d: back %p, want %p", n, i, back, co)
			}
		}
		for _, k := range []int{1, 5, 2*n + 1} {
			for start := range min(n, 4) {
				log, left = nil, k
				back := cos[start].Resume()
				var want []string
				for j := range k {
					want = append(want, fmt.Sprint((start+j)%n))
				}
				if d := cmp.Diff(want, log); d != "" {
					t.Fatalf("%d coroutines, %d runs from %d (-want +got):\n%s", n, k, start, d)
				}
				if last := (start + k - 1) % n; back != cos[last] {
					t.Fatalf("%d coroutines, %d runs from %d: back is not %d", n, k, start, last)
				}
			}
		}
		// A panic two handovers on reaches Resume; that one is done.
		log, left, panicAt = nil, 10, 2%n
		got := func() (r any) {
			defer func() { r = recover() }()
			cos[0].Resume()
			return nil
		}()
		if want := fmt.Sprintf("boom %d", 2%n); got != want {
			t.Fatalf("%d coroutines: Resume panicked with %v, want %q", n, got, want)
		}
		if !cos[2%n].Done() {
			t.Fatalf("%d coroutines: the one that panicked is not done", n)
		}
		for _, co := range cos {
			co.Kill()
			if !co.Done() {
				t.Fatalf("%d coroutines: killed, not done", n)
			}
		}
	}
}
