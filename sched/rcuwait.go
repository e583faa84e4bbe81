package sched

// RCUWait is struct rcuwait: at most one task waits on it, and the waker
// wakes that task (wake_up_process()) without a wait queue. Its wait is in
// TASK_UNINTERRUPTIBLE here (the only state perf used), so the hung-task
// detector sees it.
// include/linux/rcuwait.h: struct rcuwait
type RCUWait struct {
	task *Task // w->task: the waiter, nil when none
	q    WaitQueue
}

// Waiter is w->task: the task waiting on w, nil when none.
func (w *RCUWait) Waiter() *Task { return w.task }

// RCUWaitWaitEvent is rcuwait_wait_event(w, cond, TASK_UNINTERRUPTIBLE) by the
// running task t: it sleeps in D until cond holds, re-checked after each
// wake-up. on says what it waits for and next which task must act to make
// cond true (the hung-task report's wait chain); both are asked only when a
// hang is reported.
// include/linux/rcuwait.h: rcuwait_wait_event()
func (s *Sched) RCUWaitWaitEvent(t *Task, w *RCUWait, cond func() bool, on func() string, next func() *Task) {
	w.task = t // rcu_assign_pointer(w->task, current)
	since := s.M.Now()
	for !cond() {
		s.WaitUninterruptibleFor(t, &w.q, on, next, since)
	}
	w.task = nil // finish_rcuwait()
}

// RCUWaitWakeUp is rcuwait_wake_up(): wakes the waiter, if any, and reports
// whether there was one.
// kernel/exit.c: rcuwait_wake_up()
func (s *Sched) RCUWaitWakeUp(w *RCUWait) bool {
	if w.task == nil {
		return false
	}
	s.WakeUpAll(&w.q)
	return true
}
