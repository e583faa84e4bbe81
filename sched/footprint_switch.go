package sched

import "perfsim/cpu"

// The footprint of the context switch from its step point on, declared
// complete (cpu.DeclareComplete) as "context_switch": in the task switched
// away from, its time and the placement state it leaves (the CPU it ran on,
// when it stopped, that it ran), up to the switch (or do_task_dead(),
// marked); then, in the thread switched to (whose fragment started at its
// own context_switch step point), finish_task_switch(): perf's sched-in
// hook (a task's steps at perf_event_task_sched_in first; the idle thread's
// reads nr_switch_events, perf_event_switch() marked), the migration of the
// task switched away from (marked), balance_push() (marked while a CPU
// goes down), the next task's sched_entity, the tick, and the return from
// schedule() into its caller (marked but for exit_to_user_mode_loop's,
// whose code is annotated: footprint_entry.go). The write audit
// (explore's TestWriteAuditEntryExit) checks its writes.
func init() {
	cpu.DeclareComplete("context_switch")
}

// accessSwitch annotates what the context switch writes of the tasks
// switched from and to, which other CPUs' wakeups read (select_task_rq(),
// task_hot(), wake_affine()): prev's last CPU and the end of its run,
// next's "has run".
func (s *Sched) accessSwitch(c *cpu.CPU, pt, nt *Task) {
	if !s.M.FootprintListening() {
		return
	}
	if pt != nil {
		c.AccessMarkedOnly(pt, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "context_switch") // kernel/sched/core.c: __schedule() -> put_prev_task(): prev's last run and CPU, as placement reads them
	}
	if nt != nil {
		c.AccessMarkedOnly(nt, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "context_switch") // kernel/sched/core.c: __schedule() -> set_next_task(): next has run
	}
}

// accessFinishSwitch annotates finish_task_switch() in the thread switched
// to, after perf's sched-in hook: the migration pending on the task
// switched away from (set by sched_setaffinity() or a forced migration),
// whether the CPU is going down (balance_push(): marked), and the next
// task's sched_entity (se->exec_start, the protected slice), which another
// CPU's wakeup preemption check reads.
func (s *Sched) accessFinishSwitch(c *cpu.CPU, pt, nt *Task) {
	if s.hotplug != nil {
		c.Unaudited("balance_push") // the hotplug state (another CPU takes this one down)
	}
	if !s.M.FootprintListening() {
		return
	}
	if pt != nil {
		c.AccessMarkedOnly(pt, "p->migration_pending", cpu.MarkedRead, "finish_task_switch") // kernel/sched/core.c: finish_task_switch(): a move_queued_task() waits for prev->on_cpu = 0
	}
	if nt != nil {
		c.AccessMarkedOnly(nt, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "set_next_entity") // kernel/sched/fair.c: set_next_entity(): se->exec_start, se->vprot
	}
}

// returnFromSchedule marks the return from schedule() into a caller whose
// code after it nobody annotated (all but exit_to_user_mode_loop).
func (s *Sched) returnFromSchedule(prev *cpu.Thread, audited bool) {
	if !audited {
		prev.CPU().Unaudited("schedule()'s caller")
	}
}
