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
//     that has writes current->mm and drops mm_users; when it was the last
//     user of an mm that holds perf mappings, exit_mmap() closes them:
//     marked.
//   - perf_event_exec(): current->perf_event_ctxp read; no context, nothing
//     more. A context with events: perf_event_enable_on_exec() takes its
//     step point at once (after local_irq_save()), so the fragment ends
//     there (the one that starts there: footprint_enable_on_exec.go). A context with
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
	if old := k.mm.mms[t]; old != nil {
		k.accessExecMmput(c, t, old)
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

// taskMMKey is current->mm as perf's model keeps it (Kernel.mm.mms), the
// write audit's extent of the table's entry for the task: sched annotates
// the exec's write of the kernel's task->mm on the task itself
// (sched/footprint_exec.go).
type taskMMKey struct {
	k *Kernel
	t *sched.Task
}

// FootprintKey implements cpu.FootprintKeyer.
func (m taskMMKey) FootprintKey() string { return m.t.FootprintKey() + "/mm (the model's table)" }

// String is the key's identity (explore's TestFootprintKeysStable).
func (m taskMMKey) String() string { return m.FootprintKey() }

// FootprintExtent implements the write audit's extent: the table of mms.
func (m taskMMKey) FootprintExtent() []any { return []any{&m.k.mm.mms} }

// accessExecMmput annotates exec_mmap()'s switch from old, the mm perf
// knows t by, and mmput(old): current->mm written, mm_users dropped; when
// t was old's last user and old still holds perf mappings, exit_mmap()
// closes them (perf_mmap_close(), its step points): marked.
func (k *Kernel) accessExecMmput(c *cpu.CPU, t *sched.Task, old *mmStruct) {
	c.AccessMarkedOnly(taskMMKey{k, t}, "task->mm", cpu.MarkedWrite, "exec_mmap") // fs/exec.c: exec_mmap(): tsk->mm = mm
	last := k.accessMMUsers(c, t, old)                                            // footprint_exit.go: mm_users, the other users' states
	if last && len(old.maps) > 0 {
		c.Unaudited("exit_mmap") // mm/mmap.c: exit_mmap(): remove_vma() -> perf_mmap_close() of each perf VMA
		return
	}
	if last {
		c.AccessMarkedOnly(mmRef{old}, "mm->mm_mt", cpu.MarkedRead, "exit_mmap") // mm/mmap.c: exit_mmap(): the VMAs walked: no perf VMA left
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
