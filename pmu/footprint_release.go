package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The footprints of close(2) on a perf fd and of the event's release
// (read.go: Close, fput; core_release.go: perfEventReleaseKernel), declared
// complete from these step points up to the context's next:
//
//   - close(2)'s body (sched.Sched.SyscallAnnotated: the entry's fragment
//     "syscall_enter_from_user_mode" reaches it): fdget()'s lookup of the
//     fd (sched.AccessFdLookup), file_close_fd()'s clear of the table's
//     slot (the table's own key, files#N@tidT), fput()'s decrement of file->f_count; the
//     last one queues ____fput as task work (task_work_add(): the task's
//     task_works and TIF_NOTIFY_RESUME, annotated by sched), then the
//     syscall's exit (sched's).
//   - "task_work_run:____fput": __fput()'s FASYNC check (and the file off
//     the event's fasync list), perf_event_release_kernel()'s read of
//     event->ctx and perf_event_ctx_lock()'s take of ctx->mutex (a take
//     that sleeps is marked) up to "perf_event_release_kernel:ctx-locked";
//     for an event with no context, the tail below.
//   - "perf_event_release_kernel:ctx-locked": the state read, then
//     perf_remove_from_context(): ctx->lock and ctx->is_active, up to
//     "perf_remove_from_context:inactive" or event_function_call() (its
//     look at ctx->task, the cross call: smp_call_function_single()'s
//     step point or, for this CPU, __perf_remove_from_context()'s); an
//     event already revoked goes straight to the tail.
//   - "perf_remove_from_context:inactive": nothing before
//     __perf_remove_from_context()'s step point (every caller's fn starts
//     with it).
//   - The tail, where __perf_remove_from_context() (footprint_remove.go),
//     event_function_call() and smp_call_function_single()'s wait
//     (footprint_funccall.go: csdCall.ret) return into: ctx->lock
//     released, the state DEAD, ctx->mutex released (a waiter woken is
//     marked), child_mutex and the first look at the child list (a child's
//     release is marked: its own ctx->mutex, perf_remove_from_context()
//     of the child, put_event(child)), put_event()'s decrement of the
//     refcount (the last runs _free_event(): accessFreeEvent; its driver
//     callbacks and the parent's put marked), then
//     task_work_run()'s return (sched/footprint_taskwork.go: the next
//     work's step point, or exit_to_user_mode_loop's). A release run at
//     once by fput() (a task past exit_task_work(): delayed_fput()) marks
//     its return into fput()'s caller.
//
// The write audit (explore's TestWriteAuditRelease) checks the writes.
func init() {
	cpu.DeclareComplete("task_work_run:____fput", "perf_event_release_kernel:ctx-locked", "perf_remove_from_context:inactive")
	// The release's remove, when it goes through the cross call, returns
	// from smp_call_function_single()'s wait into the tail above, which
	// reaches the next task work's step point.
	cpu.DeclareCompleteUntil("smp_call_function_single:wait", "task_work_run:____fput")
}

// accessFileClose annotates file_close_fd()'s clear of the fd's slot in
// t's table (and its close-on-exec bit).
// fs/file.c: file_close_fd() -> file_close_fd_locked(): rcu_assign_pointer(fdt->fd[fd], NULL); __put_unused_fd()
func (k *Kernel) accessFileClose(t *sched.Task) {
	if c := k.setupCPU(t); c != nil && t.Files != nil {
		accessFdWrite(c, t.Files, "file_close_fd") // fs/file.c: file_close_fd_locked(): rcu_assign_pointer(fdt->fd[fd], NULL); both keys (footprint_open.go)
	}
}

// accessCloseFput annotates close(2)'s fput() of the file it took out of
// the table: the last reference queues ____fput, whose task_work_add()
// sched annotates (TaskWorkAdd).
func (k *Kernel) accessCloseFput(t *sched.Task, e *Event) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(e, "file->f_count", cpu.MarkedWrite, "fput") // fs/file_table.c: fput(): if (file_ref_put(&file->f_ref))
	}
}

