package sched

import "perfsim/cpu"

// The stopper's code (stopper.go) runs in fragments declared complete: a
// work queued in the caller's syscall body (not declared), and migration/N's
// loop from its sched-in step point to its __schedule() step point, which
// is a task's "start:" fragment or the rest of finish_task_switch(). What
// they write is annotated here; the wake-up that completes the caller's
// wait is try_to_wake_up(), annotated in footprint_wake.go.

// accessStopperQueue annotates cpu_stop_queue_work() on CPU i's stopper: its
// works list written and the stopper thread woken (its state) under
// stopper->lock.
// kernel/stop_machine.c: cpu_stop_queue_work() -> __cpu_stop_queue_work(), wake_up_q()
func (s *Sched) accessStopperQueue(c *cpu.CPU, i int) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(stopperKey{s, i}, "stopper->works", cpu.MarkedWrite, "cpu_stop_queue_work") // kernel/stop_machine.c: __cpu_stop_queue_work(): list_add_tail(&work->list, &stopper->works)
	if t := s.stoppers[i].t; t != nil {
		c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "try_to_wake_up") // kernel/sched/core.c: try_to_wake_up(stopper->thread): TASK_RUNNING
	}
	c.AccessMarkedOnly(stopperKey{s, i}, "rq->stop", cpu.MarkedWrite, "enqueue_task_stop") // kernel/sched/stop_task.c: enqueue_task_stop(): the stopper on CPU i's run queue
	c.AccessMarkedOnly(rqKey{s, i}, "rq->nr_running", cpu.MarkedWrite, "activate_task")    // kernel/sched/stop_task.c: enqueue_task_stop(): add_nr_running(); resched_curr()
}

// accessStopperRun annotates migration/N's loop: the works taken off the
// list.
// kernel/stop_machine.c: cpu_stopper_thread()
func (s *Sched) accessStopperRun(c *cpu.CPU, t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(stopperKey{s, c.ID}, "stopper->works", cpu.MarkedWrite, "cpu_stopper_thread") // kernel/stop_machine.c: cpu_stopper_thread(): list_del_init(&work->list)
}

// accessStopperSleep annotates migration/N's going to sleep: the works
// looked at again and its own state set, in the fragment the last work's
// wake-up may have started.
// kernel/smpboot.c: smpboot_thread_fn()
func (s *Sched) accessStopperSleep(c *cpu.CPU, t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(stopperKey{s, c.ID}, "stopper->works", cpu.MarkedRead, "smpboot_thread_fn") // kernel/smpboot.c: smpboot_thread_fn(): ht->thread_should_run() -> cpu_stop_should_run()
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "smpboot_thread_fn")                      // kernel/smpboot.c: smpboot_thread_fn(): set_current_state(TASK_INTERRUPTIBLE)
}

// accessStopperPick annotates __schedule()'s look at the stop class, first
// of all (the stopper woken, its run queue entry), and its taking it.
// kernel/sched/stop_task.c: pick_task_stop()
func (s *Sched) accessStopperPick(c *cpu.CPU, op cpu.AccessOp) {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(stopperKey{s, c.ID}, "rq->stop", op, "pick_task_stop") // kernel/sched/stop_task.c: pick_task_stop(): if (!sched_stop_runnable(rq)) return NULL
	}
}

// accessMigrationStop annotates migration_cpu_stop() on t: its run queue
// locked (task_rq_lock()), t's state and CPU read, and p->wake_cpu or a
// queued t's move written.
// kernel/sched/core.c: migration_cpu_stop()
func (s *Sched) accessMigrationStop(c *cpu.CPU, t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedRead, "migration_cpu_stop")                    // kernel/sched/core.c: migration_cpu_stop(): task_on_rq_queued(p)
	c.AccessMarkedOnly(t, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "migration_cpu_stop") // kernel/sched/core.c: migration_cpu_stop(): p->wake_cpu = arg->dest_cpu, or __migrate_task() -> set_task_cpu()
	c.AccessMarkedOnly(&t.Thread, "p->on_cpu", cpu.MarkedRead, "migration_cpu_stop")             // kernel/sched/core.c: migration_cpu_stop(): task_rq(p) == rq
	c.AccessMarkedOnly(t, "p->migration_pending", cpu.MarkedWrite, "migration_cpu_stop")         // kernel/sched/core.c: migration_cpu_stop(): the pending affinity move done
	for i := range s.M.CPUs {
		if i == c.ID || t.Allowed.Has(i) {
			s.accessRQ(i, cpu.MarkedWrite, "move_queued_task")                                          // kernel/sched/core.c: move_queued_task(): deactivate_task() here, activate_task() on the new rq
			c.AccessMarkedOnly(rqKey{s, i}, "rq->balance_callback", cpu.MarkedRead, "move_queued_task") // kernel/sched/core.c: move_queued_task(): is_cpu_allowed(p, new_cpu) -> cpu_active(cpu)
		}
	}
}

// accessSetAffinity annotates sched_setaffinity() of the running task t up
// to its wait: the new mask written under p->pi_lock and t's run queue's
// lock, and whether each CPU of it is active (cpumask_any_and_distribute()
// over cpu_active_mask, annotated on the run queue's balance_callback as
// pickNext reads it).
// kernel/sched/syscalls.c: sched_setaffinity() -> __set_cpus_allowed_ptr_locked()
func (s *Sched) accessSetAffinity(c *cpu.CPU, t *Task, m CPUMask) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(t, "p->cpus_mask", cpu.MarkedWrite, "__set_cpus_allowed_ptr_locked") // kernel/sched/core.c: __do_set_cpus_allowed(): cpumask_copy(&p->cpus_mask, ctx->new_mask)
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "affine_move_task")                // kernel/sched/core.c: affine_move_task() -> wait_for_completion(): TASK_UNINTERRUPTIBLE
	c.AccessMarkedOnly(t, "p->migration_pending", cpu.MarkedWrite, "affine_move_task")      // kernel/sched/core.c: affine_move_task(): p->migration_pending = &my_pending
	s.accessRQ(c.ID, cpu.MarkedRead, "__set_cpus_allowed_ptr")                              // kernel/sched/core.c: __set_cpus_allowed_ptr(): task_rq_lock()
	for _, i := range m.List() {
		if i < len(s.M.CPUs) {
			c.AccessMarkedOnly(rqKey{s, i}, "rq->balance_callback", cpu.MarkedRead, "__set_cpus_allowed_ptr_locked") // kernel/sched/core.c: __set_cpus_allowed_ptr_locked(): cpumask_any_and_distribute(cpu_valid_mask, ctx->new_mask)
		}
	}
}

// accessStopDone annotates the end of the caller's wait for its stopper's
// work: the completion read (the stopper wrote it with the move) and its
// state written back to running.
// kernel/sched/core.c: affine_move_task(): wait_for_completion(&pending->done)
func (s *Sched) accessStopDone(t *Task) {
	if c := t.CPU(); c != nil && s.M.FootprintListening() {
		c.AccessMarkedOnly(t, "p->migration_pending", cpu.MarkedRead, "affine_move_task") // kernel/sched/core.c: affine_move_task(): wait_for_completion(&pending->done), refcount_dec_and_test(&pending->refs)
		c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "do_wait_for_common")        // kernel/sched/completion.c: do_wait_for_common(): __set_current_state() after schedule()
	}
}
