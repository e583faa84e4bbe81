package sched

import "perfsim/sim"

// The hung-task detector's side of the scheduler: a task asleep in
// TASK_UNINTERRUPTIBLE on a kernel wait (wait_var_event(), rcuwait_wait_event())
// records what it waits for and since when, so that a run whose every task is
// blocked can say which are hung (D) and on what, apart from the deadlocks of
// user-visible waits (pipe, futex, wait4) that runner reports as a hang.

// ErrIntr is -EINTR: "Let kill terminate clone/fork in the middle".
var ErrIntr = errIntr{}

type errIntr struct{}

func (errIntr) Error() string { return "interrupted system call" }

// ForkCleanupHook is a ForkHook that undoes its InitTask when copy_process()
// fails after it (bad_fork_cleanup_perf: perf_event_free_task()). It runs in
// the parent's context and may sleep.
type ForkCleanupHook interface {
	FreeTask(parent, child *Task)
}

// WaitUninterruptible blocks the running task t on q in TASK_UNINTERRUPTIBLE
// (D) until a WakeUpAll on q: no signal wakes it. on says what it waits for,
// as the hung-task report names it (asked when it is reported; never ""). Callers re-check their condition in a
// loop, as wait_var_event() does; the D time counts from the first wait of
// the loop (since, 0: now).
// include/linux/wait_bit.h: wait_var_event() -> ___wait_var_event(TASK_UNINTERRUPTIBLE)
func (s *Sched) WaitUninterruptible(t *Task, q *WaitQueue, on func() string, since sim.Time) {
	s.WaitUninterruptibleFor(t, q, on, nil, since)
}

// WaitUninterruptibleFor is WaitUninterruptible for a wait that only one
// task can end: next names it (asked when the hang is reported), the next
// link of the wait chain the report follows (that task may itself be in D,
// waiting for another, or for the waiter: a cycle).
func (s *Sched) WaitUninterruptibleFor(t *Task, q *WaitQueue, on func() string, next func() *Task, since sim.Time) {
	s.waitUninterruptible(t, q, on, next, since, false)
}

// waitUninterruptible is WaitUninterruptibleFor; audited says that the
// caller annotates its code after the wait (scheduleFrom).
func (s *Sched) waitUninterruptible(t *Task, q *WaitQueue, on func() string, next func() *Task, since sim.Time, audited bool) {
	if since == 0 {
		since = s.M.Now()
	}
	q.waiters = append(q.waiters, t)
	t.fam.uninterruptible = true
	t.fam.hungOn, t.fam.hungSince, t.fam.hungNext = on, since, next
	if c := t.CPU(); c != nil {
		t.fam.hungStep, t.fam.hungCPU = c.LastStep(), c.ID
	}
	if to := s.HungTaskTimeout(); to > 0 && s.OnHungWait != nil {
		s.OnHungWait(t, since+sim.Time(to))
	}
	t.State = Sleeping
	s.scheduleFrom(&t.Thread, audited)
	q.remove(t)
	t.fam.uninterruptible = false
	t.fam.hungOn, t.fam.hungNext = nil, nil
}

// HungWait returns what t waits for in D (WaitUninterruptible) and since
// when; "" when it is not in such a wait.
func (t *Task) HungWait() (string, sim.Time) {
	if t.fam.hungOn == nil {
		return "", 0
	}
	return t.fam.hungOn(), t.fam.hungSince
}

// HungSince reports whether t is asleep in D on a kernel wait
// (WaitUninterruptible) and since when, without asking what it waits for
// (HungWait formats that).
func (t *Task) HungSince() (sim.Time, bool) {
	return t.fam.hungSince, t.fam.hungOn != nil
}

// HungNext is the task that must act to end t's wait in D (the next link of
// its wait chain), nil when t is not in such a wait or the wait names none.
func (t *Task) HungNext() *Task {
	if t.fam.hungOn == nil || t.fam.hungNext == nil {
		return nil
	}
	return t.fam.hungNext()
}

// HungStep is the step point t's CPU last passed when t went to sleep in D,
// and that CPU; "" when t is not in such a wait.
func (t *Task) HungStep() (string, int) {
	if t.fam.hungOn == nil {
		return "", -1
	}
	return t.fam.hungStep, t.fam.hungCPU
}

