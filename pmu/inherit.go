package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// Inheritance: a task that forks (or clones a thread) gives its child copies
// of its inherit events, in a context that is a clone of its own; at exit a
// child's counts are folded back into the events it was cloned from.

// outputEvent is the event whose ring buffer the output of e goes to: an
// inherited event writes to the buffer of the event it was cloned from.
// kernel/events/core.c: __perf_output_begin() "if (event->parent) event = event->parent;"
func (e *Event) outputEvent() *Event {
	if e.parent != nil {
		return e.parent
	}
	return e
}

// Parent returns event->parent: the original event an inherited event was
// cloned from, or nil.
func (e *Event) Parent() *Event { return e.parent }

// Children returns event->child_list: the inherited copies of e still live.
func (e *Event) Children() []*Event { return e.childList }

// ChildCount returns event->child_count: the counts folded back from exited children.
func (e *Event) ChildCount() int64 { return e.childCount }

// hasInheritAndSampleRead is has_inherit_and_sample_read().
func hasInheritAndSampleRead(a *Attr) bool {
	return a.Inherit && a.SampleType&uapi.PERF_SAMPLE_READ != 0
}

// listAddAccount is the accounting of list_add_event(): nr_stat,
// nr_no_switch_fast, ctx->generation++.
// kernel/events/core.c: list_add_event()
func (ctx *Context) listAddAccount(e *Event) {
	if e.Attr.InheritStat {
		ctx.nrStat++
	}
	if hasInheritAndSampleRead(&e.Attr) {
		ctx.nrNoSwitchFast++
	}
	ctx.generation++
}

// listDelAccount is list_del_event()'s.
// kernel/events/core.c: list_del_event()
func (ctx *Context) listDelAccount(e *Event) {
	if e.Attr.InheritStat {
		ctx.nrStat--
	}
	if hasInheritAndSampleRead(&e.Attr) {
		ctx.nrNoSwitchFast--
	}
	ctx.generation++
}

// uncloneCtx makes ctx no clone: parent_ctx = NULL, generation++. Called
// with ctx->lock held wherever a context is modified in a way its clones
// are not (an event opened on it, enable_on_exec, exit).
// kernel/events/core.c: unclone_ctx()
func (ctx *Context) uncloneCtx() *Context {
	p := ctx.parentCtx
	ctx.parentCtx = nil
	ctx.generation++
	return p
}

// IsClone reports whether ctx is a clone (ctx->parent_ctx != NULL).
func (ctx *Context) IsClone() bool { return ctx.parentCtx != nil }

