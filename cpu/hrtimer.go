package cpu

import (
	"slices"

	"perfsim/sim"
)

// An hrtimer has two expiries: the soft one (the time asked for) and the
// hard one, the soft plus the slack its caller allows (a sleeping task's
// timer_slack_ns, 50 us by default). The CPU's clock event is programmed
// for the earliest hard expiry; when it fires, hrtimer_interrupt() runs
// the base's timers in order of their hard expiry as long as each one's
// soft expiry has passed, stopping at the first that has not. So a timer
// with slack fires at its hard expiry, or earlier when another hrtimer of
// the CPU (the tick, perf's hrtimers, another sleeper) fires inside its
// range, as long as no timer between them in hard order is still short of
// its soft expiry. Timers of other interrupts (a counter's overflow NMI, a
// device's irq) are not hrtimers: they neither run nor stop the walk.
// kernel/time/hrtimer.c: hrtimer_interrupt(), __hrtimer_run_queues()

// NewHRTimer returns an unarmed hrtimer on c that raises it as an irq.
// Its handler is followed by the rest of __hrtimer_run_queues()'s walk
// (expireSoft): after the callback, which may have re-armed the timer
// (HRTIMER_RESTART: perf's periodic hrtimers), as the kernel re-enqueues
// it before the walk goes on.
func (c *CPU) NewHRTimer(it Interrupt) *Timer {
	fn := it.Fn
	it.Fn = func(c *CPU) {
		if fn != nil {
			fn(c)
		}
		c.expireSoft(c.Now())
	}
	tm := c.NewTimer(false, it)
	tm.hr = true
	return tm
}

// ArmRange (re)arms an hrtimer with a soft expiry of soft (not before now)
// and a hard one slack later (hrtimer_set_expires_range_ns()). With no
// slack it is Arm.
// include/linux/hrtimer.h: hrtimer_set_expires_range_ns()
func (tm *Timer) ArmRange(soft sim.Time, slack sim.Duration) {
	if !tm.hr {
		sim.Crash("cpu: ArmRange of %s, which is no hrtimer", tm.it.Name)
	}
	if now := tm.c.eng.Now(); soft < now {
		soft = now
	}
	hard := soft + sim.Time(slack)
	if slack <= 0 || hard < soft { // none, or past the end of time (KTIME_MAX)
		tm.Arm(soft)
		return
	}
	tm.arm(soft, hard)
}

// expireSoft is the rest of __hrtimer_run_queues() after an hrtimer's
// handler ran at now: the CPU's queued hrtimers in hard-expiry order (a
// periodic one its handler re-armed among them), each raised now while
// its soft expiry has passed.
func (c *CPU) expireSoft(now sim.Time) {
	keep, due := c.ranged[:0], false
	for _, tm := range c.ranged {
		if tm.c == c && tm.t.Queued() && tm.soft < tm.t.When {
			keep = append(keep, tm)
			due = due || tm.soft <= now
		}
	}
	clear(c.ranged[len(keep):])
	c.ranged = keep
	if !due {
		return // no range has begun: nothing for the walk to run early
	}
	var q []*Timer
	for _, tm := range c.owned {
		if tm.hr && tm.t.Queued() {
			q = append(q, tm)
		}
	}
	slices.SortFunc(q, func(a, b *Timer) int { return a.t.Compare(b.t) })
	for _, tm := range q {
		if tm.soft > now {
			break // "We don't add extra wakeups by delaying timers that are right-of a not yet expired timer"
		}
		c.timers.Remove(tm.t)
		tm.raise()
	}
}
