package sched

// de_thread(): an exec by one thread of a multi-threaded process first makes
// it the only thread. The others are sent SIGKILL (zap_other_threads()) and
// exit on their way to user mode (each do_exit(): perf_event_exit_task(),
// PERF_RECORD_EXIT); the exec'ing thread sleeps (TASK_KILLABLE) until the
// last of them has exited; and when it is not the group leader it takes
// the leader's place once the leader is a zombie: its tid becomes the pid
// (exchange_tids()), the old leader is released (release_task()), and the
// exec'ing thread is its parent's child from then on.
// fs/exec.c: de_thread()

// deThread runs de_thread() for t (at the start of begin_new_exec()).
func (s *Sched) deThread(t *Task) {
	l := t.Leader()
	others := false
	for _, th := range s.threadGroup(t) {
		if th != t && !th.exited() {
			others = true
		}
	}
	if !others && t == l {
		return
	}
	l.fam.groupExec = t // sig->group_exec_task = tsk
	for _, th := range s.threadGroup(t) {
		if th == t || th.exited() {
			continue
		}
		// zap_other_threads(): SIGKILL, signal_wake_up()
		th.fam.killed = true
		th.SigPending = true
		s.kickTask(th)
	}
	// "while (sig->notify_count)" / "if (likely(leader->exit_state)) break;":
	// woken by each exit (exitNotify)
	for !s.othersExited(t) {
		t.Step("de_thread:wait")
		t.fam.uninterruptible = true // TASK_KILLABLE: D
		t.State = Sleeping
		s.schedule(&t.Thread)
		t.fam.uninterruptible = false
	}
	l.fam.groupExec = nil
	if t != l {
		s.takeLeadership(t, l)
	}
}

// exited reports whether t has an exit_state (a zombie, or released).
func (t *Task) exited() bool { return t.fam.zombie || t.fam.reaped || t.State == Dead }

// othersExited reports whether every other thread of t's group has exited.
func (s *Sched) othersExited(t *Task) bool {
	for _, th := range s.threadGroup(t) {
		if th != t && !th.exited() {
			return false
		}
	}
	return true
}

// execWaiterWake is the exit side: "if (sig->notify_count > 0 &&
// !--sig->notify_count) wake_up_process(sig->group_exec_task)" (also for
// the leader turning zombie: exit_notify()).
// kernel/exit.c: __exit_signal(), exit_notify()
func (s *Sched) execWaiterWake(t *Task) {
	if w := t.Leader().fam.groupExec; w != nil && w != t && w.State == Sleeping && s.othersExited(w) {
		s.Wake(w)
	}
}

// takeLeadership makes t, a thread that exec'd, the group leader in place of
// the zombie l: t's tid becomes the pid, l's parent and children are t's,
// and l is released.
// fs/exec.c: de_thread() "exchange_tids(tsk, leader); transfer_pid(leader, tsk, PIDTYPE_TGID); ... release_task(leader)"
func (s *Sched) takeLeadership(t, l *Task) {
	t.TID = l.PID
	t.PPID, t.PTID = l.PPID, l.PTID
	t.fam.leader = nil
	t.fam.threads = nil
	t.fam.parent = l.fam.parent
	t.fam.children = append(l.fam.children, t.fam.children...)
	for _, ch := range t.fam.children {
		ch.fam.parent = t
	}
	if p := t.fam.parent; p != nil {
		for i, ch := range p.fam.children {
			if ch == l {
				p.fam.children[i] = t
			}
		}
	}
	l.fam.children = nil
	l.fam.threads = nil
	l.fam.reaped = true // release_task(leader)
}
