package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// ipiCost is how long the caller spins between looks at an IPI it waits for.
const ipiCost = 100 * sim.Nanosecond

// smpCallFunctionSingle runs fn on CPU target with irqs off and waits for it:
// locally with irqs disabled, or through an IPI that the target takes where
// its irqs are on, the caller spinning meanwhile.
// kernel/smp.c: smp_call_function_single(wait=1)
func (k *Kernel) smpCallFunctionSingle(t *sched.Task, target int, fn func(c *cpu.CPU)) {
	c := t.CPU()
	if target == c.ID {
		f := c.LocalIrqSave()
		fn(c)
		c.LocalIrqRestore(f)
		return
	}
	done := false
	k.M.CPUs[target].RaiseIRQ(cpu.Interrupt{Name: "call_function_single", Fn: func(rc *cpu.CPU) {
		fn(rc)
		done = true
	}})
	for !done {
		t.Step("smp_call_function_single:wait")
		if done {
			break
		}
		t.Spend(ipiCost) // csd_lock_wait(): spin, taking our own interrupts
	}
}

// eventFunc is the function event_function_call() runs with the context
// locked on the CPU where it is active (or locally when it is not).
type eventFunc func(c *cpu.CPU, e *Event, ctx *Context)

// eventFunctionCall runs fn for e where its context lives: on the event's
// CPU for a CPU event; for a task event on the CPU running the task (an IPI,
// retried when the task moved meanwhile) or, when the task is not running,
// right here with the context inactive.
// kernel/events/core.c: event_function_call() / event_function()
func (k *Kernel) eventFunctionCall(t *sched.Task, e *Event, fn eventFunc) {
	ctx := e.ctx
	if ctx.task == nil {
		k.smpCallFunctionSingle(t, e.cpu, func(c *cpu.CPU) { fn(c, e, ctx) })
		return
	}
	for {
		task := ctx.task
		if ctx.dead {
			// TASK_TOMBSTONE: the task exited; only the event state is left.
			c := t.CPU()
			f := c.LocalIrqSave()
			fn(c, e, ctx)
			c.LocalIrqRestore(f)
			return
		}
		if tc := task.CPU(); tc != nil {
			// task_function_call(): IPI the CPU running the task; the remote
			// side checks that the context is still the one scheduled in.
			ok := false
			k.smpCallFunctionSingle(t, tc.ID, func(c *cpu.CPU) {
				if sched.TaskOf(c.Curr()) != task {
					return // -ESRCH: it moved or slept meanwhile; try again
				}
				ok = true
				fn(c, e, ctx)
			})
			if ok {
				return
			}
			t.Step("event_function_call:retry")
			continue
		}
		// Not running: lock the context here (raw_spin_lock_irq(&ctx->lock));
		// if it became active meanwhile, try again.
		c := t.CPU()
		f := c.LocalIrqSave()
		k.ctxLock(c, ctx)
		c.Step("event_function_call:ctx-locked")
		if ctx.isActive != 0 {
			k.ctxUnlock(c, ctx)
			c.LocalIrqRestore(f)
			continue
		}
		fn(c, e, ctx)
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return
	}
}
