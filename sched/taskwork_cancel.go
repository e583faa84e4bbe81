package sched

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// This file holds what the deferred unwind infrastructure (package unwind,
// kernel/unwind/deferred.c) needs from the scheduler: cancelling its task work
// at exit, a syscall op with kernel time, and a sleep inside kernel code (a
// page fault on the user stack while unwinding it).

// TaskWorkCancel removes the first queued work of that name from t and reports
// whether it found one.
// kernel/task_work.c: task_work_cancel()
func (s *Sched) TaskWorkCancel(t *Task, name string) bool {
	return taskWorkCancel(t, func(w TaskWork) bool { return w.Name == name })
}

// taskWorkCancel removes the first queued work of t that match takes.
// kernel/task_work.c: task_work_cancel_match()
func taskWorkCancel(t *Task, match func(TaskWork) bool) bool {
	for i, w := range t.works {
		if match(w) {
			t.works = append(t.works[:i:i], t.works[i+1:]...)
			return true
		}
	}
	return false
}

// KernelSleep blocks t, which runs kernel code in its own context, for d and
// returns once it runs again (possibly on another CPU): what a major page fault
// in copy_from_user() does (handle_mm_fault() waiting for the page), or
// schedule_timeout_uninterruptible().
// kernel/time/sleep_timeout.c: schedule_timeout()
func (s *Sched) KernelSleep(t *Task, d sim.Duration) {
	c := t.CPU()
	if c == nil || t.State != Runnable {
		return
	}
	s.sleepOnTimer(t, c, d)
}

// sleepOnTimer puts t to sleep on c until an hrtimer d from now wakes it: the
// part of hrtimer_nanosleep() and schedule_timeout() they share. The task's
// timer is made on c once and kept while the task stays there.
func (s *Sched) sleepOnTimer(t *Task, c *cpu.CPU, d sim.Duration) {
	s.sleepOnTimerFrom(t, c, d, 0, false)
}

// sleepOnTimerFrom is sleepOnTimer with a slack range (cpu/hrtimer.go:
// nanosleep's is the task's timer_slack_ns); audited says that its
// caller's code after it is annotated (scheduleFrom): nanosleep's body.
func (s *Sched) sleepOnTimerFrom(t *Task, c *cpu.CPU, d, slack sim.Duration, audited bool) {
	if t.wakeTimer == nil || t.wakeTimer.CPU() != c {
		if t.wakeTimer != nil {
			t.wakeTimer.Cancel()
		}
		t.wakeTimer = c.NewHRTimer(cpu.Interrupt{Name: "hrtimer:" + t.Comm, Fn: func(*cpu.CPU) { s.Wake(t) }})
	}
	t.wakeTimer.ArmRange(c.Now()+sim.Time(d), slack)
	t.State = Sleeping
	s.scheduleFrom(&t.Thread, audited)
	// woken before it expired (a signal): do_nanosleep()'s and
	// schedule_timeout()'s way out cancels it, so it does not fire later
	// on a CPU the task has left (hrtimer_cancel(), timer_delete_sync())
	if armed, _ := t.wakeTimer.Armed(); armed {
		t.wakeTimer.Cancel()
	}
}

// SyscallFor is a program step that enters the kernel for syscall name and
// spends d there (when the syscall has no model body).
func SyscallFor(name string, d sim.Duration) Op { return Op{Kind: OpSyscall, Name: name, D: d} }

// TaskWorkCancelCB removes the queued work whose Key is key (its struct
// callback_head) from t and reports whether it found it. A work that
// task_work_run() already took off the list (a batch it is running) is not
// found.
// kernel/task_work.c: task_work_cancel()
func (s *Sched) TaskWorkCancelCB(t *Task, key any) bool {
	return taskWorkCancel(t, func(w TaskWork) bool { return w.Key != nil && w.Key == key })
}