// accessReleaseFasync annotates __fput()'s look at the file's FASYNC flag
// and, set, perf_fasync()'s removal of the file from the event's fasync
// list (which the wakeup's kill_fasync() reads).
// fs/file_table.c: __fput(): if (unlikely(file->f_flags & FASYNC)) file->f_op->fasync(-1, file, 0)
func (k *Kernel) accessReleaseFasync(t *sched.Task, e *Event) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "file->f_flags", cpu.PlainRead, "__fput") // fs/file_table.c: __fput(): if (unlikely(file->f_flags & FASYNC))
	if e.file.async {
		c.AccessMarkedOnly(e, "event->fasync", cpu.MarkedWrite, "fasync_helper") // fs/fcntl.c: fasync_remove_entry(): *fp = fa->fa_next (perf_event_fasync(event))
	}
}

// accessRelease annotates perf_event_release_kernel()'s access of e's
// field.
func (k *Kernel) accessRelease(t *sched.Task, e *Event, field string, op cpu.AccessOp) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(e, field, op, "perf_event_release_kernel")
	}
}

// accessReleaseChildList annotates the release's look at e's child list under
// child_mutex; a child found is released by code nobody annotated here:
// marked.
// kernel/events/core.c: perf_event_release_kernel(): list_for_each_entry(child, &event->child_list, child_list)
func (k *Kernel) accessReleaseChildList(t *sched.Task, e *Event) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->child_list", cpu.MarkedRead, "perf_event_release_kernel") // kernel/events/core.c: perf_event_release_kernel(): list_for_each_entry(child, &event->child_list, child_list)
	if len(e.childList) > 0 {
		c.Unaudited("perf_event_release_kernel's child release") // kernel/events/core.c: perf_event_release_kernel(): get_ctx(), ctx->mutex, perf_remove_from_context(child), put_event(child)
	}
}

// accessPutEvent annotates put_event()'s decrement of e's refcount; the
// last reference frees the event (_free_event(): irq_work_sync(), the
// accounting, the buffer's detach, the driver's destroy, the cgroup, the
// target, the pmu and context references) and puts its parent: marked.
// kernel/events/core.c: put_event(): if (!atomic_long_dec_and_test(&event->refcount)) return
func (k *Kernel) accessPutEvent(t *sched.Task, e *Event) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->refcount", cpu.MarkedWrite, "put_event") // kernel/events/core.c: put_event(): atomic_long_dec_and_test(&event->refcount)
	if e.life.refcount <= 1 && e.parent != nil {
		c.Unaudited("put_event(parent)") // kernel/events/core.c: put_event(): "Matches the refcount bump in inherit_event()"
	}
}

// accessFreeEvent annotates _free_event() of e by t, up to its first step
// point (irq_work_sync()'s spin, ring_buffer_attach()'s): the pending
// irq_works looked at, unaccount_event()'s counts, the counter timer's
// cancel, then __free_event()'s puts: the target task's, the pmu_ctx's
// and the context's (their last ones too: accessFreeEventPuts). The parts
// nobody annotated here are marked where they apply: the old
// perf_pending_task_sync() (pending-task-sync=pre-56799bc03565) with work
// queued, a timer armed on another CPU, a driver's event->destroy(), the
// cgroup's css_put(), the parent context's put.
// A tracepoint's destroy ends the fragment at its step point, after
// event_mutex's take (annotated: footprint_tp_destroy.go).
// kernel/events/core.c: _free_event(), __free_event()
func (k *Kernel) accessFreeEvent(t *sched.Task, e *Event) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->pending_irq", cpu.MarkedRead, "irq_work_sync")         // kernel/irq_work.c: irq_work_sync(&event->pending_irq): irq_work_is_busy()
	c.AccessMarkedOnly(e, "event->pending_disable_irq", cpu.MarkedRead, "irq_work_sync") // kernel/irq_work.c: irq_work_sync(&event->pending_disable_irq)
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedWrite, "_free_event")                // the model's state DEAD once freed
	c.AccessMarkedOnly(e, "event (freed)", cpu.MarkedWrite, "_free_event")               // call_rcu(&event->rcu_head, free_event_rcu): the memory's free queued
	if k.pendingTaskSyncOld() && e.life.pendingWork != 0 {
		c.Unaudited("perf_pending_task_sync")
	}
	k.accessUnaccountEvent(c, e)
	k.accessFreeEventRefs(c, e)
}

