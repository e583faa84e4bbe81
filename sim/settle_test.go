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

// TestPassTied: a step point's tie passed in one call (PassTied) is what
// TiedCount and Pass made of it: done when no other lane is due now (and
// no longer contended), passed and counted when some are and the Chooser
// has settled, left to the caller when it has not; whether or not the
// running lane's own next is still now (a lane may set it on while it
// runs).
func TestPassTied(t *testing.T) {
	type result struct {
		Done, Contended bool
		Decisions       int
		Passes          int
	}
	for _, tc := range []struct {
		name    string
		settled bool
		others  []Time // the other lanes' next, lane 0 running at 10
		ownNext Time   // lane 0's next, set while it runs
		want    result
	}{
		{"alone", true, []Time{20, 30}, 10, result{Done: true}},
		{"two tied, settled", true, []Time{10, 10, 30}, 10, result{Done: true, Contended: true, Decisions: 1, Passes: 1}},
		{"tied, not settled", false, []Time{10, 20}, 10, result{Contended: true}},
		{"alone, own next moved on", true, []Time{20}, 15, result{Done: true}},
		{"tied, own next moved on", true, []Time{10, 10}, 15, result{Done: true, Contended: true, Decisions: 1, Passes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &settleCounter{after: 1}
			if tc.settled {
				s.after = 0
			}
			e := NewEngine(s)
			var got result
			l0 := e.AddLane("cpu0", nil)
			l0.run = func() {
				e.SetNext(l0, tc.ownNext)
				e.contended = true // as a step point finds it: the lanes tied when l0 was entered
				got.Done = e.PassTied()
				got.Contended, got.Decisions, got.Passes = e.contended, e.Decisions, s.passes
				e.Stop()
			}
			e.SetNext(l0, 10)
			for _, at := range tc.others {
				e.SetNext(e.AddLane("cpu", func() {}), at)
			}
			e.settled = nil
			if tc.settled {
				e.settles()
			}
			e.running = l0 // run l0 alone: no tie of the engine's own before it
			e.now = 10
			l0.run()
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
