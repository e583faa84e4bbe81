package explore

import (
	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// stopped reports whether the exploration was interrupted (Options.Context).
// A receive that does not block on an open channel takes no lock, so every
// decision of every worker may ask.
func (o Options) stopped() bool {
	select {
	case <-o.done:
		return true
	default:
		return false
	}
}

// interruptible ends a run at once (a stopRun panic, which the engine lets
// through) at its next decision after the exploration was interrupted.
type interruptible struct {
	inner sim.Chooser
	o     *Options
}

// Choose implements sim.Chooser.
func (c interruptible) Choose(n int, what string) int {
	if c.o.stopped() {
		panic(stopRun{})
	}
	return c.inner.Choose(n, what)
}

// ChooseAgents implements sim.AgentChooser.
func (c interruptible) ChooseAgents(n int, what string, agents []sim.Agent) int {
	if c.o.stopped() {
		panic(stopRun{})
	}
	return sim.ChooseWith(c.inner, n, what, agents)
}

// run is one schedule of an exploration with chooser ch: interrupted when the
// exploration was interrupted before it ended.
func (o Options) run(f *scenarios.File, ch sim.Chooser) (r *runner.Run, res *runner.Result, interrupted bool, err error) {
	if o.stopped() {
		return nil, nil, true, nil
	}
	r, res, stopped, err := runStoppable(f, o.runOptions(interruptible{ch, &o}, false))
	if stopped != nil {
		return nil, nil, true, err
	}
	return r, res, false, err
}

// executeStoppable executes a built run; stopped when an interruptible
// chooser ended it.
func executeStoppable(r *runner.Run) (stopped bool, err error) {
	defer func() {
		if x := recover(); x != nil {
			if _, ok := x.(stopRun); !ok {
				panic(x)
			}
			stopped, err = true, nil
		}
	}()
	return false, r.Execute()
}
