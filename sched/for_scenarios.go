package sched

import "perfsim/cpu"

// This file holds what the scenario runtime (package scenarios) needs for the
// forced interleavings of a hand-written reproducer ("preempt TASK at LABEL",
// "migrate TASK to cpuN at LABEL"). It was added by the runtime's author without
// changing the scheduler's behaviour; the scheduler's owner may fold it into
// schedule.go.

// ForcePreempt marks the CPU t runs on for rescheduling, as an interrupt that
// calls resched_curr() would: t is switched out at its next preemption point (the
// return to user mode, or schedule()). It reports false when t is not running.
func (s *Sched) ForcePreempt(t *Task) bool {
	c := t.CPU()
	if c == nil || t.State != Runnable {
		return false
	}
	s.resched(c.ID)
	return true
}

// ForceMigrate moves t to CPU to, as the load balancer's active balance
// (migration_cpu_stop()) would: a running t leaves its CPU at its next preemption
// point and is queued on to; a queued t is moved between run queues at once. The
// affinity is respected: it reports false when to is not allowed, t is not
// runnable or is already there.
//
// Call it for a running t only from t's own task context at a preemption point
// (the runtime uses the exit_to_user_mode_loop step point), so that t cannot block
// or enter schedule() between the request and the switch.
func (s *Sched) ForceMigrate(t *Task, to int) bool {
	if t.State != Runnable || to < 0 || to >= len(s.M.CPUs) || !t.Allowed.Has(to) || !s.CPUActive(to) {
		return false
	}
	if c := t.CPU(); c != nil {
		if c.ID == to {
			return false
		}
		s.cpuStopQueueWork(c, c.ID, func(sc *cpu.CPU) { s.migrationCPUStop(sc, t, to) }) // active_load_balance_cpu_stop() on migration/N (stopper.go)
		return true
	}
	for i := range s.rq {
		if i != to && s.dequeue(i, t) {
			s.Migrations++
			if run := s.M.Eng.Running(); run != nil {
				s.setTaskCPU(s.M.CPUs[run.ID], t, to)
			}
			s.enqueue(to, t)
			t.lastCPU = to
			s.resched(to)
			return true
		}
	}
	return false
}
