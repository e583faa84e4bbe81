package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// crashChooser indexes past its table (a strategy's own bug).
type crashChooser struct{ table []int }

func (c crashChooser) Choose(n int, what string) int { return c.table[n] }

// wideChooser answers n: one past the options.
type wideChooser struct{}

func (wideChooser) Choose(n int, what string) int { return n }

// controlFlow is a strategy's deliberate panic (as rapid's and dpor's are).
type controlFlow struct{}

type panicChooser struct{}

func (panicChooser) Choose(n int, what string) int { panic(controlFlow{}) }

// TestChooserBugIsNoOops: a Chooser that crashes or answers out of range,
// whether asked in a lane's code (Choose) or by the engine at a tie (pick),
// ends Run with a *StrategyError naming the decision, never an oops of the
// model; a strategy's own control flow panics through Run untouched.
func TestChooserBugIsNoOops(t *testing.T) {
	type want struct {
		What   string
		N      int
		Answer int
		Crash  bool
	}
	for _, tc := range []struct {
		name string
		ch   Chooser
		tie  bool
		want want
	}{
		{"crash in a lane", crashChooser{}, false, want{"x", 3, -1, true}},
		{"out of range in a lane", wideChooser{}, false, want{"x", 3, 3, false}},
		{"crash at a tie", crashChooser{}, true, want{"tie", 2, -1, true}},
		{"out of range at a tie", wideChooser{}, true, want{"tie", 2, 2, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewEngine(tc.ch)
			a := e.AddLane("cpu0", func() {
				if !tc.tie {
					e.Choose(3, "x")
				}
			})
			b := e.AddLane("cpu1", func() {})
			e.SetNext(a, 5)
			if tc.tie {
				e.SetNext(b, 5)
			}
			err := e.Run(Never)
			var se *StrategyError
			if !errors.As(err, &se) {
				t.Fatalf("Run = %v (%T), want a *StrategyError", err, err)
			}
			got := want{se.What, se.N, se.Answer, se.Crash != nil}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("StrategyError (-want +got):\n%s", d)
			}
			if se.At != 5 || !strings.Contains(err.Error(), "a simrun bug, not the kernel's") {
				t.Errorf("At %v, error %q", se.At, err)
			}
		})
	}
	t.Run("control flow", func(t *testing.T) {
		e := NewEngine(panicChooser{})
		a := e.AddLane("cpu0", func() { e.Choose(2, "x") })
		e.SetNext(a, 1)
		defer func() {
			if r := recover(); r != (controlFlow{}) {
				t.Errorf("recovered %v, want the strategy's own panic", r)
			}
		}()
		err := e.Run(Never)
		t.Fatalf("Run returned %v, want the strategy's panic", err)
	})
}
