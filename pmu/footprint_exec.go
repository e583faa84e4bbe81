package pmu

import (
	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/sched"
)

// The footprint of perf's part of an exec (kernel/events/core.c:
// perf_event_exec(), called by fs/exec.c: begin_new_exec() once exec_mmap()
// put the old mm; then perf_event_comm() and each perf_event_mmap() of
// load_elf_binary()), in the fragments sched/footprint_exec.go annotates
// the rest of (the syscall's entry, "syscall_enter_from_user_mode", and
// the records' "perf_output_put_handle:nest-zero", whose caller is the
// exec: commCallerAudited, mmapCallerAudited):
//
//   - exec_mmap()'s mmput() of the old mm as perf knows it (mmap_exec.go):
//     a task that never mapped a perf buffer, and whose mm no thread shares
//     (ShareMM makes the owner's mm first), has none: nothing to put. One
//     that has is marked (exit_mmap() closing its perf VMAs, or a sharer's
//     mm_users).
//   - perf_event_exec(): current->perf_event_ctxp read; no context, nothing
//     more. A context with events: perf_event_enable_on_exec() takes its
//     step point at once (after local_irq_save()), so the fragment ends
//     there (the one that starts there is not declared). A context with
//     none (perf_event_remove_on_exec() takes ctx->mutex) is marked.
//   - perf_event_mmap()'s perf_addr_filters_adjust(): nr_mmap_events read;
//     an executable file mapping then reads current's context, and each
//     event of it whose PMU has address filters takes the filters head's
//     lock (ifh->lock, as perf_event_addr_filters_sync() annotates it); an
//     event with filters set (their ranges, the restart) is marked.

// accessExec annotates perf_event_exec() up to perf_event_enable_on_exec()'s
// step point, and marks the paths above nobody annotated.
func (k *Kernel) accessExec(t *sched.Task) {
	if !k.M.FootprintListening() {
		return
	}
	c := t.CPU()
	if k.mm.mms[t] != nil {
		c.Unaudited("exec_mmap") // fs/exec.c: exec_mmap() -> mmput(old_mm) -> exit_mmap(): the perf VMAs' perf_mmap_close()
	}
	ctx := k.taskCtx[t]
	k.accessTaskCtxp(c, t, ctx, "perf_event_exec") // kernel/events/core.c: perf_event_exec(): ctx = perf_pin_task_context(current)
	if ctx == nil {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "perf_event_enable_on_exec") // kernel/events/core.c: perf_event_enable_on_exec(): if (!ctx->nr_events) goto out
	if len(ctx.events) == 0 {
		c.Unaudited("perf_event_exec") // kernel/events/core.c: perf_event_exec(): perf_pin_task_context(), perf_event_remove_on_exec()'s ctx->mutex
	}
}

// accessAddrFiltersAdjust annotates perf_event_mmap()'s test of
// nr_mmap_events and perf_addr_filters_adjust()'s walk of current's
// context up to an event with address filters set, which is marked.
func (k *Kernel) accessAddrFiltersAdjust(t *sched.Task, v *mm.VMA) {
	c := t.CPU()
	c.AccessMarkedOnly(nrMmapEvents, "nr_mmap_events", cpu.MarkedRead, "perf_event_mmap") // kernel/events/core.c: perf_event_mmap(): if (atomic_read(&nr_mmap_events) == 0) return
	if k.nrMmapEvents == 0 || v.Flags&mm.VM_EXEC == 0 || v.File == nil {
		return
	}
	ctx := k.taskCtx[t]
	k.accessTaskCtxp(c, t, ctx, "perf_addr_filters_adjust") // kernel/events/core.c: perf_addr_filters_adjust(): ctx = rcu_dereference(current->perf_event_ctxp)
	if ctx == nil || ctx.dead {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "perf_addr_filters_adjust") // kernel/events/core.c: perf_addr_filters_adjust(): list_for_each_entry_rcu(event, &ctx->event_list, ...)
	for _, e := range ctx.events {
		if !hasAddrFilter(e) {
			continue // __perf_addr_filters_adjust(): if (!has_addr_filter(event)) return
		}
		ifh := e
		if e.parent != nil {
			ifh = e.parent // perf_event_addr_filters(): the parent's
		}
		c.AccessMarkedOnly(ifh, "ifh->lock", cpu.MarkedWrite, "__perf_addr_filters_adjust") // kernel/events/core.c: __perf_addr_filters_adjust(): raw_spin_lock_irqsave(&ifh->lock, flags); list_for_each_entry(filter, &ifh->list, entry)
		if len(e.addrFilters().list) > 0 {
			c.Unaudited("perf_addr_filters_adjust") // kernel/events/core.c: __perf_addr_filters_adjust(): a filter's range moved, event->addr_filters_gen++, perf_event_stop()
			return
		}
	}
}
