package pmu

import "perfsim/cpu"

// perfPinContext is find_get_context()'s pin of the context it returns:
// "++ctx->pin_count" under ctx->lock, so the context is not swapped to
// another task (context_equiv()) while perf_event_open() installs into it.
// kernel/events/core.c: find_get_context(): raw_spin_lock_irqsave(&ctx->lock, flags); ++ctx->pin_count
func (k *Kernel) perfPinContext(ctx *Context) {
	c := k.curCPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	c.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "find_get_context") // core.c: find_get_context(): ++ctx->pin_count (under ctx->lock)
	ctx.pinCount++
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
}

// perfUnpinContext drops the pin: under ctx->lock today; with
// unpin-ctx-lock=pre-6c605f837115, as before 6c605f837115, a plain decrement that
// races find_get_context()'s increment on another CPU.
// kernel/events/core.c: perf_unpin_context()
func (k *Kernel) perfUnpinContext(c *cpu.CPU, ctx *Context) {
	if k.KnobIs(unpinLockKnob.Name, "pre-6c605f837115") {
		c.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "perf_unpin_context") // core.c before 6c605f837115: perf_unpin_context(): --ctx->pin_count (no lock)
		ctx.pinCount--
		return
	}
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	c.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "perf_unpin_context") // core.c: perf_unpin_context(): --ctx->pin_count (under ctx->lock)
	ctx.pinCount--
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
}
