package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// The lifetime of a task's perf_event_context (ctx->refcount, a refcount_t;
// the last put_ctx() frees it a grace period later, call_rcu(free_ctx)), and
// the task_struct references perf holds (event->hw.target), in the
// object-lifetime oracle (lifetime.go). CPU contexts are static
// (perf_cpu_context) and never freed: they are not counted.
//
// Who holds a reference on a task context, in today's core.c:
//   - task->perf_event_ctxp: alloc_perf_context()'s refcount_set(1) for a child
//     context made by inherit, or find_get_context()'s get_ctx() when it
//     installs a new one; dropped in perf_event_exit_task_context() ("cannot
//     be last");
//   - each event whose event->ctx it is: find_get_context()'s reference, handed
//     to the event by perf_install_in_context(), or inherit_event()'s
//     get_ctx(child_ctx); dropped by __free_event()'s put_ctx(event->ctx);
//   - a clone's parent: perf_event_init_context()'s get_ctx(child_ctx->parent_ctx),
//     dropped by put_ctx(clone_ctx) after unclone_ctx() or the clone's own free;
//   - passing users: perf_pin_task_context() (perf_event_init_context() on the
//     parent's, perf_event_exit_task_context() on the exiting one's) and
//     perf_event_release_kernel()'s get_ctx() on a child's context while it
//     drops the child_mutex to take ctx->mutex.
//
// perf_event_free_task() (a fork that fails after perf_event_init_task())
// waits in TASK_UNINTERRUPTIBLE until only its own reference is left
// (wait_var_event(&ctx->refcount, refcount_read(&ctx->refcount) == 1)), since
// copy_process() then frees the task no matter its references (without the
// wait, 1cf8dfe8a661's use after free of event->hw.target, which
// put_task_struct() reports); put_ctx() wakes it (wake_up_var()) whenever the
// context is dead. The knob free-task-wait models the missing wake before
// 74751ef5c191.

// freeTaskWaitKnob picks how perf_event_free_task() waits for the events
// perf_event_release_kernel() stole from the failed child.
var freeTaskWaitKnob = sim.KnobSpec{
	Name:   "free-task-wait",
	Values: []string{"today", "pre-74751ef5c191"},
	Help: "perf_event_free_task() (copy_process() failing after perf_event_init_task()): today it waits (wait_var_event, TASK_UNINTERRUPTIBLE) " +
		"until the context's refcount is 1, and every put_ctx() of a dead context wakes it; pre-74751ef5c191: only perf_event_release_kernel()'s " +
		"free of a child it stole wakes it, so when the release took its ctx reference, dropped the child_mutex and found the child gone, its " +
		"put_ctx() leaves the refcount at 1 with nobody woken and the fork hangs in D forever (a hung task)",
	Source: "74751ef5c191 perf/core: Fix missing wakeup when waiting for context reference (Haifeng Xu, v6.10-rc; hung tasks in production, " +
		"Fixes 1cf8dfe8a661); 1cf8dfe8a661 perf/core: Fix race between close() and fork() (Peter Zijlstra, v5.3-rc; syzbot, Fixes 82d94856fa22)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, freeTaskWaitKnob)
	RegisterObservable("ctx.freed", "task contexts freed by their last put_ctx() (call_rcu(free_ctx))",
		func(k *Kernel) int64 { return int64(k.ctxStats.freed) })
	RegisterObservable("fork.perf-free-task", "forks that failed after perf_event_init_task(): perf_event_free_task() ran",
		func(k *Kernel) int64 { return int64(k.ctxStats.freeTask) })
}

// ctxLife is the part of a task context that keeps it alive.
type ctxLife struct {
	refcount   int32    // ctx->refcount
	freeQueued bool     // the last put_ctx() ran: call_rcu(&ctx->rcu_head, free_ctx)
	freedAt    sim.Time // when free_ctx() frees it
	get, put   lifePoint
	wq         sched.WaitQueue // wait_var_event(&ctx->refcount)'s wait queue
	lastPut    lifePoint       // the last put that left others holding it, and whether it woke
	lastWoke   bool
	taskRef    bool // alloc_perf_context()'s get_task_struct() of ctx->task, not put yet
}

// ctxStats counts what the context lifetime did.
type ctxStats struct {
	freed, freeTask uint64
}

// taskFreed is a task copy_process() freed after a failed fork
// (delayed_free_task(), irrespective of its reference count).
type taskFreed struct {
	at lifePoint
}

func (ctx *Context) isTask() bool { return ctx.task != nil }

// ctxUse is KASAN on freed context memory touched in where.
func (k *Kernel) ctxUse(ctx *Context, where string) {
	if ctx.life.freeQueued && k.now() >= ctx.life.freedAt && k.lifeOn() {
		use := k.here(where)
		k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in %s: the perf_event_context of %s freed by free_ctx() at %s, its last reference dropped by %s; used by %s",
			where, ctx.task, ctx.life.freedAt, ctx.life.put, use))
	}
}

