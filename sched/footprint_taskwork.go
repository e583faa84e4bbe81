package sched

import "perfsim/cpu"

// The footprints of task work (taskwork.go): task_work_add() and the
// return of task_work_run() to its caller. The works' own step points
// ("task_work_run:NAME") are their authors' to declare (pmu's
// "task_work_run:____fput", pmu/footprint_release.go); what sched
// annotates is its own code around them:
//
//   - task_work_add(): the cmpxchg of task->task_works and the notify
//     flag set in the task's thread flags (TWA_RESUME's
//     TIF_NOTIFY_RESUME; TWA_SIGNAL's TIF_NOTIFY_SIGNAL, whose kick of the
//     task, a wake-up or an IPI, is marked; TWA_NMI_CURRENT's irq_work,
//     marked).
//   - task_work_run()'s loop after a work returns: the next work's step
//     point, or the look at task->task_works that finds it empty and the
//     return into the caller: exit_to_user_mode_loop()'s next round
//     (annotated, its step point next); arch_do_signal_or_restart()'s
//     get_signal() and do_exit()'s exit_task_work() are marked.

// accessTaskWorkAdd annotates task_work_add() of a work on t from c.
// kernel/task_work.c: task_work_add()
func (s *Sched) accessTaskWorkAdd(c *cpu.CPU, t *Task, mode TWA) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	c.AccessMarkedOnly(t, "task->task_works", cpu.MarkedWrite, "task_work_add") // kernel/task_work.c: task_work_add(): try_cmpxchg(&task->task_works, &head, work)
	switch mode {
	case TWAResume:
		c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "task_work_add") // kernel/task_work.c: task_work_add(): set_notify_resume(task)
	case TWASignal:
		c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "task_work_add") // kernel/task_work.c: task_work_add(): set_notify_signal(task)
		c.Unaudited("set_notify_signal")                                              // kernel/task_work.c: task_work_add() -> set_notify_signal() -> kick_process(): the wake-up or the IPI
	case TWANMICurrent:
		c.Unaudited("irq_work_queue") // kernel/task_work.c: task_work_add(): irq_work_queue(this_cpu_ptr(&irq_work_NMI_resume))
	}
}

// accessTaskWorkLoop annotates task_work_run()'s look at task->task_works
// after a batch of works ran: another batch (taken by the xchg annotated
// in taskWorkRunFrom) or none.
// kernel/task_work.c: task_work_run(): work = READ_ONCE(task->task_works)
func (s *Sched) accessTaskWorkLoop(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t, "task->task_works", cpu.MarkedRead, "task_work_run") // kernel/task_work.c: task_work_run(): work = READ_ONCE(task->task_works)
	}
}

// markTaskWorkReturn marks task_work_run()'s return into a caller whose
// code after it nobody annotated (ret false).
func (s *Sched) markTaskWorkReturn(t *Task, ret bool) {
	if !ret && s.M.FootprintListening() {
		t.CPU().Unaudited("task_work_run's caller")
	}
}