// InitTask implements sched.ForkHook: perf_event_init_task() in
// copy_process(), in the parent's context.
// kernel/events/core.c: perf_event_init_task() -> perf_event_init_context()
func (k *Kernel) InitTask(parent, child *sched.Task, cloneFlags uint64) error {
	parentCtx := k.taskCtx[parent]
	if parentCtx == nil || parentCtx.dead {
		return nil
	}
	c := parent.CPU()
	// perf_pin_task_context(): "If the parent's context is a clone, pin it
	// so it won't get swapped under us."
	f := c.LocalIrqSave()
	k.ctxLock(c, parentCtx)
	k.getCtx(parentCtx, "perf_pin_task_context")                                 // perf_lock_task_context(): refcount_inc_not_zero(&ctx->refcount)
	c.Access(parentCtx, "ctx->pin_count", cpu.PlainRMW, "perf_pin_task_context") // core.c: perf_pin_task_context(): ++ctx->pin_count (under ctx->lock)
	parentCtx.pinCount++
	k.ctxUnlock(c, parentCtx)
	c.LocalIrqRestore(f)
	c.Step("perf_event_init_context:pinned")
	// "Lock the parent list. No need to lock the child - not PID hashed yet
	// and not running, so nobody can access it."
	pmu := k.ctxMutex(parentCtx)
	k.S.MutexLock(parent, pmu)
	inheritedAll := true
	var err error
	// perf_event_groups_for_each(event, &parent_ctx->pinned_groups), then the flexible ones
	for _, g := range append(groupsInTreeOrder(parentCtx.pinned), groupsInTreeOrder(parentCtx.flexible)...) {
		if err = k.inheritTaskGroup(g, parent, parentCtx, child, cloneFlags, &inheritedAll); err != nil {
			break
		}
	}
	c = parent.CPU()
	f = c.LocalIrqSave()
	k.ctxLock(c, parentCtx)
	if childCtx := k.taskCtx[child]; err == nil && childCtx != nil && inheritedAll {
		// "Mark the child context as a clone of the parent context, or of
		// whatever the parent is a clone of."
		if cloned := parentCtx.parentCtx; cloned != nil {
			childCtx.parentCtx, childCtx.parentGen = cloned, parentCtx.parentGen
		} else {
			childCtx.parentCtx, childCtx.parentGen = parentCtx, parentCtx.generation
		}
		k.getCtx(childCtx.parentCtx, "perf_event_init_context") // get_ctx(child_ctx->parent_ctx)
	}
	k.ctxUnlock(c, parentCtx)
	c.LocalIrqRestore(f)
	k.S.MutexUnlock(parent, pmu) // out_unlock: mutex_unlock(&parent_ctx->mutex)
	// perf_unpin_context(parent_ctx)
	f = c.LocalIrqSave()
	k.ctxLock(c, parentCtx)
	c.Access(parentCtx, "ctx->pin_count", cpu.PlainRMW, "perf_unpin_context") // core.c: perf_unpin_context(): --ctx->pin_count (under ctx->lock)
	parentCtx.pinCount--
	k.ctxUnlock(c, parentCtx)
	c.LocalIrqRestore(f)
	k.putCtx(parentCtx, "perf_event_init_context") // put_ctx(parent_ctx): perf_pin_task_context()'s
	if err != nil {
		k.FreeTask(parent, child) // copy_process(): bad_fork_cleanup_perf
	}
	return err
}

// inheritTaskGroup inherits one group if its leader asks for it: inherit, and
// with inherit_thread only into CLONE_THREAD children; with sigtrap not into a
// child whose signal handlers are cleared. Anything not inherited makes the
// child's context no clone (inherited_all = 0).
// kernel/events/core.c: inherit_task_group()
func (k *Kernel) inheritTaskGroup(e *Event, parent *sched.Task, parentCtx *Context, child *sched.Task, cloneFlags uint64, inheritedAll *bool) error {
	const cloneClearSighand = 0x100000000
	if !e.Attr.Inherit || e.Attr.InheritThread && cloneFlags&sched.CLONE_THREAD == 0 ||
		e.Attr.Sigtrap && cloneFlags&cloneClearSighand != 0 {
		*inheritedAll = false
		return nil
	}
	childCtx := k.taskCtx[child]
	if childCtx == nil {
		if k.shouldFail(parent, "alloc_perf_context") {
			return uapi.ENOMEM // "if (!child_ctx) return -ENOMEM;": the fork fails (perf_event_free_task())
		}
		childCtx = k.allocCtx(child) // alloc_perf_context(): child->perf_event_ctxp's reference
		k.taskCtx[child] = childCtx
		k.inh.forks++
	}
	if err := k.inheritGroup(e, parent, parentCtx, child, childCtx); err != nil {
		*inheritedAll = false
		return err
	}
	return nil
}

// inheritGroup inherits a leader and its siblings, as a group; an orphaned
// leader (its fd closed) is skipped and its siblings come out as singletons.
// kernel/events/core.c: inherit_group()
func (k *Kernel) inheritGroup(pe *Event, parent *sched.Task, parentCtx *Context, child *sched.Task, childCtx *Context) error {
	leader, err := k.inheritEvent(pe, parent, parentCtx, child, nil, childCtx)
	if err != nil {
		return err
	}
	for _, sub := range append([]*Event(nil), pe.siblings...) {
		if _, err := k.inheritEvent(sub, parent, parentCtx, child, leader, childCtx); err != nil {
			return err
		}
	}
	return nil
}

