package pmu

import (
	"fmt"

	"perfsim/sched"
	"perfsim/sim"
)

// Between 3a5465418f5f and 56799bc03565 (v6.10 to v6.15) the queued
// perf_pending_task() held no reference on the event: _free_event() instead
// waited for it (perf_pending_task_sync()), cancelling it when it was still
// on current's task_works list and otherwise sleeping in D on
// event->pending_work_wait (an rcuwait) until perf_pending_task() cleared
// pending_work and woke it. A release that runs in current's own
// task_work_run() (the ____fput of close()) while the same batch holds the
// event's perf_pending_task() behind it can neither cancel it nor ever see it
// run: the task hangs in D (syzbot, Yi Lai). Two tasks that each close an
// event whose task work is queued on the other wait for each other.

// pendingTaskSyncKnob picks how the release of a sigtrap event deals with a
// perf_pending_task() still queued.
var pendingTaskSyncKnob = sim.KnobSpec{
	Name:   "pending-task-sync",
	Values: []string{"today", "pre-56799bc03565"},
	Help: "attr.sigtrap, an event released while its perf_pending_task() is queued: today the task work holds a reference on the event " +
		"(taken by __perf_event_overflow(), dropped by perf_pending_task(); pending-task-ref) and inherited events are let go with put_event(); " +
		"pre-56799bc03565 (3a5465418f5f's design): no reference, and _free_event() calls perf_pending_task_sync(): task_work_cancel(current) " +
		"or else rcuwait_wait_event(&event->pending_work_wait, !event->pending_work, TASK_UNINTERRUPTIBLE), which hangs when the work sits " +
		"in the batch current's own task_work_run() already took (close() of the event: ____fput runs first) or is queued on a task that " +
		"waits for current; children freed with free_event(), then put_event(parent)",
	Source: "56799bc03565 perf: Fix hang while freeing sigtrap event (Frederic Weisbecker, v6.15-rc; reported by Yi Lai and " +
		"syzbot+3c4321e10eea460eb606; Fixes 3a5465418f5f perf: Fix event leak upon exec and file release)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, pendingTaskSyncKnob)
	RegisterStepHelp(map[string]string{
		"perf_pending_task_sync:rcuwait_wait_event": "kernel/events/core.c (3a5465418f5f..56799bc03565): perf_pending_task_sync() from _free_event(): " +
			"task_work_cancel(current, &event->pending_task) failed, before rcuwait_wait_event(&event->pending_work_wait, !event->pending_work) " +
			"(pending-task-sync=pre-56799bc03565)",
	})
	RegisterObservable("sigtrap.sync-waits", "perf_pending_task_sync() sleeps on event->pending_work_wait (pending-task-sync=pre-56799bc03565)",
		func(k *Kernel) int64 { return int64(k.sigStats.syncWaits) })
	RegisterObservable("sigtrap.sync-cancels", "perf_pending_task_sync() calls that cancelled current's queued perf_pending_task() (pending-task-sync=pre-56799bc03565)",
		func(k *Kernel) int64 { return int64(k.sigStats.syncCancels) })
}

// pendingTaskSyncOld reports pending-task-sync=pre-56799bc03565.
func (k *Kernel) pendingTaskSyncOld() bool {
	return k.KnobIs(pendingTaskSyncKnob.Name, "pre-56799bc03565")
}

// pendingTaskCB is &event->pending_task, the callback_head task_work_cancel()
// looks for.
type pendingTaskCB struct{ e *Event }

// perfPendingTaskSync waits for the event's queued perf_pending_task() before
// the event is freed: cancel it when it is still on current's list, else
// sleep until it ran. Only with pending-task-sync=pre-56799bc03565; t is
// current (nil: not in a task, nothing to wait with).
// kernel/events/core.c (3a5465418f5f): perf_pending_task_sync()
func (k *Kernel) perfPendingTaskSync(t *sched.Task, e *Event) {
	if !k.pendingTaskSyncOld() || e.life.pendingWork == 0 || t == nil {
		return
	}
	// "If the task is queued to the current task's queue, we obviously
	// can't wait for it to complete. Simply cancel it."
	if k.S.TaskWorkCancelCB(t, pendingTaskCB{e}) {
		e.life.pendingWork = 0
		e.life.pendingTask = nil
		k.sigStats.syncCancels++
		return
	}
	t.Step("perf_pending_task_sync:rcuwait_wait_event")
	k.sigStats.syncWaits++
	k.S.RCUWaitWaitEvent(t, &e.life.pendingWorkWait, func() bool { return e.life.pendingWork == 0 },
		func() string { return k.pendingSyncDesc(t, e) }, func() *sched.Task { return e.life.pendingTask })
}

// pendingSyncDesc is what perf_pending_task_sync() waits for, as the
// hung-task report says it.
func (k *Kernel) pendingSyncDesc(waiter *sched.Task, e *Event) string {
	s := fmt.Sprintf("rcuwait_wait_event(&event->pending_work_wait, !event->pending_work) in perf_pending_task_sync() from _free_event(): event %d's perf_pending_task() is queued", e.id)
	switch q := e.life.pendingTask; {
	case q == nil:
	case q == waiter:
		s += fmt.Sprintf(" on %s itself, in the batch its own task_work_run() took off task->task_works (so task_work_cancel() could not find it) "+
			"behind the work that is freeing the event: only %s can run it and it sleeps here", q, q)
	default:
		s += fmt.Sprintf(" on %s (task_work_cancel(current) cannot take another task's work): it runs when %s next returns to user mode", q, q)
	}
	return s
}
