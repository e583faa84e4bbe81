package pmu

import (
	"slices"

	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/sched"
)

// The footprint of perf's part of do_exit() (sched/footprint_exit.go
// annotates the rest): each hook annotates what it will access before it
// runs (sched.AnnotatedExitHook, AnnotatedExitMMHook, AnnotatedFileHook),
// or says its path is not annotated, which do_exit() marks.
//
//   - perf_event_exit_task(): the owner list walked under
//     perf_event_mutex (the model keeps no owner to clear: the list
//     written), current->perf_event_ctxp read. A live context: perf_pin_task_context()
//     (ctx->lock, the refcount and pin_count), then
//     perf_event_exit_task_context()'s ctx->mutex (a take that sleeps is
//     marked) and ctx->lock, up to its step point
//     "perf_event_exit_task_context": the fragments from there on are not
//     declared. No live context: perf_event_task()'s EXIT to the CPU
//     context's side-band events (perf_iterate_sb() and the records
//     annotate themselves; a record written marks its return).
//   - "perf_event_exit_task_context" (declared complete): ctx->mutex and
//     ctx->lock held, ctx->task TOMBSTONE'd; a context active on this CPU
//     is scheduled out (ctx_sched_out(): its own step point; the fragment
//     that returns from it runs what follows, annotated the same way:
//     accessExitSchedOutReturn); else task->perf_event_ctxp cleared, the
//     context's and the task's references put (each last marked), the
//     clone's link cut and its parent's reference put, ctx->lock
//     released, up to "perf_event_exit_task_context:tombstone".
//   - "perf_event_exit_task_context:tombstone" (declared complete): the
//     EXIT records to the context's events (perf_event_task(): the walk
//     and the records annotate themselves; a record's return into its
//     caller is marked by the side band), then perf_event_exit_event() of
//     each event: an original's state EXIT and perf_event_wakeup() (its
//     buffer's event list and their pollers; a poller woken and a SIGIO
//     sent are marked); an inherited event's is marked. Then ctx->mutex
//     released (a waiter woken marked), the pin's put_ctx() (the last, and
//     a wake_up_var() that wakes someone, marked), perf_event_task()'s
//     EXIT to the CPU context's side band, and the return into do_exit():
//     the later exit hooks and the rest (sched/footprint_exit.go). From
//     fork's failure path (perf_event_free_task()) it is marked.
//   - exit_signals()'s PF_EXITING as the deferred unwind keeps it
//     (deferredExiting), and the oracle's note of the task's user frames
//     at exit (deferredExitNote: the task's own).
//   - exit_mm()'s mmput() as perf knows the mm (mmap_exec.go): no perf
//     mapping ever, nothing; else current->mm cleared, mm_users dropped, the
//     other users' states read (the model's count); the last user of an mm
//     with perf mappings runs exit_mmap(): mmap_lock taken, the VMAs
//     detached, the first perf_mmap_close() up to its first step point.
//   - exit_files()'s fput() of a perf file (f_count annotated by sched):
//     the last reference queues ____fput (task_work_add(), annotated by
//     sched); its release runs as task work ("task_work_run:____fput").

func init() {
	cpu.DeclareComplete("perf_event_exit_task_context", "perf_event_exit_task_context:tombstone")
}

// accessExitTaskContext annotates perf_event_exit_task_context() from its
// step point (ctx->mutex and ctx->lock held) up to the next: the
// scheduling out of a context active here (ctx_sched_out()'s step point
// ends it), or the context detached from the task and its references put.
// The TOMBSTONE write is an Access of its own (inherit.go).
// kernel/events/core.c: perf_event_exit_task_context()
func (k *Kernel) accessExitTaskContext(c *cpu.CPU, ctx *Context, exit bool) {
	if !k.M.FootprintListening() {
		return
	}
	if exit {
		k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "task_ctx_sched_out") // kernel/events/core.c: task_ctx_sched_out(): if (cpuctx->task_ctx != ctx) return
		if k.cpuCtx[c.ID].taskCtx == ctx {
			return // ctx_sched_out(): its is_active read (annotated), then its step point or its return (accessExitSchedOutReturn)
		}
	}
	k.accessExitDetach(c, ctx)
}

