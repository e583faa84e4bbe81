package cpu

import "perfsim/sim"

// SpinUntil busy-waits in th's current mode, the way a loop of
// `while (!poll()) cpu_relax();` does, until poll reports true (it returns
// true) or until deadline (false). The CPU stays busy and th stays current;
// interrupts are taken as they arrive, as in Spend.
//
// The simulator does not iterate the loop: th waits until deadline, an
// interrupt, or a Kick of its CPU by the code that changed what poll looks at
// (a store to the watched word on another CPU). A kick makes th's CPU due at
// that very instant, so the store and th's next poll are ordered by the
// Chooser, like any two CPUs at the same instant.
func (th *Thread) SpinUntil(deadline sim.Time, poll func() bool) bool {
	for {
		if poll() {
			return true
		}
		c := th.cpu
		if c.TakeInterrupts() && th.User && c.m.Hooks != nil {
			c.m.Hooks.IrqExitToUser(th)
			continue
		}
		start := c.eng.Now()
		if start >= deadline {
			return false
		}
		c.spinner = th
		c.waitUntil(deadline)
		if c.spinner == th {
			c.spinner = nil
		}
		ran := c.eng.Now() - start
		th.Ran += ran
		c.Busy += ran
	}
}

// Kick ends the SpinUntil wait of the thread spinning on c, if any, at the
// current instant: what it polls has just changed. It does nothing when no
// thread spins on c or c is the CPU running now (a spinner cannot be kicked
// by itself).
func (c *CPU) Kick() {
	if c.spinner == nil || c.curr != c.spinner || c.eng.Running() == c.lane {
		return
	}
	now := c.eng.Now()
	if c.lane.Next() > now {
		c.eng.SetNext(c.lane, now)
	}
}
