package pmu

import (
	"perfsim/cpu"
)

// The footprint of perf_event_enable_on_exec() (read.go: EnableOnExec),
// declared complete from its step point "perf_event_enable_on_exec" (irqs
// off on the exec'ing task's CPU, the task's context found with events:
// footprint_exec.go's accessExec annotates the look before it) up to the
// task's next:
//
//   - cpuctx->task_ctx read (the model's test for ctx_time_freeze()),
//     perf_ctx_lock() of this CPU's context and the task's, ctx_time_freeze()
//     (accessTimeFreeze: a cgroup's time marked);
//   - the walk of ctx->event_list: each event's event_enable_on_exec() (its
//     attr.enable_on_exec cleared upstream, which the model keeps; its
//     state read), and for an event OFF or in ERROR perf_event_set_state()
//     to INACTIVE (setState annotates itself: the times, the state);
//   - an event enabled: ctx_resched(), whose code up to its first step
//     point is annotated (ctxSchedOut's and ctxSchedIn's looks at
//     ctx->is_active and the event list, footprint_sched.go), and whose
//     return into perf_event_enable_on_exec() is annotated within
//     execve(2)'s modelled body and marked elsewhere (ctxResched);
//   - none enabled (or no reschedule: the task is not current): the
//     model's local_irq_restore(), then the same return into the exec
//     (perf_ctx_unlock(), perf_event_remove_on_exec(),
//     perf_event_addr_filters_exec(), the rest of begin_new_exec():
//     footprint_exec_resched.go, sched/footprint_exec.go), annotated
//     within execve(2)'s modelled body (execReschedAudited) and marked
//     from any other caller (a test's direct call).
//
// An enabled context's unclone_ctx() and the put of its parent after the
// unlock are annotated where they happen (accessUnclone).
// TestEnableOnExecFootprint pins the footprint; explore's
// TestWriteAuditEnableOnExec checks the writes.
func init() {
	cpu.DeclareComplete("perf_event_enable_on_exec")
}

// accessEnableOnExec annotates perf_event_enable_on_exec() on c from its
// step point up to the reschedule: ctx is t's context.
// kernel/events/core.c: perf_event_enable_on_exec()
func (k *Kernel) accessEnableOnExec(c *cpu.CPU, ctx *Context) {
	if !k.M.FootprintListening() {
		return
	}
	k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "perf_event_enable_on_exec")      // the model's ctx_time_freeze() test: is ctx this CPU's task_ctx
	k.accessCtxLock(c, &k.cpuCtx[c.ID].ctx, "perf_ctx_lock")                                // kernel/events/core.c: perf_event_enable_on_exec(): perf_ctx_lock(cpuctx, ctx): raw_spin_lock(&cpuctx->ctx.lock) (ctx->lock: EnableOnExec's ctxLock)
	k.accessTimeFreeze(c, ctx)                                                              // kernel/events/core.c: perf_event_enable_on_exec(): ctx_time_freeze(cpuctx, ctx)
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "perf_event_enable_on_exec") // kernel/events/core.c: perf_event_enable_on_exec(): list_for_each_entry(event, &ctx->event_list, event_entry)
	for _, e := range ctx.events {
		c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "event_enable_on_exec") // kernel/events/core.c: event_enable_on_exec(): if (event->state >= PERF_EVENT_STATE_INACTIVE) return 0
		if e.Attr.EnableOnExec {
			c.AccessMarkedOnly(e, "event->attr.enable_on_exec", cpu.PlainWrite, "event_enable_on_exec") // kernel/events/core.c: event_enable_on_exec(): event->attr.enable_on_exec = 0 (ctx->lock held)
		}
	}
}

// markEnableOnExecReturn marks perf_event_enable_on_exec()'s return with
// no reschedule into a caller nobody annotated (anything but execve(2)'s
// modelled body, footprint_exec_resched.go).
func (k *Kernel) markEnableOnExecReturn(c *cpu.CPU) {
	if k.M.FootprintListening() && !k.execReschedAudited(c) {
		returnUnaudited(c, "perf_event_enable_on_exec's caller")
	}
}

// accessUnclone annotates unclone_ctx() of ctx and, after the unlock, the
// put of its parent (clone; nil when ctx was no clone): at the exit, and at
// an exec that enabled an event.
// kernel/events/core.c: unclone_ctx(); put_ctx(clone_ctx)
func (k *Kernel) accessUnclone(c *cpu.CPU, ctx, clone *Context) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->parent_ctx", cpu.MarkedWrite, "unclone_ctx") // kernel/events/core.c: unclone_ctx(): ctx->parent_ctx = NULL; ctx->generation++
	k.accessPutClone(c, clone)
}
