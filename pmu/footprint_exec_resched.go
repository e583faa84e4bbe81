package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The return of ctx_resched() into perf_event_enable_on_exec() within an
// exec (execve(2)'s modelled body, perf's ExecHook: TaskExec), annotated up
// to the task's next step point, so the fragments that start inside the
// reschedule ("ctx_sched_out", "ctx_sched_in", "event_sched_in", ...,
// footprint_sched.go) may be complete when they end there:
//
//   - perf_event_enable_on_exec()'s tail: perf_ctx_unlock() of the CPU's
//     context and the task's (accessEnableOnExecTail; the model's
//     local_irq_restore() touches nothing another context sees);
//   - perf_event_remove_on_exec(): current->perf_event_ctxp, ctx->mutex
//     taken (core_exec.go: ctxMutexLocked, unlockMutex: a take that finds it
//     held sleeps, marked), the event list walked (each event's ctx; a
//     remove_on_exec event's owner cleared, then its step point), ctx->lock
//     taken and dropped (ctxLock annotates itself); put_ctx() of a clone
//     only after a removal, past that step point;
//   - perf_event_addr_filters_exec(): the event list walked again, each
//     event of a PMU with address filters takes its filters head's lock
//     (ifh->lock, as perf_addr_filters_adjust() annotates it); one with
//     filters set (their ranges cleared, the restart) is marked;
//   - the rest of the exec (perf_event_comm() on: sched/footprint_exec.go's
//     annotations, pmu/footprint_sideband.go's).
//
// Any other return of ctx_resched() (a test calling EnableOnExec outside an
// exec; __perf_event_enable(), ioctl.go) is marked where it returns
// (returnUnaudited).

// execReschedAudited reports whether ctx_resched() on c returns into
// perf_event_enable_on_exec() within execve(2)'s modelled body, with no
// exec hook after perf's (whose code would run in the same fragment):
// the code after it is annotated (above).
func (k *Kernel) execReschedAudited(c *cpu.CPU) bool {
	if c.Context() != cpu.CtxTask {
		return false
	}
	t := sched.TaskOf(c.Curr())
	if t == nil || !k.modelledSyscall(t, "execve") {
		return false
	}
	return !k.laterHook(func(h any) bool { _, ok := h.(sched.ExecHook); return ok })
}

// accessEnableOnExecTail annotates perf_event_enable_on_exec() after
// ctx_resched(): perf_ctx_unlock() of this CPU's context and t's.
func (k *Kernel) accessEnableOnExecTail(t *sched.Task) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	ctx := k.taskCtx[t]
	if ctx == nil || len(ctx.events) == 0 {
		return // perf_event_enable_on_exec() was not called, or left at once (accessExec)
	}
	k.accessCtxLock(c, &k.cpuCtx[c.ID].ctx, "perf_ctx_unlock") // kernel/events/core.c: perf_event_enable_on_exec(): perf_ctx_unlock(cpuctx, ctx): raw_spin_unlock(&cpuctx->ctx.lock)
	k.accessCtxLock(c, ctx, "perf_ctx_unlock")                 // kernel/events/core.c: perf_ctx_unlock(): raw_spin_unlock(&ctx->lock)
}

// accessRemoveOnExec annotates perf_event_remove_on_exec()'s walk of ctx
// under ctx->mutex (taken and dropped by the annotated helpers): the task's
// context read, the event list, each event's context; e, when not nil, is
// a remove_on_exec event whose owner the walk clears before its step point.
func (k *Kernel) accessRemoveOnExec(t *sched.Task, ctx *Context, e *Event) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	if e != nil {
		c.AccessMarkedOnly(e, "event->owner", cpu.MarkedWrite, "perf_remove_from_owner") // kernel/events/core.c: perf_event_remove_on_exec() -> perf_remove_from_owner(): list_del_init(&event->owner_entry); smp_store_release(&event->owner, NULL)
		return
	}
	k.accessTaskCtxp(c, t, ctx, "perf_event_remove_on_exec")                                // kernel/events/core.c: perf_event_exec(): ctx = perf_pin_task_context(current)
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "perf_event_remove_on_exec") // kernel/events/core.c: perf_event_remove_on_exec(): list_for_each_entry_safe(event, next, &ctx->event_list, event_entry)
	for _, ev := range ctx.events {
		c.AccessMarkedOnly(ev, "event->ctx", cpu.MarkedRead, "perf_event_remove_on_exec") // the model's check that the event is still the context's
	}
}

// accessAddrFiltersExec annotates perf_event_addr_filters_exec() over t's
// context (perf_iterate_ctx(ctx, ..., true)): each event of a PMU with
// address filters takes its filters head's lock and walks the list; an
// event with filters set (their ranges cleared, the event restarted:
// perf_event_stop()) is marked.
func (k *Kernel) accessAddrFiltersExec(t *sched.Task) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	ctx := k.taskCtx[t]
	k.accessTaskCtxp(c, t, ctx, "perf_event_addr_filters_exec") // kernel/events/core.c: perf_event_exec(): the pinned context
	if ctx == nil || ctx.dead {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "perf_iterate_ctx") // kernel/events/core.c: perf_iterate_ctx(): list_for_each_entry_rcu(event, &ctx->event_list, event_entry)
	for _, e := range ctx.events {
		if !hasAddrFilter(e) {
			continue // perf_event_addr_filters_exec(): if (!has_addr_filter(event)) return
		}
		ifh := e
		if e.parent != nil {
			ifh = e.parent // perf_event_addr_filters(): the parent's
		}
		c.AccessMarkedOnly(ifh, "ifh->lock", cpu.MarkedWrite, "perf_event_addr_filters_exec") // kernel/events/core.c: perf_event_addr_filters_exec(): raw_spin_lock_irqsave(&ifh->lock, flags); list_for_each_entry(filter, &ifh->list, entry)
		if len(e.addrFilters().list) > 0 {
			c.Unaudited("perf_event_addr_filters_exec") // kernel/events/core.c: perf_event_addr_filters_exec(): a file filter's range cleared, event->addr_filters_gen++, perf_event_stop()
			return
		}
	}
}
