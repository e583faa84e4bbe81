package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// SchedOut implements sched.SwitchHook: perf_event_task_sched_out(), called
// from prepare_task_switch() with irqs off. The context-switches software
// event is counted first, while prev's events are still on.
// include/linux/perf_event.h: perf_event_task_sched_out()
func (k *Kernel) SchedOut(c *cpu.CPU, prev, next *sched.Task) {
	k.perfSwEventSched(c, uapi.PERF_COUNT_SW_CONTEXT_SWITCHES)
	c.Step("perf_event_task_sched_out")
	if k.nrSwitchEvents > 0 {
		k.perfEventSwitch(c, prev, next, false)
	}
	if prev != nil {
		k.lastCPU[prev] = c.ID
		k.perfEventContextSchedOut(c, prev)
	}
}

// perfEventContextSchedOut schedules out prev's context (the clone-swap
// optimisation of inherited contexts is not modelled: no fork).
// kernel/events/core.c: perf_event_context_sched_out()
func (k *Kernel) perfEventContextSchedOut(c *cpu.CPU, task *sched.Task) {
	ctx := k.taskCtx[task]
	if ctx == nil || ctx.isActive == 0 {
		return
	}
	k.ctxLock(c, ctx)
	if d := k.S.Cfg.Cost.PerfContextSwitch; d > 0 && len(ctx.events) > 0 {
		c.Spend(d) // ctx_sched_out() and the ctx_sched_in() to come (cost.Profile.PerfContextSwitch)
	}
	k.perfCtxDisable(c, ctx)
	c.Step("perf_event_context_sched_out:disabled")
	k.ctxSchedOut(c, ctx, EVENT_ALL) // task_ctx_sched_out()
	k.perfCtxEnable(c, ctx)
	k.ctxUnlock(c, ctx)
}

// SchedIn implements sched.SwitchHook: perf_event_task_sched_in(), called from
// finish_task_switch() with irqs off. A task that moved CPUs counts a
// cpu-migration once its events are on.
// include/linux/perf_event.h: perf_event_task_sched_in()
func (k *Kernel) SchedIn(c *cpu.CPU, prev, next *sched.Task) {
	if next == nil {
		if k.nrSwitchEvents > 0 {
			k.perfEventSwitch(c, nil, prev, true) // the idle task's
		}
		return
	}
	c.Step("perf_event_task_sched_in")
	k.perfEventContextSchedIn(c, next)
	if k.nrSwitchEvents > 0 {
		k.perfEventSwitch(c, next, prev, true)
	}
	if last, ok := k.lastCPU[next]; ok && last != c.ID {
		k.perfSwEventSched(c, uapi.PERF_COUNT_SW_CPU_MIGRATIONS) // task->sched_migrated
	}
}

// perfEventContextSchedIn schedules in task's context, pushing out the CPU's
// flexible groups first when the task has pinned ones.
// kernel/events/core.c: perf_event_context_sched_in()
func (k *Kernel) perfEventContextSchedIn(c *cpu.CPU, task *sched.Task) {
	ctx := k.taskCtx[task]
	if ctx == nil {
		return
	}
	cc := &k.cpuCtx[c.ID]
	if cc.taskCtx == ctx {
		return
	}
	k.ctxLock(c, ctx) // perf_ctx_lock(cpuctx, ctx)
	if len(ctx.events) == 0 {
		k.ctxUnlock(c, ctx)
		return
	}
	k.perfCtxDisable(c, ctx)
	if len(ctx.pinned) > 0 {
		k.ctxSchedOut(c, &cc.ctx, EVENT_FLEXIBLE)
	}
	k.perfEventSchedIn(c, ctx)
	k.perfCtxEnable(c, ctx)
	k.ctxUnlock(c, ctx)
}

// perfCtxDisable disables every PMU that has events in ctx.
// kernel/events/core.c: perf_ctx_disable()
func (k *Kernel) perfCtxDisable(c *cpu.CPU, ctx *Context) {
	for _, p := range k.pmus {
		if ctxHasPMU(ctx, p) {
			k.perfPMUDisable(c, p)
		}
	}
}

// perfCtxEnable is perf_ctx_enable().
func (k *Kernel) perfCtxEnable(c *cpu.CPU, ctx *Context) {
	for _, p := range k.pmus {
		if ctxHasPMU(ctx, p) {
			k.perfPMUEnable(c, p)
		}
	}
}

func ctxHasPMU(ctx *Context, p PMU) bool {
	for _, e := range ctx.events {
		if e.pmu == p {
			return true
		}
	}
	return false
}

// TaskExit implements sched.TaskExitHook: the task's events are scheduled
// out, put in the EXIT state, and their pollers woken (POLLHUP).
// kernel/events/core.c: perf_event_exit_task() -> perf_event_exit_task_context()
func (k *Kernel) TaskExit(t *sched.Task) {
	ctx := k.taskCtx[t]
	c := t.CPU()
	if ctx == nil {
		// "At this point we need to send EXIT events to cpu contexts."
		k.perfEventTaskExit(c, t, nil)
		return
	}
	flags := c.LocalIrqSave()
	c.Step("perf_event_exit_task_context")
	if k.cpuCtx[c.ID].taskCtx == ctx {
		k.ctxSchedOut(c, ctx, EVENT_ALL)
	}
	// "Report the task dead after unscheduling the events so that we won't
	// get any samples after PERF_RECORD_EXIT."
	k.perfEventTaskExit(c, t, ctx)
	ctx.dead = true // ctx->task = TASK_TOMBSTONE
	for _, e := range append([]*Event(nil), ctx.events...) {
		// perf_event_exit_event(): no parent, so the event stays in the
		// context for read() but is EXIT and wakes its pollers.
		e.setState(StateExit)
		k.perfEventWakeup(e)
	}
	c.LocalIrqRestore(flags)
	k.perfEventTaskExit(c, t, nil) // perf_event_exit_task(): the CPU's events
}
