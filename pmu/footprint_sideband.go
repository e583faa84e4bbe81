package pmu

import (
	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/sched"
)

// The footprint of the side-band records' callers
// (kernel/events/core.c: perf_iterate_sb(), perf_iterate_sb_cpu(),
// perf_iterate_ctx() and the perf_event_*_output() functions they call),
// for the fragment that starts at "perf_output_put_handle:nest-zero" (or
// at the step before a begin that found no room) after one record and
// returns through rb.PerfOutputSidebandAudited (rb does not mark that
// return) into:
//
//   - the rest of the walk: the event list of the CPU's context and of
//     current's (task->perf_event_ctxp, ctx->task), each event's state and
//     filter (event_filter_match(): its CPU; a cgroup event's match is
//     marked), the record's match (attr fields: fixed once the event is
//     published), event->rb of the event the record goes to, and the
//     sample_id (perf_event_header__init_id(): current's regs), then the
//     next record's first step point;
//   - after the walk, the caller. Annotated: prctl(PR_SET_NAME)'s
//     set_task_comm() (the model's prctl returns 0 after it), mmap(2)'s
//     perf_event_mmap() (the model's mmap returns the VMA's start), and
//     the context switch's perf_event_switch() (perf_event_task_sched_out()
//     and perf_event_task_sched_in() go on into code footprint_sched.go
//     annotates), execve(2)'s COMM and MMAPs (begin_new_exec(),
//     load_elf_binary(): sched/footprint_exec.go, footprint_exec.go).
//     Each other caller is marked where the walk returns into
//     it (sidebandReturn): mprotect's and brk's MMAP, FORK and EXIT, the
//     switch into the idle task, the cgroup and throttle records. (The
//     deferred callchain's own walk, perfIterateSb, and the READ and AUX
//     records still go through rb.PerfOutputSideband: rb marks their
//     return.)
//
// The walk itself runs before the first record too, in the caller's
// fragment: annotated the same way there. So the context switch's
// perf_event_switch() is no longer marked where it starts
// (footprint_sched.go's perf_event_task_sched_out and _in vouch for it):
// its reads besides the walk are prev's state (the PREEMPT bit) and the
// matched event's ctx->task.

// sbFn is the kernel function of the walk, for the annotations.
const sbFn = "perf_iterate_sb"

// accessSBList annotates the walk's read of ctx's event list (the
// per-CPU pmu_sb_events list in the kernel, the context's events in the
// model), which list_add_event() and list_del_event() write.
func (k *Kernel) accessSBList(c *cpu.CPU, ctx *Context) {
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, sbFn) // core.c: perf_iterate_sb_cpu()/perf_iterate_ctx(): list_for_each_entry_rcu(event, ...)
}

// accessSBMatch annotates the walk's test of one event: its state and
// event_filter_match() (its CPU, fixed at open; a cgroup event's match,
// which reads this CPU's cgroup and the hierarchy, is marked).
func (k *Kernel) accessSBMatch(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, sbFn) // core.c: perf_iterate_ctx(): if (event->state < PERF_EVENT_STATE_INACTIVE) continue
	if e.cgrp != nil {
		c.Unaudited("perf_cgroup_match") // core.c: event_filter_match() -> perf_cgroup_match()
	}
}

// accessSBOutput annotates what a record's output function reads once it
// matched: event->rb of the event it writes to (the parent's for an
// inherited event), and the sample_id's current regs
// (perf_event_header__init_id(): pid, tid; the fake IPs annotate
// themselves). The ids and the attr are fixed once the event is published.
func (k *Kernel) accessSBOutput(c *cpu.CPU, oe *Event) {
	c.AccessMarkedOnly(oe, "event->rb", cpu.MarkedRead, "perf_output_begin") // ring_buffer.c: __perf_output_begin(): rb = rcu_dereference(event->rb)
	k.accessInterruptedRegs(c)                                               // core.c: __perf_event_header__init_id(): perf_event_pid(event, current), perf_event_tid(event, current)
}