// inheritEvent clones one event into the child's context, linked to the
// original event (never to an inherited one: "Instead of creating recursive
// hierarchies of events, we link inherited events back to the original
// parent"), INACTIVE if the event it copies is enabled, else OFF, and on
// the original's child_list under its child_mutex. It returns nil for an
// orphaned original (closed meanwhile).
// kernel/events/core.c: inherit_event()
func (k *Kernel) inheritEvent(pe *Event, parent *sched.Task, parentCtx *Context, child *sched.Task, groupLeader *Event, childCtx *Context) (*Event, error) {
	parentState := pe.state
	if pe.parent != nil {
		pe = pe.parent
	}
	if pe.state <= StateRevoked {
		return nil, nil
	}
	ce, err := k.perfEventAllocInherited(pe, child, groupLeader)
	if err != nil {
		return nil, err
	}
	k.getCtx(childCtx, "inherit_event") // get_ctx(child_ctx): the child event's
	ce.ctx = childCtx
	ce.pmuCtx = k.findGetPMUContext(ce.pmu, childCtx, ce) // child_event->pmu_ctx = find_get_pmu_context(child_event->pmu, child_ctx, child_event)
	if ce.pmuCtx == nil {
		k.freeEvent(parent, ce) // "if (IS_ERR(pmu_ctx)) { free_event(child_event); return ERR_CAST(pmu_ctx); }"
		return nil, uapi.ENOMEM
	}
	k.S.MutexLock(parent, &pe.childMutex)
	parent.Step("inherit_event:child_mutex")
	// is_orphaned_event(), or the original's last reference already gone
	// (atomic_long_inc_not_zero(&parent_event->refcount)): the child holds
	// a reference on its original until it is freed.
	if pe.state == StateDead || !pe.getEvent() {
		k.S.MutexUnlock(parent, &pe.childMutex)
		k.freeEvent(parent, ce)
		return nil, nil
	}
	if parentState >= StateInactive {
		ce.state = StateInactive
	} else {
		ce.state = StateOff
	}
	if pe.Attr.Freq {
		ce.hw.samplePeriod = pe.hw.samplePeriod
		ce.hw.lastPeriod = pe.hw.samplePeriod
		ce.hw.periodLeft = int64(pe.hw.samplePeriod)
	}
	c := parent.CPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, childCtx)
	// The child does not run yet: no interrupt sees its groups.
	childCtx.addEventToCtx(nil, ce)
	ce.attachChild = true // PERF_ATTACH_CHILD
	k.ctxUnlock(c, childCtx)
	c.LocalIrqRestore(f)
	pe.childList = append(pe.childList, ce)
	k.S.MutexUnlock(parent, &pe.childMutex)
	return ce, nil
}

// perfEventAllocInherited is perf_event_alloc() with a parent event: the
// original's attr, CPU and PMU, a new id, the child as hw.target.
// kernel/events/core.c: perf_event_alloc() (parent_event != NULL)
func (k *Kernel) perfEventAllocInherited(pe *Event, child *sched.Task, groupLeader *Event) (*Event, error) {
	if k.shouldFail(k.current(), "perf_event_alloc") { // the parent's fork
		return nil, uapi.ENOMEM // inherit_event(): "if (IS_ERR(child_event)) return child_event;"
	}
	e := k.newEvent(&pe.Attr, pe.cpu, child, groupLeader)
	e.parent = pe
	e.life.refcount = 1 // atomic_long_set(&event->refcount, 1): dropped when the child exits
	// perf_init_event(): "if (event->parent && event->parent->pmu)" the parent's PMU.
	if err := pe.pmu.EventInit(e); err != nil {
		return nil, err
	}
	e.pmu = pe.pmu
	perfEventAllocAux(e)
	k.perfEventAllocAddrFilters(e)
	e.idHeaderSize = rb.IDHeaderSize(e.Attr.SampleType)
	k.accountEvent(e) // counts nothing: e.parent is set
	k.perfEventGetTarget(e)
	k.events = append(k.events, e)
	return e, nil
}

