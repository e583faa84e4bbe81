package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// settleCounter is a Settler that settles once it has answered `after`
// questions, and counts how often it is asked whether it has.
type settleCounter struct {
	after, asked, settledAsked, passes int
}

func (s *settleCounter) Choose(n int, what string) int { s.asked++; return 0 }
func (s *settleCounter) Settled() bool                 { s.settledAsked++; return s.asked >= s.after }
func (s *settleCounter) Pass()                         { s.passes++ }

// TestPassAsksSettledUntilSettled: the engine asks its Chooser whether it
// has settled until it says so, and never after (settling is for good:
// Settler), while every later tie is still passed and counted. Five lanes
// due together at each of four instants are 4 ties an instant, 16 in all.
func TestPassAsksSettledUntilSettled(t *testing.T) {
	s := &settleCounter{after: 3}
	e := NewEngine(s)
	for range 5 {
		var l *Lane
		l = e.AddLane("x", func() {
			if next := e.Now() + 10; next <= 40 {
				e.SetNext(l, next)
			} else {
				e.SetNext(l, Never)
			}
		})
		e.SetNext(l, 10)
	}
	if err := e.Run(Never); err != nil {
		t.Fatal(err)
	}
	type counts struct{ Decisions, Asked, SettledAsked, Passes int }
	got := counts{e.Decisions, s.asked, s.settledAsked, s.passes}
	// Settled is asked at each of the first 4 ties (false 3 times, then
	// true); the 3 asked in full answer it, the 13 others are passes.
	want := counts{Decisions: 16, Asked: 3, SettledAsked: 4, Passes: 13}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
