package cpu

// handoff lets a yielding thread hand its CPU's run straight to the next
// lane's thread (sim.Coroutine.YieldTo) where the engine's step is plain
// (sim.Engine.PickNext); false: every yield goes back to the engine's
// goroutine, which takes every step itself. Both run the same schedule
// (TestHandoffSameRun).
var handoff = true

// handoff is the engine's next step taken on c's yielding thread
// (sim.Engine.PickNext, a tie's decision included): when the lane picked is
// another CPU's whose run is no more than resuming its current thread (no
// timer of its own due, its thread suspended), it enters that run as
// CPU.run would and returns the thread to switch to. nil: c yields to the
// engine, which runs the lane picked (or takes the step itself). Under a
// segment listener (a reduction's) the engine takes every step.
func (c *CPU) handoff() *Thread {
	if !handoff || c.m.seg != nil || c.curr == nil || c.curr.co.Unwinding() {
		return nil // unwinding (Kill after an oops): Yield panics, nothing is picked
	}
	l := c.eng.PickNext(c.lane)
	if l == nil || l.ID >= len(c.m.CPUs) {
		return nil
	}
	n := c.m.CPUs[l.ID]
	if n.lane != l {
		return nil // another lane (the runner's outcomes)
	}
	th, now := n.curr, l.Next()
	if now < n.clock || n.timers.Next() <= now || th == nil || !th.co.Suspended() {
		return nil // CPU.run has more to do than resume th (or an oops to raise)
	}
	c.eng.EnterPicked(l)
	n.setClock(now) // as CPU.run does before it resumes th
	n.beforeResume(th)
	return th
}
