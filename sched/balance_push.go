package sched

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
)

// Once a CPU going down is inactive (sched_cpu_deactivate() ->
// balance_push_set()), its rq->balance_callback stays balance_push_callback
// and every __schedule() there runs balance_push(): after a context switch
// in finish_task_switch() (finish_lock_switch() -> __balance_callbacks()),
// in the task switched to, after perf_event_task_sched_in(); when the pick
// is prev again, at the end of __schedule(). A task that is not a per-CPU
// kthread is handed to the CPU's stopper (stop_one_cpu_nowait()), and
// schedule()'s loop on need_resched() switches to migration/N before the
// task returns to its own code: each task leaves the dying CPU switched in
// there (its sched_switch, its events scheduled in and out) and then moved
// by migration/N (__balance_push_cpu_stop(): select_fallback_rq(),
// __migrate_task()). The idle task switched to with nothing queued wakes
// the hotplug waiter.
// kernel/sched/core.c: balance_push_callback, __balance_callbacks()

// balancePush is balance_push() on c, the CPU this runs on, in the context
// of its current thread (rq->curr), as __balance_callbacks() runs it from
// __schedule() and finish_task_switch(): balance_push_callback is the only
// balance callback the model queues, and the callers annotate their read of
// rq->balance_callback (accessFinishSwitch, accessBalanceCallbacks). It
// reports whether it queued the move
// of the current task on the stopper: the caller then schedules again
// (schedule()'s loop, need_resched() set by the stopper's wake-up).
// kernel/sched/core.c: balance_push()
func (s *Sched) balancePush(c *cpu.CPU) bool {
	if !s.pushing(c) {
		return false
	}
	s.accessBalancePush(c) // footprint_balance_push.go
	p := TaskOf(c.Curr())
	// Both the cpu-hotplug and stop task are in this case: the idle task
	// and migration/N (kthread_is_per_cpu()); the model has no
	// migrate_disable() sections.
	if p == nil || p.kthreadIsPerCPU() {
		if p == nil && len(s.rq[c.ID]) == 0 && !s.stoppers[c.ID].runnable && s.hotplug.hotplugWait.Waiter() != nil {
			s.accessHotplugWake(c)                  // footprint_balance_push.go
			s.RCUWaitWakeUp(&s.hotplug.hotplugWait) // !rq->nr_running && rcuwait_active(&rq->hotplug_wait)
		}
		return false
	}
	// stop_one_cpu_nowait(rq->cpu, __balance_push_cpu_stop, push_task, &push_work)
	s.cpuStopQueueWork(c, c.ID, func(sc *cpu.CPU) { s.balancePushCPUStop(sc, p) })
	return true
}

// kthreadIsPerCPU is kthread_is_per_cpu(): the model's per-CPU kthreads
// are the smpboot threads migration/N and cpuhp/N; the idle thread is no
// Task.
// kernel/kthread.c: kthread_is_per_cpu()
func (t *Task) kthreadIsPerCPU() bool { return t.Kthread && t.perCPU }

// balancePushCPUStop runs on the dying CPU's stopper for p, which
// balance_push() handed it: select_fallback_rq() picks an active CPU p may
// run on (widening its affinity when there is none), and p, still queued
// there, is moved. A p that blocked or moved meanwhile stays where it is:
// its wake-up places it on an active CPU (select_task_rq(),
// is_cpu_allowed()).
// kernel/sched/core.c: __balance_push_cpu_stop()
func (s *Sched) balancePushCPUStop(c *cpu.CPU, p *Task) {
	s.accessBalancePushStop(c, p) // footprint_balance_push.go
	// task_rq(p) == rq && task_on_rq_queued(p)
	if p.lastCPU == c.ID && p.State == Runnable && p.CPU() == nil && s.dequeue(c.ID, p) {
		// select_fallback_rq(rq->cpu, p) (its affinity widened only for
		// a task it moves), then __migrate_task()
		s.moveQueuedTask(c, p, s.fallbackCPU(p))
	}
}

// moveQueuedTask moves p, just taken off c's run queue, to dest, from c's
// stopper: sched_migrate_task in migration/N's context, p queued on dest,
// dest told to reschedule.
// kernel/sched/core.c: __migrate_task() -> move_queued_task()
func (s *Sched) moveQueuedTask(c *cpu.CPU, p *Task, dest int) {
	s.Migrations++
	s.note(c, sim.KMigrate, p.Thread.Name, "cpu"+strconv.Itoa(c.ID)+"->cpu"+strconv.Itoa(dest), 0)
	s.setTaskCPU(c, p, dest)
	s.enqueue(dest, p)
	s.resched(dest)
}