// sidebandReturn marks the walk's return into a caller whose code after it
// nobody annotated (caller: its name), when the walk wrote a record (the
// fragment then started in the walk); audited: the caller's code is
// annotated (see the callers above).
func (k *Kernel) sidebandReturn(c *cpu.CPU, wrote, audited bool, caller string) {
	if wrote && !audited && k.M.FootprintListening() {
		c.Unaudited(caller)
	}
}

// laterHook reports whether a syscall hook after k's own in the
// scheduler's list is one is() says (or k is not in the list): its code would run after perf's, in
// the record's fragment.
func (k *Kernel) laterHook(is func(h any) bool) bool {
	seen := false
	for _, h := range k.S.SyscallHooks {
		if seen && is(h) {
			return true
		}
		if h == any(k) {
			seen = true
		}
	}
	return !seen
}

// modelledSyscall reports whether t is in the scheduler's own model of
// the syscall name (no body set in Sched.Syscalls): only those bodies
// (sched's sysModels) call the CommHook and MmapHook.
func (k *Kernel) modelledSyscall(t *sched.Task, name string) bool {
	return t.Syscall == name && k.S.Syscalls[name] == nil
}

// commCallerAudited reports whether perf_event_comm()'s caller is
// annotated from the walk's return to its next step point: prctl's
// PR_SET_NAME (kernel/sys.c: prctl(): set_task_comm(me, comm);
// proc_comm_connector(me) (no model); return 0): in the model, the rest of
// sched.SetComm's loop (no other CommHook after perf's), then the modelled
// body's return value (task_pt_regs(current), annotated by sched's exit).
// And an exec's, execve(2)'s modelled body (begin_new_exec(): the signal
// handlers, the files, the ELF loader's mappings: sched/footprint_exec.go).
func (k *Kernel) commCallerAudited(t *sched.Task, exec bool) bool {
	if exec && !k.modelledSyscall(t, "execve") || !exec && !k.modelledSyscall(t, "prctl") {
		return false
	}
	return !k.laterHook(func(h any) bool { _, ok := h.(sched.CommHook); return ok })
}

// mmapCallerAudited reports whether perf_event_mmap()'s caller is
// annotated: mmap(2)'s (mm/vma.c: __mmap_complete(): perf_event_mmap(vma),
// then the accounting the model has not; in the model, the rest of
// sched's mmapHooks loop (no other MmapHook after perf's) and the modelled
// body's return of the VMA's start, read under mm->mmap_lock), and
// execve(2)'s modelled body (load_elf_binary()'s next mappings, then
// trace_sched_process_exec(): sched/footprint_exec.go). mprotect's (the
// next VMA's addr-filter adjust) and brk's (the heap's name) are not.
func (k *Kernel) mmapCallerAudited(t *sched.Task) bool {
	if !k.modelledSyscall(t, "mmap") && !k.modelledSyscall(t, "execve") {
		return false
	}
	return !k.laterHook(func(h any) bool { _, ok := h.(sched.MmapHook); return ok })
}

// accessMmapVMA annotates perf_event_mmap_event()'s reads of the VMA (its
// range, flags, file and name), which the mm's writers change under
// mmap_lock (held for writing by the caller here).
func (k *Kernel) accessMmapVMA(c *cpu.CPU, m *mm.MM) {
	if m != nil {
		c.AccessMarkedOnly(m, "mm->mmap", cpu.MarkedRead, "perf_event_mmap_event") // core.c: perf_event_mmap_event(): vma->vm_start, vm_end, vm_pgoff, vm_flags, vm_file
	}
}

// accessSwitchMatch annotates perf_event_switch_output()'s test of a
// task event (the model's: a CPU-wide event, with no task, gets the
// CPU-wide record): event->ctx and its task.
func (k *Kernel) accessSwitchMatch(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->ctx", cpu.MarkedRead, "perf_event_switch_output") // core.c: perf_event_switch_output(): if (event->ctx->task)
	if e.ctx != nil {
		c.AccessMarkedOnly(e.ctx, "ctx->task", cpu.MarkedRead, "perf_event_switch_output") // core.c: perf_event_switch_output(): event->ctx->task
	}
}
