package sched

import "perfsim/uapi"

// A thread's blocked mask (t->blocked): a blocked signal is never ignored
// at generation, no thread that blocks it is woken for it, it stays
// pending and is not dequeued until the thread unblocks it
// (rt_sigprocmask()), which sets TIF_SIGPENDING so that the return to user
// takes it. SIGKILL and SIGSTOP cannot be blocked. fork() and clone()
// copy the mask (dup_task_struct()); exec keeps it.

// The how of rt_sigprocmask() (include/uapi/asm-generic/signal-defs.h).
const (
	SIG_BLOCK   = 0
	SIG_UNBLOCK = 1
	SIG_SETMASK = 2
)

// SigMask is the bit of sig in a sigset_t, as rt_sigprocmask()'s set holds
// it: the kernel's sigmask(sig) = 1 << (sig - 1) (0 for no valid signal).
func SigMask(sig int) uint64 {
	if sig < 1 || sig > NSIG {
		return 0
	}
	return 1 << uint(sig-1)
}

// sigBlocked is sigismember(&t->blocked, sig).
func (t *Task) sigBlocked(sig int) bool { return t.blocked&SigMask(sig) != 0 }

// SigBlocked reports whether t blocks sig (perf's send_sig_perf() tells
// the handler so: TRAP_PERF_FLAG_ASYNC).
func (t *Task) SigBlocked(sig int) bool { return t.sigBlocked(sig) }

// unblockedIn reports whether q holds a signal t does not block
// (PENDING(q, &t->blocked)).
func (t *Task) unblockedIn(q []Signal) bool {
	for _, p := range q {
		if !t.sigBlocked(p.Sig) {
			return true
		}
	}
	return false
}

// setCurrentBlocked is __set_current_blocked(): the new mask, less SIGKILL
// and SIGSTOP; a process signal pending that t now blocks is handed to a
// thread that does not (retarget_shared_pending()); TIF_SIGPENDING is
// recalculated, so a signal t unblocked is taken on its way back to user.
// kernel/signal.c: __set_current_blocked(), __set_task_blocked()
func (s *Sched) setCurrentBlocked(t *Task, mask uint64) {
	mask &^= SigMask(SIGKILL) | SigMask(SIGSTOP) // sigdelsetmask(newset, sigmask(SIGKILL)|sigmask(SIGSTOP))
	newly := mask &^ t.blocked
	t.blocked = mask
	if newly != 0 && t.SigPending {
		s.retargetSharedPending(t, newly)
	}
	t.recalcSigpending()
}

// retargetSharedPending is retarget_shared_pending(): each process signal
// pending in which that t has just blocked wakes another thread of the
// group that does not block it, as complete_signal() would have chosen.
// kernel/signal.c: retarget_shared_pending()
func (s *Sched) retargetSharedPending(t *Task, which uint64) {
	ss := t.sigstruct()
	var pending uint64
	for _, p := range ss.shared {
		pending |= SigMask(p.Sig)
	}
	retarget := pending & which
	for _, th := range s.threadGroup(t) {
		if retarget == 0 {
			return
		}
		if th == t || th.fam.exiting || th.exited() {
			continue
		}
		// "Remove the signals this thread can handle."
		if took := retarget &^ th.blocked; took != 0 {
			retarget &^= took
			if !th.SigPending {
				th.SigPending = true // signal_wake_up(t, 0)
				s.kickTask(th)
			}
		}
	}
}

// sysRtSigprocmask is rt_sigprocmask(how, set, oset, sigsetsize) from t: a
// set (a user struct, one 64-bit word) blocked, unblocked or made the mask.
// The old mask is not written back: no program of the model reads oset.
// kernel/signal.c: SYSCALL_DEFINE4(rt_sigprocmask) -> sigprocmask()
func sysRtSigprocmask(s *Sched, t *Task, a *[6]uint64) int64 {
	if a[3] != 8 { // "if (sigsetsize != sizeof(sigset_t)) return -EINVAL;"
		return errno(uapi.EINVAL)
	}
	if a[1] == 0 {
		return 0 // a query of the old mask
	}
	set, ok := userWord(t, a[1], 0)
	if !ok {
		return errno(uapi.EFAULT)
	}
	var mask uint64
	switch a[0] {
	case SIG_BLOCK:
		mask = t.blocked | set
	case SIG_UNBLOCK:
		mask = t.blocked &^ set
	case SIG_SETMASK:
		mask = set
	default:
		return errno(uapi.EINVAL)
	}
	s.setCurrentBlocked(t, mask)
	return 0
}

// ForceSigInfo is force_sig_info_to_task(info, t, HANDLER_CURRENT): a
// signal the task may not refuse. If t blocks or ignores it, its action
// is reset to SIG_DFL and, if blocked, it is unblocked; then it is sent.
// perf's SIGTRAP went this way before 78ed93d72ded (the knob sigtrap-send).
// kernel/signal.c: force_sig_info_to_task()
func (s *Sched) ForceSigInfo(t *Task, sig Signal) {
	blocked := t.sigBlocked(sig.Sig)
	if blocked || t.action(sig.Sig).Handler == SigIgn {
		h := t.sighand()
		s.accessForceSig(t, blocked)    // footprint_signal.go
		h.action[sig.Sig] = SigAction{} // action->sa.sa_handler = SIG_DFL
		if blocked {
			t.blocked &^= SigMask(sig.Sig) // sigdelset(&t->blocked, sig); recalc_sigpending_and_wake(t)
			t.recalcSigpending()
		}
	}
	s.SendSignal(t, sig)
}
