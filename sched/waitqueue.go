package sched

// WaitQueue is a list of tasks blocked until an event: wait_queue_head_t.
type WaitQueue struct {
	waiters []*Task
}

// Wait blocks the running task t on q until WakeUpAll (or a signal) wakes it:
// prepare_to_wait() + schedule(). Call it from t's kernel context (a syscall body).
// It returns false when a pending signal interrupted the wait (-ERESTARTSYS).
func (s *Sched) Wait(t *Task, q *WaitQueue) bool { return s.wait(t, q, false, nil) }

// WaitAnnotated is Wait for a syscall body whose author annotated its code
// after the wait up to the next step point (sched.Sched.SyscallAnnotated):
// woken annotates what the wait and the body do once schedule() returns
// (finish_wait(), the body's look again), so the return from schedule() is
// not marked.
func (s *Sched) WaitAnnotated(t *Task, q *WaitQueue, woken func()) bool {
	return s.wait(t, q, true, woken)
}

// wait is Wait; audited says that the caller's code after schedule()
// returns is annotated (scheduleFrom), woken the annotation of what the
// wait does then (footprint_wait.go: waitOn).
func (s *Sched) wait(t *Task, q *WaitQueue, audited bool, woken func()) bool {
	if t.SigPending {
		return false
	}
	q.waiters = append(q.waiters, t)
	t.State = Sleeping
	s.scheduleFrom(&t.Thread, audited)
	if woken != nil {
		woken()
	}
	q.remove(t)
	return !t.SigPending
}

// WakeUpAll wakes every task waiting on q: wake_up_all().
func (s *Sched) WakeUpAll(q *WaitQueue) { s.wakeUpAll(q, false) }

// WakeUpAllAnnotated is WakeUpAll for a caller whose code after the
// wake-ups, up to its next step point, is annotated (a SyscallAnnotated
// body: perf's write(2) of the cork pipe): try_to_wake_up() is annotated
// (footprint_wake.go), and a fragment that starts at one of its step
// points goes on into the caller unmarked (ttwuReturn).
// kernel/sched/wait.c: __wake_up() -> __wake_up_common() -> try_to_wake_up()
func (s *Sched) WakeUpAllAnnotated(q *WaitQueue) { s.wakeUpAll(q, true) }

// wakeUpAll wakes q's waiters; audited: see ttwu.
func (s *Sched) wakeUpAll(q *WaitQueue, audited bool) {
	ws := q.waiters
	q.waiters = nil
	for _, t := range ws {
		s.ttwu(t, 0, audited)
	}
}

// Waiters returns how many tasks wait on q.
func (q *WaitQueue) Waiters() int { return len(q.waiters) }