// HungTaskOn reports whether the hung-task detector is on (knob hung-task).
func (s *Sched) HungTaskOn() bool { return !s.Cfg.NoHungTask }

// HungTaskTimeout is the timed check's timeout (knob hung-task-timeout); 0
// when there is no timed check (or no detector).
func (s *Sched) HungTaskTimeout() sim.Duration {
	if s.Cfg.NoHungTask {
		return 0
	}
	return s.Cfg.HungTaskTimeout
}

// hungTaskTimeouts are the values of knob hung-task-timeout, the default
// first: the knob's Values are their names.
var hungTaskTimeouts = []struct {
	name string
	d    sim.Duration
}{{"10ms", 10 * sim.Millisecond}, {"1ms", sim.Millisecond}, {"100ms", 100 * sim.Millisecond}, {"1s", sim.Second}, {"120s", 120 * sim.Second}, {"off", 0}}

// hungTaskTimeoutOf is the timeout the knob value names (0: off).
func hungTaskTimeoutOf(value string) sim.Duration {
	for _, v := range hungTaskTimeouts {
		if v.name == value {
			return v.d
		}
	}
	return 0
}

func hungTaskTimeoutValues() []string {
	var out []string
	for _, v := range hungTaskTimeouts {
		out = append(out, v.name)
	}
	return out
}

// hungTaskTimeoutKnob is khungtaskd's timeout, in the simulator's time scale.
var hungTaskTimeoutKnob = sim.KnobSpec{
	Name:   "hung-task-timeout",
	Values: hungTaskTimeoutValues(),
	Help: "the timed hung-task check (khungtaskd): a task asleep in TASK_UNINTERRUPTIBLE on a kernel wait (wait_var_event(), rcuwait_wait_event()) " +
		"for longer than this much virtual time is reported as the hung-task invariant even while other tasks still run, and the run ends there " +
		"(judged, with a result: a hang is not left to run into the time limit). The kernel's default, hung_task_timeout_secs=120 (value 120s), " +
		"is out of reach of a scenario: the run's time limit is 10s and scenarios last microseconds to milliseconds. The default, 10ms, scales it " +
		"to them: longer than any wait perf itself makes a task sleep in D (a remote task's return to user, a grace period, a fork's teardown: " +
		"microseconds), shorter than a run is allowed to last; a scenario that makes such a wait last longer on purpose sets a larger value. " +
		"The same bound is the soft-lockup oracle's livelock bound (kernel/watchdog.c, 2*watchdog_thresh=20s in the kernel): a CPU spinning in a kernel " +
		"spin-wait or retry loop (csd_lock_wait(), irq_work_sync(), task_function_call()'s -EAGAIN retry, event_function_call()'s and perf_install_in_context()'s retries) that long is reported as soft-lockup and the run ends. " +
		"off keeps only the end-of-run check (every other task exited or blocked) and no lockup bound. hung-task=off turns all of them off",
	Source:  "kernel/hung_task.c: watchdog() -> check_hung_uninterruptible_tasks(timeout), check_hung_task(); CONFIG_DEFAULT_HUNG_TASK_TIMEOUT=120; kernel/watchdog.c: watchdog_timer_fn()",
	Package: "sched",
	Config:  true,
}

// forkFailed undoes what copy_process() did for a child that will not run:
// its fd table (the copy dup_fd() made is closed, each last fput() queued on
// current, the parent), the cgroup's population, the shared mm's user count.
// kernel/fork.c: copy_process() bad_fork_* labels (exit_files(p), cgroup_cancel_fork(), mmput())
func (s *Sched) forkFailed(t, c *Task, flags uint64) {
	if fl := c.Files; fl != nil && fl.Users > 0 {
		if fl.Users--; fl.Users == 0 {
			for _, f := range fl.CloseAll() {
				s.fput(t, f) // fput() from the parent: ____fput runs as its task work
			}
		}
	}
	if cg := c.Cgroup(); cg.nrTasks > 0 {
		cg.nrTasks--
	}
	if flags&CLONE_VM != 0 && c.MM != nil {
		c.MM.Users--
	}
}
