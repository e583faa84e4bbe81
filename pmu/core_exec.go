package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

func init() {
	KnobSpecs = append(KnobSpecs, sim.KnobSpec{
		Name:   "sync-child-event",
		Values: []string{"today", "pre-c418d8b4d7a4", "sync-after-remove"},
		Help: "perf_event_exit_event() of an inherited event: today sync_child_event() folds its count into the original before perf_remove_from_context(), " +
			"with the exiting task for inherit_stat's PERF_RECORD_READ; before c418d8b4d7a4 perf_child_detach() did it inside __perf_remove_from_context(), " +
			"after event_sched_out() had updated the count, with ctx->task (TASK_TOMBSTONE at exit: no PERF_RECORD_READ). " +
			"The difference shows at remove_on_exec, where the child is still ACTIVE: today its count since it was scheduled in is not folded " +
			"(measured on 6.18.44: realperf/testdata/remove-on-exec-inherit). " +
			"sync-after-remove is a fix candidate: sync_child_event(event, task) moved after perf_remove_from_context(), still under child_mutex " +
			"(the count updated by event_sched_out(), and the READ record of c418d8b4d7a4 kept)",
		Source:  "c418d8b4d7a4 perf/core: Fix missing read event generation on task exit (tip perf/urgent, 2025)",
		Package: "pmu",
	})
	RegisterStepHelp(map[string]string{
		"perf_event_remove_on_exec": "kernel/events/core.c: perf_event_remove_on_exec(): at exec, ctx->mutex held, before a remove_on_exec event is taken out (perf_event_exit_event(event, ctx, current, false))",
	})
}

// perfEventRemoveOnExec takes the task's remove_on_exec events out of its
// context at exec, under ctx->mutex: each leaves its owner's list and exits
// as at task exit (perf_event_exit_event(event, ctx, current, false)): an
// original is removed with DETACH_EXIT (state EXIT: read() still answers,
// poll() hangs up) and its pollers woken; an inherited one folds its count
// into its parent, leaves the child_list and is put. A context that lost
// events is no longer a clone of its parent's (unclone_ctx()).
// kernel/events/core.c: perf_event_remove_on_exec()
func (k *Kernel) perfEventRemoveOnExec(t *sched.Task) {
	ctx := k.taskCtx[t]
	if ctx == nil || ctx.dead {
		return
	}
	mu, n := k.ctxMutexLocked(t, ctx)                // annotated: footprint_exec_resched.go
	defer k.unlockMutex(t, mu, ctx, "ctx->mutex", n) // annotated
	k.accessRemoveOnExec(t, ctx, nil)
	modified := false
	preSync := k.KnobIs("sync-child-event", "pre-c418d8b4d7a4")
	syncAfter := k.KnobIs("sync-child-event", "sync-after-remove")
	for _, e := range append([]*Event(nil), ctx.events...) {
		if !e.Attr.RemoveOnExec || e.ctx != ctx {
			continue
		}
		k.accessRemoveOnExec(t, ctx, e)
		e.ownerTask = nil // perf_remove_from_owner()
		modified = true
		t.Step("perf_event_remove_on_exec")
		if pe := e.parent; pe != nil {
			// DETACH_EXIT | DETACH_GROUP | DETACH_CHILD under the
			// parent's child_mutex, as perf_event_exit_event() does
			k.S.MutexLock(t, &pe.childMutex)
			attached := e.attachChild
			if attached && !preSync && !syncAfter {
				// sync_child_event() before the removal: the child is
				// ACTIVE here, its count not updated since it was
				// scheduled in (perf_event_count() does not read the PMU)
				k.syncChildEvent(t, e, t)
			}
			k.perfRemoveFromContextFn(t, e, func(c *cpu.CPU, e *Event, ctx *Context) {
				k.__perfRemoveFromContextExit(c, e, ctx)
				if e.attachChild { // perf_child_detach()
					if preSync {
						k.syncChildEvent(t, e, t) // after event_sched_out() updated the count
					}
					e.attachChild = false
					pe.childList = remove(pe.childList, e)
				}
			})
			if attached && syncAfter {
				k.syncChildEvent(t, e, t) // the fix candidate: after the removal updated the count
			}
			k.S.MutexUnlock(t, &pe.childMutex)
			if attached {
				k.perfEventWakeup(pe) // "Kick perf_poll() for is_event_hup();"
				k.putEvent(t, e)
			}
			continue
		}
		k.perfRemoveFromContextFn(t, e, k.__perfRemoveFromContextExit)
		k.perfEventWakeup(e) // "Parent events are governed by their filedesc, retain them."
	}
	c := t.CPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	var clone *Context
	if modified {
		clone = ctx.uncloneCtx()
	}
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	k.putCtx(clone, "perf_event_remove_on_exec") // put_ctx(clone_ctx)
}

// __perfRemoveFromContextExit is __perf_remove_from_context() with
// DETACH_EXIT: the event leaves the context in state EXIT.
// kernel/events/core.c: __perf_remove_from_context() "if (flags & DETACH_EXIT) state = PERF_EVENT_STATE_EXIT;"
func (k *Kernel) __perfRemoveFromContextExit(c *cpu.CPU, e *Event, ctx *Context) {
	k.__perfRemoveFromContext(c, e, ctx)
	e.setState(min(e.state, StateExit))
}
