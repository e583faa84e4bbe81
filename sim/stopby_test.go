package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEngineStopBy: a lane that lowers Run's stop time with StopBy makes
// Run return there (no lane runs past it, Pending says work is left), and a
// second Run goes on to the same events, the same decisions, as one Run.
func TestEngineStopBy(t *testing.T) {
	run := func(stop bool) ([]string, int) {
		e := NewEngine(NewRandom(3))
		var log []string
		var a, b *Lane
		a = e.AddLane("a", func() {
			log = append(log, "a@"+e.Now().String())
			if stop && e.Now() == 0 {
				e.StopBy(15 * Microsecond)
			}
			if e.Now() < 40*Microsecond {
				e.SetNext(a, e.Now()+10*Microsecond)
			} else {
				e.SetNext(a, Never)
			}
		})
		b = e.AddLane("b", func() {
			log = append(log, "b@"+e.Now().String())
			if e.Now() < 40*Microsecond {
				e.SetNext(b, e.Now()+20*Microsecond)
			} else {
				e.SetNext(b, Never)
			}
		})
		e.SetNext(a, 0)
		e.SetNext(b, 0)
		if err := e.Run(Second); err != nil {
			t.Fatal(err)
		}
		if stop {
			log = append(log, "stopped@"+e.Now().String())
			if !e.Pending() {
				t.Errorf("Pending() = false after a Run stopped by StopBy")
			}
			if err := e.Run(Second); err != nil {
				t.Fatal(err)
			}
		}
		return log, e.Decisions
	}
	one, d1 := run(false)
	two, d2 := run(true)
	want := append([]string{}, one[:3]...) // a@0s b@0s (a tie: either order), a@10us
	want = append(want, "stopped@10us")
	want = append(want, one[3:]...)
	if diff := cmp.Diff(want, two); diff != "" {
		t.Errorf("stopped and resumed (-want +got):\n%s", diff)
	}
	if d1 != d2 {
		t.Errorf("decisions %d with StopBy, %d without", d2, d1)
	}
}

// TestTryAdvanceAfterStop: once Stop is called, the running lane cannot run
// on alone (TryAdvance refuses), so Run returns at the time of the Stop.
func TestTryAdvanceAfterStop(t *testing.T) {
	e := NewEngine(NewRandom(1))
	var got []bool
	var a *Lane
	a = e.AddLane("a", func() {
		got = append(got, e.TryAdvance(a, e.Now()+Microsecond))
		e.Stop()
		got = append(got, e.TryAdvance(a, e.Now()+Microsecond))
		e.SetNext(a, e.Now()+Microsecond)
	})
	e.SetNext(a, 0)
	if err := e.Run(Second); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]bool{true, false}, got); d != "" {
		t.Errorf("TryAdvance before and after Stop (-want +got):\n%s", d)
	}
	if e.Now() != Microsecond {
		t.Errorf("Run returned at %s, want 1us (where the lane stopped)", e.Now())
	}
}
