package sim

import (
	"fmt"
	"runtime"
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

// ask notes that the Chooser is being asked a decision of n options (no
// defer: a decision is asked at most step points of a busy run).
func (e *Engine) ask(n int, what string) {
	e.asking, e.askN, e.askWhat = true, n, what
}

// strategyError is what Run's recover makes of r: a *StrategyError when
// the Chooser raised it, or crashed with a runtime error while asked; nil
// for anything else (a model crash, a limit, a strategy's own control flow).
func (e *Engine) strategyError(r any) *StrategyError {
	if s, ok := r.(*StrategyError); ok {
		return s
	}
	if re, ok := r.(runtime.Error); ok && e.asking {
		e.asking = false
		return &StrategyError{What: e.askWhat, N: e.askN, Answer: -1, Crash: re, At: e.decidedAt()}
	}
	return nil
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