// accessFreeEventRefs annotates __free_event()'s callbacks and puts: the
// unannotated callbacks marked, the target's put, the pmu_ctx's and the
// context's.
// kernel/events/core.c: __free_event()
func (k *Kernel) accessFreeEventRefs(c *cpu.CPU, e *Event) {
	markFreeEventCallbacks(c, e)
	k.accessPutTarget(c, e)
	k.accessFreeEventPuts(c, e)
}

// accessUnaccountEvent annotates unaccount_event() of e as the model
// keeps the counts (account.go): the atomic_dec()s of nr_mmap_events and
// nr_cgroup_events, adds as account_event()'s atomic_inc()s are
// (accessEventAlloc); nr_switch_events' is accountSideband's own. The
// readers of nr_mmap_events (perf_event_mmap(), at mmap and exec:
// accessAddrFiltersAdjust) and of nr_cgroup_events (perf_event_cgroup(),
// at a cgroup's mkdir: cgroup.go) read the same keys and fields.
// kernel/events/core.c: unaccount_event()
func (k *Kernel) accessUnaccountEvent(c *cpu.CPU, e *Event) {
	a := &e.Attr
	if e.parent != nil || !(a.ContextSwitch || a.Mmap || a.MmapData || a.Cgroup) {
		return // "if (event->parent) return;"; no count of the model's
	}
	c.AccessMarkedOnly(sidebandCountKey{k}, "nr_*_events", cpu.AtomicAdd, "unaccount_event") // the model's counts
	if a.Mmap || a.MmapData {
		c.AccessMarkedOnly(nrMmapEvents, "nr_mmap_events", cpu.AtomicAdd, "unaccount_event") // kernel/events/core.c: unaccount_event(): atomic_dec(&nr_mmap_events)
	}
	if a.Cgroup {
		c.AccessMarkedOnly(nrCgroupEvents, "nr_cgroup_events", cpu.AtomicAdd, "unaccount_event") // kernel/events/core.c: unaccount_event(): atomic_dec(&nr_cgroup_events)
	}
}

// accessPutTarget annotates __free_event()'s put_task_struct() of the
// event's target: refcount_dec_and_test(&t->usage), as every put of perf's
// (taskUsageKey). The last put of the task_struct (perf's last reference of
// a task already reaped: release_task()'s delayed_put_task_struct() dropped
// the task's own) runs __put_task_struct(): unwind_task_free(),
// cgroup_task_free(), security_task_free(), exit_creds(),
// put_signal_struct(), free_task(). Of that the model keeps nothing but
// the task's end (its deferred unwind info, its cgroup and signal
// accounting end at do_exit() in the model): annotated as the task_struct
// freed.
// kernel/events/core.c: __free_event(): if (event->hw.target) put_task_struct(event->hw.target)
func (k *Kernel) accessPutTarget(c *cpu.CPU, e *Event) {
	if !e.life.targetRef {
		return
	}
	k.accessPutTask(c, e.hw.target)
}

// accessPutTask annotates put_task_struct() of task by perf (see
// accessPutTarget).
// include/linux/sched/task.h: put_task_struct()
func (k *Kernel) accessPutTask(c *cpu.CPU, task *sched.Task) {
	c.AccessMarkedOnly(taskUsageKey{k, task}, "task->usage", cpu.MarkedWrite, "put_task_struct") // include/linux/sched/task.h: put_task_struct(): if (!refcount_dec_and_test(&t->usage)) return
	if l := k.taskRefs[task]; (l == nil || l.refs <= 1) && task.Reaped() {
		c.AccessMarkedOnly(task, "task_struct (freed)", cpu.MarkedWrite, "__put_task_struct") // kernel/fork.c: __put_task_struct() -> free_task()
	}
}