// accessExitSchedOutReturn annotates perf_event_exit_task_context() after
// task_ctx_sched_out() of a context that was active here: the fragment
// that returns from ctx_sched_out() (its own step point, or the last
// event_sched_out()'s) runs the detach, as the inactive path does.
// kernel/events/core.c: perf_event_exit_task_context(): task_ctx_sched_out(); then the rest under ctx->lock
func (k *Kernel) accessExitSchedOutReturn(c *cpu.CPU, ctx *Context) {
	if k.M.FootprintListening() {
		k.accessExitDetach(c, ctx)
	}
}

// accessExitDetach annotates perf_event_exit_task_context()'s detach of
// ctx from its task under ctx->lock: task->perf_event_ctxp cleared, the
// context's and the task's references put (each last one marked), the
// clone's link cut (ctxUnlock annotates the unlock; the put of the
// clone's parent comes after the irq restore, where an interrupt may have
// split the fragment: perfEventExitTaskContext annotates it there).
// kernel/events/core.c: perf_event_exit_task_context()
func (k *Kernel) accessExitDetach(c *cpu.CPU, ctx *Context) {
	if ctx.task != nil {
		c.AccessMarkedOnly(ctx.task, "task->perf_event_ctxp", cpu.MarkedWrite, "perf_event_exit_task_context") // kernel/events/core.c: perf_event_exit_task_context(): RCU_INIT_POINTER(task->perf_event_ctxp, NULL)
	}
	c.AccessMarkedOnly(ctx, "ctx->refcount", cpu.MarkedWrite, "put_ctx") // kernel/events/core.c: perf_event_exit_task_context(): put_ctx(ctx): "cannot be last"
	if ctx.life.refcount <= 1 {
		c.Unaudited("put_ctx")
	}
	if ctx.life.taskRef && k.lifeOn() {
		c.AccessMarkedOnly(taskUsageKey{k, ctx.task}, "task->usage", cpu.MarkedWrite, "put_task_struct") // kernel/events/core.c: perf_event_exit_task_context(): put_task_struct(task): the context's reference ("cannot be last")
		if l := k.taskRefs[ctx.task]; l == nil || l.refs <= 1 {
			c.Unaudited("__put_task_struct")
		}
	}
	k.accessUnclone(c, ctx, nil) // kernel/events/core.c: perf_event_exit_task_context(): clone_ctx = unclone_ctx(ctx); put_ctx(clone_ctx) after the unlock: accessPutClone there
}

// AccessTaskExit implements sched.AnnotatedExitHook for perf_event_exit_task().
// kernel/events/core.c: perf_event_exit_task()
func (k *Kernel) AccessTaskExit(t *sched.Task) bool {
	c := t.CPU()
	c.AccessMarkedOnly(ownerListKey{t}, "current->perf_event_list", cpu.MarkedWrite, "perf_event_exit_task") // kernel/events/core.c: perf_event_exit_task(): mutex_lock(&task->perf_event_mutex); list_del_init(&event->owner_entry); smp_store_release(&event->owner, NULL)
	ctx := k.taskCtx[t]
	k.accessTaskCtxp(c, t, ctx, "perf_event_exit_task_context") // kernel/events/core.c: perf_pin_task_context(): ctx = perf_lock_task_context(task, &flags)
	if ctx == nil || ctx.dead {
		return true // perf_event_task(): perf_iterate_sb() annotates itself
	}
	// perf_pin_task_context(): ctx->lock (ctxLock annotates it),
	// refcount_inc_not_zero(&ctx->refcount), ++ctx->pin_count (an Access)
	c.AccessMarkedOnly(ctx, "ctx->refcount", cpu.MarkedWrite, "perf_pin_task_context") // kernel/events/core.c: perf_lock_task_context(): refcount_inc_not_zero(&ctx->refcount)
	// perf_event_exit_task_context(): mutex_lock(&ctx->mutex), then
	// ctx->lock (annotated by ctxLock) and the step point
	if k.ctxMutexes[ctx] == nil {
		c.AccessMarkedOnly(ctxMutexMemoKey{k, ctx}, "sync", cpu.MarkedWrite, "perf_event_exit_task_context") // the model's ctx->mutex, made at the context's first take
	}
	mu := k.ctxMutex(ctx)
	accessMutexLock(c, t, mu, mutexKey{ctx, "ctx->mutex", mu}, "mutex_lock") // kernel/events/core.c: perf_event_exit_task_context(): mutex_lock(&ctx->mutex)
	return true
}

