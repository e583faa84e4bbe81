package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// ctx->lock as another CPU sees it. Most of the core runs on the CPU where a
// context is active, with irqs off, and needs no lock in the model; the
// places where two CPUs can touch one task context at once are the task's
// sched in and out on its CPU and event_function_call()'s path for a task that
// is not running, on the caller's CPU. Between step points of one of them the
// other must not run, as raw_spin_lock(&ctx->lock) guarantees upstream: a CPU
// that finds the lock held spins, and time passes, until it is free.

// spinCost is how long a CPU spins between two tries of a held raw spinlock.
const spinCost = 20 * sim.Nanosecond

func init() { RegisterStepPoints("raw_spin_lock:ctx->lock") }

// ctxLockClass is ctx->lock's lockdep class (raw_spin_lock_init() in __perf_event_init_context()).
var ctxLockClass = sched.LockClass{Name: "ctx->lock"}

// ctxLock takes ctx->lock on c (nesting on one CPU, where the model's helpers
// take it again rather than pass it down).
// kernel/events/core.c: perf_ctx_lock() / raw_spin_lock(&ctx->lock)
func (k *Kernel) ctxLock(c *cpu.CPU, ctx *Context) { k.ctxLockNested(c, ctx, 0) }

// ctxLockNested is ctxLock with a lockdep subclass: the second of two
// contexts locked together (the clone swap's next_ctx) says
// SINGLE_DEPTH_NESTING (1).
// kernel/events/core.c: perf_event_context_sched_out(): raw_spin_lock_nested(&next_ctx->lock, SINGLE_DEPTH_NESTING)
func (k *Kernel) ctxLockNested(c *cpu.CPU, ctx *Context, subclass int) {
	if ctx.life.freeQueued {
		k.ctxUse(ctx, "raw_spin_lock(&ctx->lock)")
	}
	for ctx.lockCPU != 0 && ctx.lockCPU != c.ID+1 {
		k.accessCtxLockHeld(c, ctx) // the look that finds it held, before the spin's step point
		c.Step("raw_spin_lock:ctx->lock")
		c.Spend(spinCost)
	}
	if ctx.lockDepth == 0 {
		k.S.Lockdep.AcquireCached(c, nil, &k.ctxLockClasses, sched.LockClass{Name: ctxLockClass.Name, Subclass: subclass})
	}
	k.accessCtxLock(c, ctx, "raw_spin_lock")
	ctx.lockCPU = c.ID + 1
	ctx.lockDepth++
	c.Acquire(&ctx.lockClock) // the data-race oracle's lock edge (cpu/race.go)
}

// ctxUnlock releases what ctxLock took.
// kernel/events/core.c: perf_ctx_unlock()
func (k *Kernel) ctxUnlock(c *cpu.CPU, ctx *Context) {
	if ctx.lockCPU != c.ID+1 || ctx.lockDepth <= 0 {
		panicCrash("raw_spin_unlock: ctx->lock of %v not held on cpu%d", ctx.task, c.ID)
	}
	k.accessCtxLock(c, ctx, "raw_spin_unlock")
	if ctx.lockDepth--; ctx.lockDepth == 0 {
		c.Release(&ctx.lockClock)
		ctx.lockCPU = 0
		k.S.Lockdep.ReleaseCached(c, nil, &k.ctxLockClasses, ctxLockClass.Name)
	}
}
