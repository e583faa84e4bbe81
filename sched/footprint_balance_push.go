package sched

import "perfsim/cpu"

// balance_push() runs in the fragments of the dying CPU's switches
// (context_switch, __schedule:irqs-off, a task's start:), and
// __balance_push_cpu_stop() in migration/N's; both are declared complete,
// so what they touch that other CPUs see is annotated here. Queueing the
// stopper's work is cpu_stop_queue_work()'s (accessStopperQueue), the
// waiter's wake-up try_to_wake_up()'s (footprint_wake.go).

// accessBalancePush annotates balance_push() on c: the callback set again,
// cpu_dying() read (the hotplug code writes it with the callback, under the
// run queue's lock: annotated on the callback), and for the idle task the
// run queue's nr_running and whether the hotplug waiter waits
// (rcuwait_active(), written by the control task in sched_cpu_wait_empty()).
// kernel/sched/core.c: balance_push()
func (s *Sched) accessBalancePush(c *cpu.CPU) {
	if !s.M.FootprintListening() {
		return
	}
	k := rqKey{s, c.ID}
	c.AccessMarkedOnly(k, "rq->balance_callback", cpu.MarkedWrite, "balance_push") // kernel/sched/core.c: balance_push(): rq->balance_callback = &balance_push_callback; cpu_dying(rq->cpu)
	if TaskOf(c.Curr()) == nil {
		c.AccessMarkedOnly(k, "rq->nr_running", cpu.MarkedRead, "balance_push")                   // kernel/sched/core.c: balance_push(): !rq->nr_running
		c.AccessMarkedOnly(hotplugWaitKey{s}, "rq->hotplug_wait", cpu.MarkedRead, "balance_push") // kernel/sched/core.c: balance_push(): rcuwait_active(&rq->hotplug_wait)
	}
}

// accessHotplugWake annotates balance_push()'s rcuwait_wake_up() of the
// hotplug waiter: the kernel reads w->task and wakes it (try_to_wake_up(),
// annotated in footprint_wake.go); the model's rcuwait also takes the
// waiter off its wait queue here, a write to what the waiter's
// rcuwait_wait_event() writes.
// kernel/exit.c: rcuwait_wake_up()
func (s *Sched) accessHotplugWake(c *cpu.CPU) {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(hotplugWaitKey{s}, "rq->hotplug_wait", cpu.MarkedWrite, "rcuwait_wake_up") // kernel/exit.c: rcuwait_wake_up(): task = rcu_dereference(w->task); wake_up_process(task) (the model's queue emptied)
	}
}

// hotplugWaitKey is rq->hotplug_wait of the CPU going down (the model
// keeps one: one CPU goes down at a time, under cpu_hotplug_lock).
type hotplugWaitKey struct{ s *Sched }

// FootprintKey implements cpu.FootprintKeyer.
func (hotplugWaitKey) FootprintKey() string { return "rq->hotplug_wait" }

// FootprintExtent is where the model keeps it (explore's write audit).
func (k hotplugWaitKey) FootprintExtent() []any { return []any{&k.s.hp().hotplugWait} }

// accessBalanceCallbacks annotates __schedule()'s look at the balance
// callback when it picked prev again (no switch).
// kernel/sched/core.c: __schedule() -> __balance_callbacks(rq, NULL)
func (s *Sched) accessBalanceCallbacks(c *cpu.CPU) {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(rqKey{s, c.ID}, "rq->balance_callback", cpu.MarkedRead, "__schedule") // kernel/sched/core.c: __splice_balance_callbacks(): rq->balance_callback
	}
}

// accessHotplugWait annotates sched_cpu_wait_empty()'s waiter on the dying
// CPU's rq->hotplug_wait, set before it sleeps and cleared after.
// kernel/sched/core.c: balance_hotplug_wait() -> rcuwait_wait_event()
func (s *Sched) accessHotplugWait(c *cpu.CPU) {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(hotplugWaitKey{s}, "rq->hotplug_wait", cpu.MarkedWrite, "balance_hotplug_wait") // include/linux/rcuwait.h: rcuwait_wait_event(): rcu_assign_pointer(w->task, current)
	}
}

// accessBalancePushStop annotates __balance_push_cpu_stop() for p on c's
// stopper: p->pi_lock taken, select_fallback_rq() reading each CPU's
// active state and p's mask (and widening it when no CPU of it is
// active), then, under the run queue's lock, p's state and CPU read and,
// queued, its move (deactivate here, set_task_cpu(), activate on the CPU
// picked).
// kernel/sched/core.c: __balance_push_cpu_stop(), select_fallback_rq(), move_queued_task()
func (s *Sched) accessBalancePushStop(c *cpu.CPU, p *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(p, "p->cpus_mask", cpu.MarkedWrite, "select_fallback_rq")                      // kernel/sched/core.c: select_fallback_rq(): is_cpu_allowed(p, dest_cpu), set_cpus_allowed_force() when none is
	c.AccessMarkedOnly(p, "p->__state", cpu.MarkedRead, "__balance_push_cpu_stop")                    // kernel/sched/core.c: __balance_push_cpu_stop(): task_on_rq_queued(p)
	c.AccessMarkedOnly(&p.Thread, "p->on_cpu", cpu.MarkedRead, "__balance_push_cpu_stop")             // kernel/sched/core.c: __balance_push_cpu_stop(): task_rq(p) == rq
	c.AccessMarkedOnly(p, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "__balance_push_cpu_stop") // kernel/sched/core.c: __migrate_task() -> set_task_cpu()
	for i := range s.M.CPUs {
		c.AccessMarkedOnly(rqKey{s, i}, "rq->balance_callback", cpu.MarkedRead, "select_fallback_rq") // kernel/sched/core.c: select_fallback_rq() -> is_cpu_allowed(): cpu_active(cpu)
		if i == c.ID || p.Allowed.Has(i) {
			s.accessRQ(i, cpu.MarkedWrite, "move_queued_task") // kernel/sched/core.c: move_queued_task(): deactivate_task() here, activate_task() on the new rq
		}
	}
}