// AccessTaskExit implements sched.AnnotatedExitHook: exit_signals()'s
// PF_EXITING, which the deferred unwind's request tests (its model keeps
// it per task).
func (x deferredExiting) AccessTaskExit(t *sched.Task) bool {
	t.CPU().AccessMarkedOnly(t, "task->flags", cpu.PlainWrite, "exit_signals") // kernel/signal.c: exit_signals(): tsk->flags |= PF_EXITING, which unwind_deferred_request() tests
	x.k.defcc.d.AccessInfo(t.CPU(), t, cpu.PlainWrite, "exit_signals")         // the model's copy of it, in the unwind's table
	return true
}

// AccessTaskExit implements sched.AnnotatedExitHook: the oracle's note is
// the task's own (its last entry's cookie and user frames).
func (n deferredExitNote) AccessTaskExit(t *sched.Task) bool {
	if n.k.defcc.stats.samples > 0 {
		t.CPU().AccessMarkedOnly(t, "task->unwind_info", cpu.MarkedRead, "unwind_deferred_task_exit")   // include/linux/unwind_deferred.h: the task's cookie and cache, as the oracle notes them
		t.CPU().AccessMarkedOnly(deferredLogKey(n), "log.Returns", cpu.MarkedWrite, "deferredExitNote") // callchain_deferred.go: the note appended to the oracle's log, which every task's notes share
	}
	return true
}

// deferredLogKey is the deferred-callchain oracle's log of returns to user
// and exits (the simulator's, DeferredLog): the notes of every task go to
// it, in order.
type deferredLogKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer: a run has one log.
func (deferredLogKey) FootprintKey() string { return "perf deferred callchains: the oracle's log" }

// FootprintExtent is the memory the key names (explore's write audit).
func (d deferredLogKey) FootprintExtent() []any { return []any{&d.k.defcc.log.Returns} }

// AccessTaskExitMM implements sched.AnnotatedExitMMHook for exit_mm()'s
// mmput() as perf knows the mm (TaskExitMM). The last user of an mm
// with perf mappings runs exit_mmap(): mmap_write_lock(), the VMAs
// detached (the model's maps of the mm and each mapping's pieces), then
// remove_vma() of the first live one, whose perf_mmap_close() annotates
// itself up to its first step point; "exit_mmap:cond_resched", after
// each close, is not declared. With no live mapping left (perf unmapped
// them all), the unlock and the return into exit_mm().
// kernel/exit.c: exit_mm() -> kernel/fork.c: mmput() -> mm/mmap.c: exit_mmap()
func (k *Kernel) AccessTaskExitMM(t *sched.Task) bool {
	old := k.mm.mms[t]
	if old == nil {
		return true // it never mapped a perf buffer: nothing of perf's
	}
	c := t.CPU()
	c.AccessMarkedOnly(taskMMKey{k, t}, "task->mm", cpu.MarkedWrite, "exit_mm") // kernel/exit.c: exit_mm(): current->mm = NULL
	if !k.accessMMUsers(c, t, old) {
		return true
	}
	if len(old.maps) == 0 {
		c.AccessMarkedOnly(mmRef{old}, "mm->mm_mt", cpu.MarkedRead, "exit_mmap") // mm/mmap.c: exit_mmap(): the VMAs walked
		return true
	}
	k.accessDownWrite(t, old)                                                 // mm/mmap.c: exit_mmap(): mmap_write_lock(mm)
	c.AccessMarkedOnly(mmRef{old}, "mm->mm_mt", cpu.MarkedWrite, "exit_mmap") // mm/mmap.c: exit_mmap(): vma_mark_detached() of each VMA, the tree destroyed
	for _, m := range old.maps {
		if !m.unmap {
			return true // its perf_mmap_close(): annotated up to its first step point
		}
	}
	// every perf VMA was unmapped already: nothing closed, the lock
	// dropped with no waiter (none can queue before it: no step point
	// since the take, which would have slept, marked, had it found one)
	c.AccessMarkedOnly(mmRef{old}, "mm->mmap_lock", cpu.MarkedWrite, "mmap_write_unlock") // mm/mmap.c: exit_mmap(): mmap_write_unlock(mm)
	c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, "up_write")           // the locks current holds
	return true
}

