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
	k.accessSwitchEvents(c)
	if k.nrSwitchEvents > 0 {
		k.perfEventSwitch(c, prev, next, false)
	}
	if prev != nil {
		k.accessLastCPU(c, prev, cpu.MarkedWrite, "perf_event_task_sched_out")
		k.lastCPU[prev] = c.ID
		k.perfEventContextSchedOut(c, prev, next)
	}
	// "if cgroup events exist on this CPU, then we need to check if we
	// have to switch out PMU state."
	k.perfCgroupSwitch(c, next)
}

// perfEventContextSchedOut schedules out task's context, or, when next's
// context is an equivalent clone (context_equiv()), swaps the two contexts
// between the tasks instead and leaves the events on the PMU: task's events
// now count for next and the other way round, which is the same sum for the
// events they were cloned from. inherit + PERF_SAMPLE_READ events
// (nr_no_switch_fast) take the slow path; inherit_stat events swap their
// values (perf_event_sync_stat()) so per-task counts stay right. Knob
// ctx-swap=off: always the slow path.
// kernel/events/core.c: perf_event_context_sched_out()
func (k *Kernel) perfEventContextSchedOut(c *cpu.CPU, task, next *sched.Task) {
	ctx := k.taskCtx[task]
	k.accessTaskCtxp(c, task, ctx, "perf_event_context_sched_out")
	if ctx == nil || ctx.dead {
		return
	}
	if next != nil && !k.KnobIs("ctx-swap", "off") {
		nextCtx := k.taskCtx[next]
		k.accessTaskCtxp(c, next, nextCtx, "perf_event_context_sched_out")
		if nextCtx != nil && !nextCtx.dead {
			k.accessCtx(c, ctx, "ctx->parent_ctx", cpu.MarkedRead, "perf_event_context_sched_out")     // core.c: perf_event_context_sched_out(): parent = rcu_dereference(ctx->parent_ctx)
			k.accessCtx(c, nextCtx, "ctx->parent_ctx", cpu.MarkedRead, "perf_event_context_sched_out") // core.c: perf_event_context_sched_out(): next_parent = rcu_dereference(next_ctx->parent_ctx)
			parent, nextParent := ctx.parentCtx, nextCtx.parentCtx
			// "If neither context have a parent context; they cannot be clones."
			if (parent != nil || nextParent != nil) && (nextParent == ctx || nextCtx == parent || nextParent == parent) {
				k.ctxLock(c, ctx)
				k.ctxLockNested(c, nextCtx, 1) // SINGLE_DEPTH_NESTING
				c.Step("perf_event_context_sched_out:locked")
				k.accessCloneCheck(c, ctx, nextCtx)
				if contextEquiv(ctx, nextCtx) {
					k.perfCtxDisable(c, ctx)
					// "PMIs are disabled; ctx->nr_no_switch_fast is stable."
					k.accessCtx(c, ctx, "ctx->nr_no_switch_fast", cpu.MarkedRead, "perf_event_context_sched_out")     // core.c: perf_event_context_sched_out(): if (local_read(&ctx->nr_no_switch_fast) ||
					k.accessCtx(c, nextCtx, "ctx->nr_no_switch_fast", cpu.MarkedRead, "perf_event_context_sched_out") // core.c: perf_event_context_sched_out():     local_read(&next_ctx->nr_no_switch_fast))
					if ctx.nrNoSwitchFast != 0 || nextCtx.nrNoSwitchFast != 0 {
						k.ctxUnlock(c, nextCtx)
						k.taskCtxSchedOutLocked(c, ctx) // goto inside_switch
						return
					}
					c.Access(ctx, "ctx->task", cpu.MarkedWrite, "perf_event_context_sched_out")     // core.c: perf_event_context_sched_out(): WRITE_ONCE(ctx->task, next)
					c.Access(nextCtx, "ctx->task", cpu.MarkedWrite, "perf_event_context_sched_out") // core.c: perf_event_context_sched_out(): WRITE_ONCE(next_ctx->task, task)
					ctx.task, nextCtx.task = next, task
					c.Step("perf_event_context_sched_out:swapped")
					k.perfCtxEnable(c, ctx)
					k.taskCtx[task], k.taskCtx[next] = nextCtx, ctx
					k.inh.swaps++
					k.perfEventSyncStat(c, ctx, nextCtx)
					k.ctxUnlock(c, nextCtx)
					k.ctxUnlock(c, ctx)
					return
				}
				k.ctxUnlock(c, nextCtx)
				k.ctxUnlock(c, ctx)
			}
		}
	}
	k.accessCtx(c, ctx, "ctx->is_active", cpu.MarkedRead, "perf_event_context_sched_out") // the model's shortcut of task_ctx_sched_out() -> ctx_sched_out(): if (!ctx->is_active)
	if ctx.isActive == 0 {
		return
	}
	k.ctxLock(c, ctx)
	if d := k.S.Cfg.Cost.PerfContextSwitch; d > 0 && len(ctx.events) > 0 {
		c.Spend(d) // ctx_sched_out() and the ctx_sched_in() to come (cost.Profile.PerfContextSwitch)
	}
	k.perfCtxDisable(c, ctx)
	k.taskCtxSchedOutLocked(c, ctx)
}