// allocCtx is alloc_perf_context(task): refcount 1, and a reference on the task.
// kernel/events/core.c: alloc_perf_context()
func (k *Kernel) allocCtx(t *sched.Task) *Context {
	ctx := &Context{}
	ctx.init(k, t, -1)
	ctx.life.refcount = 1                    // refcount_set(&ctx->refcount, 1)
	k.getTaskStruct(t, "alloc_perf_context") // ctx->task = get_task_struct(task)
	ctx.life.taskRef = true
	if k.lifeOn() {
		k.mark(&ctx.life.get, "alloc_perf_context")
	}
	ctx.keyTID, ctx.keySeq = t.TID, len(k.ctxs) // its stable key (footprint_key.go)
	k.ctxs = append(k.ctxs, ctx)
	return ctx
}

// getCtx is get_ctx(): refcount_inc(&ctx->refcount).
// kernel/events/core.c: get_ctx()
func (k *Kernel) getCtx(ctx *Context, where string) {
	if !ctx.isTask() {
		return
	}
	k.ctxUse(ctx, where)
	if ctx.life.refcount == 0 {
		k.refcountAddOnZero(fmt.Sprintf("the refcount of the perf_event_context of %s", ctx.task), where)
	}
	ctx.life.refcount++
	if k.lifeOn() {
		k.mark(&ctx.life.get, where)
	}
}

// putCtx is put_ctx(): the last reference drops the parent context's and
// frees the context after a grace period; otherwise a dead context's
// waiter (perf_event_free_task()) is woken.
// kernel/events/core.c: put_ctx()
func (k *Kernel) putCtx(ctx *Context, where string) {
	if ctx == nil || !ctx.isTask() {
		return
	}
	k.ctxUse(ctx, where)
	if ctx.life.refcount <= 0 {
		k.refcountUnderflow(fmt.Sprintf("the refcount of the perf_event_context of %s", ctx.task), where, ctx.life.put)
		return
	}
	ctx.life.refcount--
	var p lifePoint
	if k.lifeOn() {
		k.mark(&p, where)
		ctx.life.put = p
	}
	if ctx.life.refcount == 0 {
		if parent := ctx.parentCtx; parent != nil {
			k.putCtx(parent, "put_ctx(ctx->parent_ctx)")
		}
		k.putCtxTask(ctx, "put_ctx")                                         // "if (ctx->task && ctx->task != TASK_TOMBSTONE) put_task_struct(ctx->task);"
		ctx.life.freeQueued, ctx.life.freedAt = true, k.now()+rcuGracePeriod // call_rcu(&ctx->rcu_head, free_ctx)
		k.ctxStats.freed++
		return
	}
	// "smp_mb__after_atomic(); /* pairs with wait_var_event() */
	// if (ctx->task == TASK_TOMBSTONE) wake_up_var(&ctx->refcount);"
	woke := ctx.dead && k.KnobIs(freeTaskWaitKnob.Name, "today")
	ctx.life.lastPut, ctx.life.lastWoke = p, woke
	if woke {
		k.wakeUpVarCtx(ctx)
	}
}

// wakeUpVarCtx is wake_up_var(&ctx->refcount).
func (k *Kernel) wakeUpVarCtx(ctx *Context) { k.S.WakeUpAll(&ctx.life.wq) }

// FreeTask implements sched.ForkCleanupHook: perf_event_free_task() for a
// fork that failed after perf_event_init_task(); then copy_process() frees the
// task.
// kernel/events/core.c: perf_event_free_task()
func (k *Kernel) FreeTask(parent, child *sched.Task) {
	k.perfEventFreeTask(parent, child)
	k.freeTaskStruct(child)
}

// perfEventFreeTask tears the failed child's context down (no EXIT record,
// nothing scheduled), waits for the events others still hold, and drops the
// last reference.
// kernel/events/core.c: perf_event_free_task() -> perf_event_exit_task_context(task, false)
func (k *Kernel) perfEventFreeTask(cur, task *sched.Task) {
	ctx := k.perfPinTaskContext(task) // perf_event_exit_task_context(): ctx = perf_pin_task_context(task)
	if ctx == nil {
		return
	}
	k.ctxStats.freeTask++
	k.perfEventExitTaskContext(cur, task, false)
	// "Wait for all events to drop their context reference." (1cf8dfe8a661:
	// without the wait, copy_process() freed the task while an event the
	// release had stolen still held it: put_task_struct() below reports that.)
	var since sim.Time
	for ctx.life.refcount != 1 {
		cur.Step("perf_event_free_task:wait_var_event")
		if ctx.life.refcount == 1 {
			break
		}
		if since == 0 {
			since = k.now()
		}
		k.S.WaitUninterruptible(cur, &ctx.life.wq, func() string { return k.ctxWaitDesc(ctx) }, since)
	}
	k.putCtx(ctx, "perf_event_free_task") // put_ctx(ctx): the last
}