// accessMMUsers annotates mmput()'s decrement of old's mm_users by t,
// which leaves the mm (exec_mmap() or exit_mm()), and reports whether t
// was its last user. The model keeps the count as the other users'
// states (Kernel.mm.mms: every task that uses old; a dead one no more):
// each read, in TID order (one order in every replay), is the state its
// exit writes.
// kernel/fork.c: mmput(): if (atomic_dec_and_test(&mm->mm_users)) __mmput(mm)
func (k *Kernel) accessMMUsers(c *cpu.CPU, t *sched.Task, old *mmStruct) bool {
	c.AccessMarkedOnly(mmRef{old}, "mm->mm_users", cpu.MarkedWrite, "mmput") // kernel/fork.c: mmput(): atomic_dec_and_test(&mm->mm_users)
	var users []*sched.Task
	for u, m := range k.mm.mms {
		if u != t && m == old {
			users = append(users, u)
		}
	}
	slices.SortFunc(users, func(a, b *sched.Task) int { return a.TID - b.TID })
	last := true
	for _, u := range users {
		c.AccessMarkedOnly(u, "p->__state", cpu.MarkedRead, "mmput") // the model's mm_users: the other users' states
		if u.State != sched.Dead {
			last = false
		}
	}
	return last
}

// AccessFput implements sched.AnnotatedFileHook: perf's fput() of its
// file (Fput) drops the reference sched annotates (file->f_count) and
// the last queues ____fput, whose task_work_add() sched annotates; the
// task is not past exit_task_work() (do_exit()'s exit_files()).
// fs/file_table.c: fput()
func (k *Kernel) AccessFput(t *sched.Task, f mm.AnonFile) bool {
	e, ok := f.(*Event)
	return !ok || e.k != k || t.State != sched.Dead
}

// accessExitTombstone annotates what "perf_event_exit_task_context:tombstone"
// runs before the events' own exits: nothing but the EXIT records'
// walk (perf_event_task() over the context: perf_iterate_sb_minimal()
// and each record annotate themselves; a record written ends the
// fragment at its step point). From fork's failure path (exit false) the
// code returns into perf_event_free_task() and copy_process()'s cleanup,
// which nobody annotated: marked.
// kernel/events/core.c: perf_event_exit_task_context(): perf_event_task(task, ctx, 0) when exiting
func (k *Kernel) accessExitTombstone(c *cpu.CPU, exit bool) {
	if k.M.FootprintListening() && !exit {
		c.Unaudited("perf_event_free_task") // kernel/events/core.c: perf_event_free_task() after perf_event_exit_task_context(task, false)
	}
}

// accessExitEvent annotates perf_event_exit_event() of e, one event of
// the tombstoned context: an original event's state EXIT (setState
// annotates it) and perf_event_wakeup() of it (accessEventWakeup). An
// inherited event's (the parent's child_mutex, sync_child_event(), its
// removal, put_event() of the child and the parent's wakeup) is marked.
// kernel/events/core.c: perf_event_exit_event()
func (k *Kernel) accessExitEvent(c *cpu.CPU, e *Event) {
	if !k.M.FootprintListening() {
		return
	}
	if e.parent != nil {
		c.Unaudited("perf_event_exit_event (an inherited event)")
		return
	}
	k.accessEventWakeup(c, e)
}