// Forked implements sched.ForkHook: PERF_RECORD_FORK to every event of this
// CPU and of the parent (current) that wants task records.
// kernel/events/core.c: perf_event_fork() -> perf_event_task(task, NULL, 1)
func (k *Kernel) Forked(parent, child *sched.Task, cloneFlags uint64) {
	k.perfEventTask(parent.CPU(), child, parent, nil)
}

// TaskExit implements sched.TaskExitHook: the task's context is torn down
// (its inherited events folded into their originals), then the CPU's events
// hear its EXIT.
// kernel/events/core.c: perf_event_exit_task()
func (k *Kernel) TaskExit(t *sched.Task) {
	ctx := k.perfPinTaskContext(t) // perf_event_exit_task_context(): ctx = perf_pin_task_context(task)
	k.perfEventExitTaskContext(t, t, true)
	if ctx != nil && ctx.dead {
		k.accessExitPinPut(t.CPU(), ctx)              // footprint_exit.go
		k.putCtx(ctx, "perf_event_exit_task_context") // put_ctx(ctx): the pin's
	}
	// "At this point we need to send EXIT events to cpu contexts."
	k.perfEventTask(t.CPU(), t, nil, nil)
}

// perfEventExitTaskContext tears task's context down: in one ctx->lock
// section the events are scheduled out and the context detached from the
// task (TASK_TOMBSTONE) and uncloned; then the EXIT record goes to the
// context's own events; then each event leaves (perf_event_exit_event()).
// From fork's failure path (exit false) nothing was scheduled and no EXIT
// is written; cur is the task running this code (the exiting task, or the
// parent of a failed fork).
// kernel/events/core.c: perf_event_exit_task_context()
func (k *Kernel) perfEventExitTaskContext(cur, task *sched.Task, exit bool) {
	ctx := k.taskCtx[task]
	if ctx == nil || ctx.dead {
		return
	}
	// "we hold ctx::mutex over the entire thing": a perf_event_open() on the
	// task installs before the teardown or finds TASK_TOMBSTONE after it
	mu := k.ctxMutex(ctx)
	k.S.MutexLock(cur, mu)
	defer k.exitCtxMutexUnlock(cur, ctx, mu, mu.Contended) // footprint_exit.go
	c := cur.CPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	c.Step("perf_event_exit_task_context")
	k.accessExitTaskContext(c, ctx, exit)                                       // footprint_exit.go
	c.Access(ctx, "ctx->task", cpu.MarkedWrite, "perf_event_exit_task_context") // core.c: perf_event_exit_task_context(): WRITE_ONCE(ctx->task, TASK_TOMBSTONE)
	if exit && k.cpuCtx[c.ID].taskCtx == ctx {
		k.ctxSchedOut(c, ctx, EVENT_ALL)   // task_ctx_sched_out()
		k.accessExitSchedOutReturn(c, ctx) // footprint_exit.go
	}
	ctx.dead = true                                   // RCU_INIT_POINTER(task->perf_event_ctxp, NULL); ctx->task = TASK_TOMBSTONE
	k.putCtx(ctx, "perf_event_exit_task_context")     // put_ctx(ctx): task->perf_event_ctxp's ("cannot be last")
	k.putCtxTask(ctx, "perf_event_exit_task_context") // WRITE_ONCE(ctx->task, TASK_TOMBSTONE); put_task_struct(task) ("cannot be last")
	clone := ctx.uncloneCtx()
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	k.accessPutClone(cur.CPU(), clone)              // footprint_release.go
	k.putCtx(clone, "perf_event_exit_task_context") // put_ctx(clone_ctx)
	cur.Step("perf_event_exit_task_context:tombstone")
	k.accessExitTombstone(cur.CPU(), exit) // footprint_exit.go
	// "Report the task dead after unscheduling the events so that we won't
	// get any samples after PERF_RECORD_EXIT."
	if exit {
		k.perfEventTaskExit(cur.CPU(), task, ctx)
	}
	var target *sched.Task
	if exit {
		target = task
	}
	for _, e := range append([]*Event(nil), ctx.events...) {
		k.accessExitEvent(cur.CPU(), e) // footprint_exit.go
		k.perfEventExitEvent(cur, e, ctx, target)
	}
}