// markFreeEventCallbacks annotates the counter timer's cancel and marks
// the code __free_event() runs that nobody annotated: a driver's
// event->destroy(), the cgroup's detach.
// kernel/events/core.c: __free_event()
func markFreeEventCallbacks(c *cpu.CPU, e *Event) {
	if tm := e.hw.timer; tm != nil {
		// The model's counter timer (the overflow's NMI, the
		// cpu-clock/task-clock hrtimer) cancelled: one armed on another
		// CPU is taken off that CPU's queue, which nobody annotated.
		if armed, _ := tm.Armed(); armed && tm.CPU() != c {
			c.Unaudited("hrtimer_cancel (another CPU's)")
		} else {
			c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "hrtimer_cancel") // kernel/events/core.c: perf_swevent_cancel_hrtimer(): hrtimer_cancel(&hwc->hrtimer), what perf_swevent_hrtimer() tests
		}
	}
	if _, ok := e.pmu.(interface{ Destroy(e *Event) }); ok {
		c.Unaudited("event->destroy")
	}
	if e.cgrp != nil {
		c.Unaudited("perf_detach_cgroup")
	}
}

// markReleaseReturn marks the release's return into fput()'s caller when
// it ran there at once (delayed_fput()): not as task work, not in close(2).
func (k *Kernel) markReleaseReturn(t *sched.Task, via releaseVia) {
	if c := k.setupCPU(t); c != nil && via == releaseDelayed {
		c.Unaudited("__fput's caller") // fs/file_table.c: fput() -> __fput() run by the caller (delayed_fput())
	}
}

// accessInheritOracle annotates the inherit oracle's look at a released
// original's counts (inhAtRelease: no kernel code, but what it reads
// decides an outcome): its count and child_count. Children it once had
// (familyCount walks every event whose parent it is, detached ones too)
// are marked.
func (k *Kernel) accessInheritOracle(t *sched.Task, e *Event) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->count", cpu.MarkedRead, "perf_event_release_kernel")       // the oracle's perf_event_count(event, false)
	c.AccessMarkedOnly(e, "event->child_count", cpu.MarkedRead, "perf_event_release_kernel") // ... + atomic64_read(&event->child_count)
	for _, x := range k.events {
		if x.parent == e {
			c.Unaudited("the inherit oracle's look at the children") // familyCount(): every child's count, detached ones too
			return
		}
	}
}

// accessFreeEventPuts annotates __free_event()'s puts of the event's
// pmu_ctx and task context: each a refcount write; the last pmu_ctx put
// takes the epc off ctx->pmu_ctx_list under ctx->lock and queues its free;
// the context's last (accessPutCtx) frees it. The old put
// (pmu-ctx-serialize=pre-4f64a6c9f6f1, its own step point) is marked.
func (k *Kernel) accessFreeEventPuts(c *cpu.CPU, e *Event) {
	if epc := e.pmuCtx; epc != nil {
		switch {
		case epc.owner == nil || k.pmuCtxSerializeOld() || epc.refcount <= 1 && epc.ctx == nil:
			c.Unaudited("put_pmu_ctx") // the old put (its own step point), or a last one that finds the epc unlinked (its WARN)
		default:
			c.AccessMarkedOnly(epcKey{k, epc.owner, epc.pmu}, "epc->refcount", cpu.MarkedWrite, "put_pmu_ctx") // kernel/events/core.c: put_pmu_ctx(): atomic_dec_and_raw_lock_irqsave(&epc->refcount, &ctx->lock, flags)
			if epc.refcount <= 1 {
				// the last: under ctx->lock (ctxLock annotates it) the epc
				// leaves the context's list, then call_rcu() frees it
				c.AccessMarkedOnly(epc.ctx, "ctx->event_list", cpu.MarkedWrite, "put_pmu_ctx") // kernel/events/core.c: put_pmu_ctx(): list_del_init(&epc->pmu_ctx_entry); epc->ctx = NULL
				if !epc.embedded {
					c.AccessMarkedOnly(epcStatsKey{k}, "the model's epc counts", cpu.AtomicAdd, "put_pmu_ctx") // kernel/events/core.c: put_pmu_ctx(): call_rcu(&epc->rcu_head, free_epc_rcu)
				}
			}
		}
	}
	if ctx := e.ctx; ctx != nil && ctx.isTask() {
		k.accessPutCtx(c, ctx)
	}
}