// perfPinTaskContext is perf_pin_task_context() on the exit paths: a
// reference and "++ctx->pin_count" under ctx->lock, so that the context is
// not swapped to another task (context_equiv()) while it is torn down; it is
// never unpinned (it dies).
// kernel/events/core.c: perf_pin_task_context()
func (k *Kernel) perfPinTaskContext(t *sched.Task) *Context {
	ctx := k.taskCtx[t]
	if ctx == nil || ctx.dead {
		return nil
	}
	c := k.curCPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	k.getCtx(ctx, "perf_pin_task_context")                                 // refcount_inc_not_zero(&ctx->refcount)
	c.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "perf_pin_task_context") // core.c: perf_pin_task_context(): ++ctx->pin_count (under ctx->lock)
	ctx.pinCount++
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	return ctx
}

// ctxWaitDesc is what perf_event_free_task() waits for, as the hung-task
// report says it: the refcount now and the last put that did not wake it.
func (k *Kernel) ctxWaitDesc(ctx *Context) string {
	s := fmt.Sprintf("wait_var_event(&ctx->refcount) in perf_event_free_task(): the context of failed fork %s has refcount %d, waiting for 1", ctx.task, ctx.life.refcount)
	if ctx.life.refcount == 1 && ctx.life.lastPut.where != "" && !ctx.life.lastWoke {
		s += "; it went to 1 at " + ctx.life.lastPut.String() + ", which woke nobody (no wake_up_var())"
	}
	return s
}

// freeTaskStruct is copy_process()'s delayed_free_task(): the task_struct of
// the failed child is freed whatever references remain.
// kernel/fork.c: copy_process() bad_fork_free: delayed_free_task()
func (k *Kernel) freeTaskStruct(t *sched.Task) {
	if !k.lifeOn() {
		return
	}
	if k.freedTasks == nil {
		k.freedTasks = map[*sched.Task]*taskFreed{}
	}
	k.freedTasks[t] = &taskFreed{at: k.here("free_task")}
}

// putTaskStruct is put_task_struct() of a reference perf took
// (get_task_struct() in perf_event_alloc() for event->hw.target): on a task
// freed by a failed fork, a use after free.
// include/linux/sched/task.h: put_task_struct()
func (k *Kernel) putTaskStruct(t *sched.Task, where string) {
	if t == nil || !k.lifeOn() {
		return
	}
	if f := k.freedTasks[t]; f != nil {
		use := k.here(where)
		k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in put_task_struct: the task_struct of %s (a fork that failed) freed by free_task() at %s; its reference dropped by %s",
			t, f.at, use))
	}
	l := k.taskLifeOf(t)
	if l.refs <= 0 {
		// More puts than gets: the task's own reference goes, and it is
		// freed while still in use.
		k.refcountUnderflowReport(fmt.Sprintf("the references perf holds on the task_struct of %s", t), where, l.put)
		return
	}
	l.refs--
	k.mark(&l.put, where)
}

// lifeCheckCtxs is the end check of task contexts: each must hold exactly what
// its holders account for (the task while alive, its events, its clones).
func (k *Kernel) lifeCheckCtxs(bad func(format string, args ...any)) {
	held := map[*Context]int32{}
	for _, e := range k.events {
		if !e.life.freeQueued && e.ctx != nil {
			held[e.ctx]++
		}
	}
	for _, ctx := range k.ctxs {
		if !ctx.life.freeQueued && ctx.parentCtx != nil {
			held[ctx.parentCtx]++
		}
	}
	for _, ctx := range k.ctxs {
		if ctx.life.freeQueued {
			continue
		}
		n := held[ctx]
		if !ctx.dead {
			n++ // task->perf_event_ctxp
		}
		if ctx.life.refcount == n {
			continue
		}
		kind := "unreferenced object (leak)"
		if ctx.life.refcount < n {
			kind = "refcount below its holders"
		}
		bad("%s: the perf_event_context of %s has refcount %d at the end, %d held (events, clones, the task); last reference taken by %s, last dropped by %s",
			kind, ctx.task, ctx.life.refcount, n, ctx.life.get, ctx.life.put)
	}
}

func init() {
	RegisterStepHelp(map[string]string{
		"perf_event_release_kernel:ctx-ref": "kernel/events/core.c: perf_event_release_kernel(): get_ctx() on the first child's context taken and the child_mutex dropped, " +
			"before mutex_lock(&ctx->mutex) (a failing fork's perf_event_free_task() may take the child first)",
		"perf_event_release_kernel:child-detached": "kernel/events/core.c: perf_event_release_kernel(): the child removed from its context and the child_list, both mutexes dropped, " +
			"before put_event(child) frees it (and puts event->hw.target)",
		"perf_event_free_task:wait_var_event": "kernel/events/core.c: perf_event_exit_task_context(task, false) from perf_event_free_task(): the events torn down, " +
			"before wait_var_event(&ctx->refcount, refcount_read(&ctx->refcount) == 1) checks the count",
	})
}

// putCtxTask drops alloc_perf_context()'s reference to ctx->task, if it is
// still held: at the context's exit (TASK_TOMBSTONE) or its last put_ctx().
func (k *Kernel) putCtxTask(ctx *Context, where string) {
	if ctx.life.taskRef {
		ctx.life.taskRef = false
		k.putTaskStruct(ctx.task, where)
	}
}
