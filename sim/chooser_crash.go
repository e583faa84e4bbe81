package sim

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// StrategyError is a Chooser that crashed (a Go runtime error in its own
// code) or answered outside [0, n): a bug of the strategy asking, not of the
// kernel model, so Run returns it as it is and never as an *Oops. A strategy's
// deliberate panics (rapid's end of a test case, dpor's blocked walk) are not
// runtime errors and pass through untouched.
type StrategyError struct {
	What   string // the decision's label
	N      int    // the options it had
	Answer int    // the answer out of range (when Crash is nil)
	Crash  any    // the runtime error the Chooser panicked with
	At     Time   // the virtual time of the decision
	Stack  string // the Chooser's stack at its crash
}

func (e *StrategyError) Error() string {
	if e.Crash != nil {
		return fmt.Sprintf("the schedule's strategy crashed deciding %q (%d options) at %s: %v (a simrun bug, not the kernel's)", e.What, e.N, e.At, e.Crash)
	}
	return fmt.Sprintf("the schedule's strategy answered %d to %q, which has %d options, at %s (a simrun bug, not the kernel's)", e.Answer, e.What, e.N, e.At)
}

// answer checks a Chooser's answer d to a decision of n options.
func (e *Engine) answer(d, n int, what string) int {
	if d < 0 || d >= n {
		panic(&StrategyError{What: what, N: n, Answer: d, At: e.decidedAt()})
	}
	return d
}

// chooserCrash is deferred around a call of the Chooser: a runtime error it
// panics with becomes a *StrategyError (Run returns it, not an oops).
func (e *Engine) chooserCrash(n int, what string) {
	r := recover()
	if r == nil {
		return
	}
	if re, ok := r.(runtime.Error); ok {
		panic(&StrategyError{What: what, N: n, Answer: -1, Crash: re, At: e.decidedAt(), Stack: string(debug.Stack())})
	}
	panic(r)
}

// decidedAt is the virtual time of the decision being asked: the running
// lane's, or at a tie between lanes (none running) the instant they are due.
func (e *Engine) decidedAt() Time {
	if e.running == nil {
		if m := e.heap.min(); m != Never {
			return m
		}
	}
	return e.now
}