// accessPutCtx annotates put_ctx() of a task context: the refcount; a put
// that leaves it held wakes perf_event_free_task()'s waiter (marked when
// there is one); the last one reads parent_ctx and task, puts the task
// (accessPutTask) and queues free_ctx(): the context freed. A last put
// that puts a parent context too is marked.
// kernel/events/core.c: put_ctx()
func (k *Kernel) accessPutCtx(c *cpu.CPU, ctx *Context) {
	c.AccessMarkedOnly(ctx, "ctx->refcount", cpu.MarkedWrite, "put_ctx") // kernel/events/core.c: put_ctx(): if (refcount_dec_and_test(&ctx->refcount))
	if ctx.life.refcount > 1 {
		if ctx.life.wq.Waiters() > 0 {
			c.Unaudited("wake_up_var") // kernel/events/core.c: put_ctx(): if (ctx->task == TASK_TOMBSTONE) wake_up_var(&ctx->refcount)
		}
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->parent_ctx", cpu.MarkedRead, "put_ctx") // kernel/events/core.c: put_ctx(): if (ctx->parent_ctx) put_ctx(ctx->parent_ctx)
	c.AccessMarkedOnly(ctx, "ctx->task", cpu.MarkedRead, "put_ctx")       // kernel/events/core.c: put_ctx(): if (ctx->task && ctx->task != TASK_TOMBSTONE) put_task_struct(ctx->task)
	if ctx.parentCtx != nil {
		c.Unaudited("put_ctx(ctx->parent_ctx)")
	}
	if ctx.life.taskRef && k.lifeOn() {
		k.accessPutTask(c, ctx.task)
	}
	c.AccessMarkedOnly(ctx, "ctx (freed)", cpu.MarkedWrite, "put_ctx") // kernel/events/core.c: put_ctx(): call_rcu(&ctx->rcu_head, free_ctx)
	c.AccessMarkedOnly(ctxStatsKey{k}, "the model's context counts", cpu.AtomicAdd, "put_ctx")
}

// ctxStatsKey is the model's counts of contexts made and freed (an
// observable that the frees add to).
type ctxStatsKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (ctxStatsKey) FootprintKey() string { return "perf_event_context counts (the model's)" }

// FootprintExtent implements the write audit's extent.
func (s ctxStatsKey) FootprintExtent() []any { return []any{&s.k.ctxStats} }

// epcStatsKey is the model's counts of perf_event_pmu_contexts made and
// freed.
type epcStatsKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (epcStatsKey) FootprintKey() string { return "perf_event_pmu_context counts (the model's)" }

// FootprintExtent implements the write audit's extent.
func (s epcStatsKey) FootprintExtent() []any { return []any{&s.k.epcStats} }

// accessPutClone annotates put_ctx(clone_ctx): the reference ctx held on
// the context it was a clone of (nil: none), the last one marked.
// kernel/events/core.c: put_ctx(clone_ctx)
func (k *Kernel) accessPutClone(c *cpu.CPU, clone *Context) {
	if clone == nil || !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(clone, "ctx->refcount", cpu.MarkedWrite, "put_ctx") // kernel/events/core.c: put_ctx(clone_ctx): the clone's reference to its parent
	if clone.life.refcount <= 1 {
		c.Unaudited("put_ctx")
	}
}