// perfEventExitEvent takes one event of a dead context out. An inherited
// event: under the original's child_mutex its counts are folded into the
// original (sync_child_event) and it leaves the context, its group and the
// child_list together (DETACH_GROUP|DETACH_CHILD|DETACH_EXIT), so a reader
// iterating the child_list sees it either listed or folded, never both;
// then the original's pollers are kicked and it is freed. An original event
// stays for read() in the EXIT state and wakes its pollers ("Parent events
// are governed by their filedesc, retain them.").
// kernel/events/core.c: perf_event_exit_event()
func (k *Kernel) perfEventExitEvent(cur *sched.Task, e *Event, ctx *Context, task *sched.Task) {
	pe := e.parent
	if pe == nil {
		e.setState(StateExit)
		k.perfEventWakeupFrom(e, true) // its pollers woken by the annotated try_to_wake_up() (footprint_exit.go)
		return
	}
	if k.KnobIs("exit-event", "pre-ef54c1a476ae") {
		k.perfEventExitEventPreRework(cur, e, ctx, task)
		return
	}
	k.S.MutexLock(cur, &pe.childMutex)
	attached := e.attachChild
	preSync := k.KnobIs("sync-child-event", "pre-c418d8b4d7a4")
	syncAfter := k.KnobIs("sync-child-event", "sync-after-remove")
	if attached && !preSync && !syncAfter {
		k.syncChildEvent(cur, e, task)
	}
	cur.Step("perf_event_exit_event:synced")
	k.removeInheritedFromContext(cur.CPU(), e, ctx)
	switch {
	case attached && preSync:
		// perf_child_detach() -> sync_child_event(event): task is
		// ctx->task, TASK_TOMBSTONE by now: no PERF_RECORD_READ
		k.syncChildEvent(cur, e, nil)
	case attached && syncAfter:
		k.syncChildEvent(cur, e, task) // the fix candidate (knob sync-child-event)
	}
	k.S.MutexUnlock(cur, &pe.childMutex)
	if attached {
		k.perfEventWakeup(pe)  // "Kick perf_poll() for is_event_hup();"
		k.releaseChild(cur, e) // free the child, then put_event(parent_event)
	}
}

// perfEventExitEventPreRework is perf_event_exit_event() before
// ef54c1a476ae ("perf: Rework perf_event_exit_event()", v5.13): the event
// left its group and context under ctx->lock, then sync_child_event() added
// its counts to the original without the child_mutex, and only then took the
// child_mutex to unlink it from the child_list. A read() of the original
// between the two (it holds the child_mutex and walks the child_list) counts
// the child twice: in child_count and as a listed child.
func (k *Kernel) perfEventExitEventPreRework(cur *sched.Task, e *Event, ctx *Context, task *sched.Task) {
	pe := e.parent
	c := cur.CPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	sibling := !e.isLeader()
	ctx.listDelEvent(c, e)                                     // perf_group_detach(); list_del_event()
	markGroupDetachReturn(c, sibling, "perf_event_exit_event") // footprint_group.go
	e.setState(StateExit)
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	k.syncChildEvent(cur, e, task)
	cur.Step("sync_child_event:folded")
	k.S.MutexLock(cur, &pe.childMutex)
	e.attachChild = false
	pe.childList = remove(pe.childList, e) // list_del_init(&child_event->child_list)
	k.S.MutexUnlock(cur, &pe.childMutex)
	k.perfEventWakeup(pe)
	k.putEvent(cur, e)
}