// taskCtxSchedOutLocked is the slow path's end (inside_switch): with ctx
// locked and its PMUs disabled, task_ctx_sched_out(), enable, unlock.
func (k *Kernel) taskCtxSchedOutLocked(c *cpu.CPU, ctx *Context) {
	c.Step("perf_event_context_sched_out:disabled")
	k.ctxSchedOut(c, ctx, EVENT_ALL) // task_ctx_sched_out()
	k.perfCtxEnable(c, ctx)
	k.ctxUnlock(c, ctx)
}

// contextEquiv: both contexts were cloned from the same version of the same
// context (one is the other's parent at its generation, or both share a
// parent and parent_gen), and neither is pinned.
// kernel/events/core.c: context_equiv()
func contextEquiv(ctx1, ctx2 *Context) bool {
	// "Pinning disables the swap optimization"
	if ctx1.pinCount != 0 || ctx2.pinCount != 0 {
		return false
	}
	if ctx1 == ctx2.parentCtx && ctx1.generation == ctx2.parentGen {
		return true
	}
	if ctx1.parentCtx == ctx2 && ctx1.parentGen == ctx2.generation {
		return true
	}
	return ctx1.parentCtx != nil && ctx1.parentCtx == ctx2.parentCtx && ctx1.parentGen == ctx2.parentGen
}

// SchedIn implements sched.SwitchHook: perf_event_task_sched_in(), called from
// finish_task_switch() with irqs off. A task that moved CPUs counts a
// cpu-migration once its events are on.
// include/linux/perf_event.h: perf_event_task_sched_in()
func (k *Kernel) SchedIn(c *cpu.CPU, prev, next *sched.Task) {
	if next == nil {
		c.AccessMarkedOnly(nrSwitchEvents, "nr_switch_events", cpu.MarkedRead, "perf_event_task_sched_in") // kernel/events/core.c: __perf_event_task_sched_in(): if (atomic_read(&nr_switch_events))
		if k.nrSwitchEvents > 0 {
			k.perfEventSwitch(c, nil, prev, true) // the idle task's
		}
		return
	}
	c.Step("perf_event_task_sched_in")
	k.perfEventContextSchedIn(c, next)
	k.accessSwitchEvents(c)
	if k.nrSwitchEvents > 0 {
		k.perfEventSwitch(c, next, prev, true)
	}
	k.accessLastCPU(c, next, cpu.MarkedRead, "perf_event_task_sched_in")
	if last, ok := k.lastCPU[next]; ok && last != c.ID {
		k.perfSwEventSched(c, uapi.PERF_COUNT_SW_CPU_MIGRATIONS) // task->sched_migrated
	}
}

// perfEventContextSchedIn schedules in task's context, pushing out the CPU's
// flexible groups first when the task has pinned ones.
// kernel/events/core.c: perf_event_context_sched_in()
func (k *Kernel) perfEventContextSchedIn(c *cpu.CPU, task *sched.Task) {
	ctx := k.taskCtx[task]
	k.accessTaskCtxp(c, task, ctx, "perf_event_context_sched_in")
	if ctx == nil || ctx.dead {
		// task->perf_event_ctxp is NULL once perf_event_exit_task_context()
		// ran: an exiting task that sleeps later (on a child_mutex) comes
		// back without perf events.
		return
	}
	cc := &k.cpuCtx[c.ID]
	k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "perf_event_context_sched_in") // core.c: perf_event_context_sched_in(): if (cpuctx->task_ctx == ctx)
	if cc.taskCtx == ctx {
		return
	}
	k.ctxLock(c, ctx) // perf_ctx_lock(cpuctx, ctx)

	k.accessCtxEvents(c, ctx, "perf_event_context_sched_in") // core.c: perf_event_context_sched_in(): if (!ctx->nr_events)
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
	k.accessCtxEvents(c, ctx, "perf_ctx_disable")
	for _, p := range k.pmus {
		if ctxHasPMU(ctx, p) {
			k.perfPMUDisable(c, p)
		}
	}
}

// perfCtxEnable is perf_ctx_enable().
func (k *Kernel) perfCtxEnable(c *cpu.CPU, ctx *Context) {
	k.accessCtxEvents(c, ctx, "perf_ctx_enable")
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