// accessEventWakeup annotates perf_event_wakeup() of e: ring_buffer_wakeup()'s
// walk of the buffer's events (or e alone, without a buffer) and the
// wake_up_all() of each one's pollers (a poller is woken by sched's
// annotated try_to_wake_up(): perfEventWakeupFrom), then the pending
// SIGIO (event->pending_kill read and cleared; one sent, kill_fasync(),
// is marked), which perfEventWakeupFrom annotates again after the
// wake-ups (accessKillFasync), since a wake-up's step point may have
// begun a fragment there.
// kernel/events/core.c: perf_event_wakeup() -> ring_buffer_wakeup(), kill_fasync()
func (k *Kernel) accessEventWakeup(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "ring_buffer_wakeup") // kernel/events/core.c: ring_buffer_wakeup(): rb = rcu_dereference(event->rb)
	if bs := k.bufs[e.rb]; e.rb != nil && bs != nil {
		c.AccessMarkedOnly(bufKey{e.rb, bs}, "rb->event_list", cpu.MarkedRead, "ring_buffer_wakeup") // kernel/events/core.c: ring_buffer_wakeup(): list_for_each_entry_rcu(event, &rb->event_list, rb_entry)
		for _, x := range bs.eventList {
			c.AccessMarkedOnly(x, "event->waitq", cpu.MarkedRead, "wake_up_all") // kernel/events/core.c: ring_buffer_wakeup(): wake_up_all(&event->waitq)
		}
	} else {
		c.AccessMarkedOnly(e, "event->waitq", cpu.MarkedRead, "wake_up_all") // the model's: no buffer, e's own pollers
	}
	k.accessKillFasync(c, e)
}

// accessKillFasync annotates perf_event_wakeup()'s pending SIGIO:
// event->pending_kill read and cleared, the fasync owner read; a signal
// sent (kill_fasync() -> send_sigio()) is marked.
// kernel/events/core.c: perf_event_wakeup(): if (event->pending_kill) { kill_fasync(perf_event_fasync(event), SIGIO, event->pending_kill); event->pending_kill = 0; }
func (k *Kernel) accessKillFasync(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->pending_kill", cpu.PlainWrite, "perf_event_wakeup") // kernel/events/core.c: perf_event_wakeup(): if (event->pending_kill) { kill_fasync(...); event->pending_kill = 0; }
	if e.pendingKill != 0 {
		c.AccessMarkedOnly(e, "event->fasync", cpu.PlainRead, "kill_fasync") // kernel/events/core.c: perf_event_fasync(event)
		if f := e.fasyncFile(); f != nil && f.owner != 0 {
			c.Unaudited("kill_fasync") // fs/fcntl.c: kill_fasync() -> send_sigio(): the owner's signal
		}
	}
}

// exitCtxMutexUnlock is perf_event_exit_task_context()'s mutex_unlock() of
// ctx->mutex, after the events' exits, annotated (a waiter woken is
// marked); n is the mutex's count of contended takes once taken.
// kernel/events/core.c: perf_event_exit_task_context(): mutex_unlock(&ctx->mutex)
func (k *Kernel) exitCtxMutexUnlock(t *sched.Task, ctx *Context, mu *sched.Mutex, n int) {
	if k.M.FootprintListening() {
		accessMutexUnlock(t.CPU(), t, mu, mutexKey{ctx, "ctx->mutex", mu}, "mutex_unlock", n)
	}
	k.S.MutexUnlock(t, mu)
}

// accessExitPinPut annotates perf_event_exit_task_context()'s last
// put_ctx(): the pin's (perf_pin_task_context()) reference; the last one
// (which frees the context) is marked, and so is a wake_up_var() that
// wakes perf_event_free_task()'s waiter.
// kernel/events/core.c: perf_event_exit_task_context(): put_ctx(ctx)
func (k *Kernel) accessExitPinPut(c *cpu.CPU, ctx *Context) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->refcount", cpu.MarkedWrite, "put_ctx") // kernel/events/core.c: put_ctx(): refcount_dec_and_test(&ctx->refcount)
	if ctx.life.refcount <= 1 {
		c.Unaudited("put_ctx")
	} else if ctx.life.wq.Waiters() > 0 {
		c.Unaudited("wake_up_var") // kernel/events/core.c: put_ctx(): if (ctx->task == TASK_TOMBSTONE) wake_up_var(&ctx->refcount)
	}
}