// syncChildEvent folds an exiting child's count and times into the
// original: child_count, child_total_time_enabled/running. With
// inherit_stat the child's value goes out first as PERF_RECORD_READ.
// kernel/events/core.c: sync_child_event()
func (k *Kernel) syncChildEvent(cur *sched.Task, e *Event, task *sched.Task) {
	pe := e.parent
	if e.Attr.InheritStat && task != nil {
		k.perfEventReadRecord(cur.CPU(), e, task)
	}
	childVal := e.count + e.childCount // perf_event_count(child_event, false)
	pe.childCount += childVal
	pe.childTotalTimeEnabled += e.totalTimeEnabled
	pe.childTotalTimeRunning += e.totalTimeRunning
	k.inh.childSyncs++
}

// removeInheritedFromContext is perf_remove_from_context(event,
// DETACH_EXIT|DETACH_GROUP|DETACH_CHILD) on a dead (inactive) context: done
// right here under ctx->lock.
// kernel/events/core.c: perf_remove_from_context() -> __perf_remove_from_context()
func (k *Kernel) removeInheritedFromContext(c *cpu.CPU, e *Event, ctx *Context) {
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	c.Step("__perf_remove_from_context")
	c.Unaudited("perf_event_exit_event") // the exit's removal (not annotated) returns into perf_event_exit_event(), nobody annotated either: the step point's declaration (footprint_remove.go) does not cover it
	if e.state == StateActive {
		k.eventSchedOut(c, e)
		returnUnaudited(c, "__perf_remove_from_context")
	}
	e.setState(min(e.state, StateExit))
	if e.attachChild { // perf_child_detach()
		e.attachChild = false
		e.parent.childList = remove(e.parent.childList, e)
	}
	sibling := !e.isLeader()
	ctx.listDelEvent(c, e)                                     // perf_group_detach(); list_del_event()
	markGroupDetachReturn(c, sibling, "perf_event_exit_event") // footprint_group.go
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
}

// perfEventReadRecord writes PERF_RECORD_READ {pid, tid, the read_format
// values} of an exiting inherit_stat child to its original's buffer.
// kernel/events/core.c: perf_event_read_event()
func (k *Kernel) perfEventReadRecord(c *cpu.CPU, e *Event, task *sched.Task) {
	oe := e.outputEvent()
	if oe.rb == nil {
		return
	}
	r := &rb.Read{Pid: uint32(task.PID), Tid: uint32(task.TID), Values: k.perfOutputRead(c, e)}
	_ = rb.PerfOutputSideband(c, oe.rb, oe, r, k.sidebandID(c, e), e.Attr.WriteBackward)
}

// familyCount is what an original event and every child it ever had
// counted themselves: the oracle's truth for inherited reads.
func (k *Kernel) familyCount(pe *Event) int64 {
	n := pe.count
	for _, e := range k.events {
		if e.parent == pe {
			n += e.count
		}
	}
	return n
}

// timeEnabled and timeRunning are what read() reports: the event's own
// times and those folded back from its exited children.
func (e *Event) timeEnabled() sim.Duration { return e.totalTimeEnabled + e.childTotalTimeEnabled }
func (e *Event) timeRunning() sim.Duration { return e.totalTimeRunning + e.childTotalTimeRunning }

// CtxIsClone reports whether e's context is a clone of its parent task's
// (inherited whole at fork and not changed since: what lets a context
// switch between the two swap them, perf_event_context_sched_out()).
func (e *Event) CtxIsClone() bool { return e.ctx != nil && e.ctx.IsClone() }
