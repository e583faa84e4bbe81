package sched

import (
	"perfsim/uapi"
)

// Signal generation and delivery as kernel/signal.c has them: each process
// has its dispositions (sighand->action: SIG_DFL, SIG_IGN or a handler;
// shared by CLONE_SIGHAND threads, copied at fork, handlers reset to SIG_DFL
// at exec), a shared pending queue for process-directed signals
// (signal->shared_pending) besides each thread's own, and a process group.
// A signal is dropped at generation when the process is dying or ignores it
// (prepare_signal()); a standard signal already pending is not queued twice
// (legacy_queue()); a queued signal takes a sigqueue counted against the
// user's RLIMIT_SIGPENDING, which a real-time signal may not exceed
// (-EAGAIN, the caller's to handle: send_sigio_to_task() falls back to
// SIGIO), while a standard one overrides it or loses its siginfo. A signal
// whose default action is to terminate takes the whole group down at once
// (complete_signal()); a core-dumping one when it is dequeued (get_signal()
// -> do_group_exit()). A thread's blocked mask (rt_sigprocmask(),
// signal_mask.go) keeps a signal pending, never ignored, until it is
// unblocked. Job control stops and ptrace are not modelled.

// Signal numbers beyond SIGIO, SIGTRAP, SIGUSR1/2 and SIGCHLD
// (include/uapi/asm-generic/signal.h).
const (
	SIGHUP   = 1
	SIGINT   = 2
	SIGQUIT  = 3
	SIGILL   = 4
	SIGABRT  = 6
	SIGBUS   = 7
	SIGFPE   = 8
	SIGKILL  = 9
	SIGSEGV  = 11
	SIGPIPE  = 13
	SIGALRM  = 14
	SIGTERM  = 15
	SIGCONT  = 18
	SIGSTOP  = 19
	SIGTSTP  = 20
	SIGTTIN  = 21
	SIGTTOU  = 22
	SIGURG   = 23
	SIGXCPU  = 24
	SIGXFSZ  = 25
	SIGWINCH = 28
	SIGSYS   = 31
	SIGPOLL  = SIGIO
	SI_USER  = 0  // kill()
	SI_SIGIO = -5 // send_sigio_to_task() for a signal with specific si_codes
	SI_QUEUE = -1
	SI_TKILL = -6 // tgkill(), raise()
	POLL_OUT = 2
	POLL_MSG = 3
	POLL_PRI = 5
)

// SigHandler is sa_handler: SIG_DFL, SIG_IGN, or a handler the program installed.
type SigHandler uint8

// Dispositions.
const (
	SigDfl     SigHandler = iota // SIG_DFL: the default action
	SigIgn                       // SIG_IGN
	SigHandled                   // a handler: its body runs in user mode
)

// SigAction is one entry of sighand->action.
type SigAction struct {
	Handler SigHandler
	Body    []Op   // the handler's body (SigHandled)
	Flags   uint64 // sa_flags: SA_RESTART is the one the model reads (signal_restart.go)
}

// sighandStruct is struct sighand_struct: the dispositions, shared by the
// tasks cloned with CLONE_SIGHAND.
type sighandStruct struct {
	action [NSIG + 1]SigAction
}

// signalStruct is the part of struct signal_struct the signal code reads:
// the shared pending queue, the process group, RLIMIT_SIGPENDING and how a
// fatal signal ended the group.
type signalStruct struct {
	shared    []Signal // shared_pending
	pgid      int      // pids[PIDTYPE_PGID]
	rlimSigpe uint64   // rlim[RLIMIT_SIGPENDING].rlim_cur
	exitSig   int      // group_exit_code's signal when a signal killed the group
	coreDump  bool     // ... with a core dump (the 0x80 bit)
	curTarget *Task    // curr_target: where complete_signal() starts looking
}

// DefaultRlimitSigpending is RLIMIT_SIGPENDING as init sets it
// (max_threads/2, from the memory size): `ulimit -i` on this machine.
// kernel/fork.c: fork_init() "init_task.signal->rlim[RLIMIT_SIGPENDING]"
const DefaultRlimitSigpending = 96365

// PidType is enum pid_type: whom a signal is sent to.
type PidType uint8

// The pid types send_sigio() and kill() use.
const (
	PIDTYPE_PID  PidType = iota // a thread (F_OWNER_TID)
	PIDTYPE_TGID                // a process (F_SETOWN pid)
	PIDTYPE_PGID                // each process of a group (F_SETOWN -pgid)
)

// sigstruct returns t's signal_struct, made on first use for the tasks the
// machine starts with: each its own process group (setsid() as a job
// leader), RLIMIT_SIGPENDING at init's.
func (t *Task) sigstruct() *signalStruct {
	l := t.Leader()
	if l.sig == nil {
		l.sig = &signalStruct{pgid: l.PID, rlimSigpe: DefaultRlimitSigpending}
	}
	if t.sig != l.sig {
		t.sig = l.sig
	}
	return t.sig
}

// sighand returns t's sighand_struct, made on first use (all SIG_DFL).
func (t *Task) sighand() *sighandStruct {
	if t.sigh == nil {
		if l := t.Leader(); l != t && l.sigh != nil {
			t.sigh = l.sigh
		} else {
			t.sigh = &sighandStruct{}
		}
	}
	return t.sigh
}

// defaultSighand reports that t's sighand_struct is not made yet and, once
// made, is t's own with every action SIG_DFL (t leads its thread group: it
// shares no leader's).
func (t *Task) defaultSighand() bool { return t.sigh == nil && t.Leader() == t }

// forkSignals gives the child of a fork its signal state: CLONE_SIGHAND
// shares the dispositions, otherwise they are copied (copy_sighand());
// CLONE_THREAD shares the signal_struct, otherwise a new one inherits the
// process group and the rlimits (copy_signal(); attach_pid(PIDTYPE_PGID)).
// kernel/fork.c: copy_sighand(), copy_signal(), copy_process()
func (s *Sched) forkSignals(t, c *Task, flags uint64) {
	c.blocked = t.blocked // dup_task_struct(): the blocked mask is the parent's
	switch {
	case flags&CLONE_SIGHAND != 0:
		c.sigh = t.sighand()
	case t.defaultSighand() && flags&CLONE_THREAD == 0:
		// a copy of dispositions all SIG_DFL that nothing else shares:
		// the child's own, made on first use as t's is
	default:
		h := *t.sighand()
		c.sigh = &h
	}
	ps := t.sigstruct()
	if flags&CLONE_THREAD != 0 {
		c.sig = ps
		return
	}
	c.sig = &signalStruct{pgid: ps.pgid, rlimSigpe: ps.rlimSigpe}
}

// flushSignalHandlers is exec's reset of the handlers to SIG_DFL (SIG_IGN
// stays); a sighand shared with another process is first unshared.
// kernel/signal.c: flush_signal_handlers(); fs/exec.c: unshare_sighand()
func (s *Sched) flushSignalHandlers(t *Task) {
	if t.defaultSighand() {
		return // all SIG_DFL already, and t's own once made
	}
	h := *t.sighand()
	for i := range h.action {
		if h.action[i].Handler == SigHandled {
			h.action[i] = SigAction{}
		}
	}
	t.sigh = &h
}

// Sigaction is rt_sigaction(sig, act, NULL) from t: EINVAL for an invalid
// signal or one whose action cannot change (SIGKILL, SIGSTOP). Setting
// SIG_IGN, or SIG_DFL where the default is to ignore, discards that signal
// where it is pending ("POSIX 3.3.1.3").
// kernel/signal.c: do_sigaction()
func (s *Sched) Sigaction(t *Task, sig int, act SigAction) uapi.Errno {
	if sig < 1 || sig > NSIG || sig == SIGKILL || sig == SIGSTOP { // "!valid_signal(sig) || sig < 1 || (act && sig_kernel_only(sig))"
		return uapi.EINVAL
	}
	t.sighand().action[sig] = act
	if sigHandlerIgnored(act.Handler, sig) {
		ss := t.sigstruct()
		ss.shared = s.flushSig(ss.shared, sig)
		for _, th := range s.threadGroup(t) {
			th.signals = s.flushSig(th.signals, sig)
		}
	}
	return 0
}

// SigactionOf returns t's disposition of sig.
func (t *Task) SigactionOf(sig int) SigAction {
	if sig < 1 || sig > NSIG {
		return SigAction{}
	}
	return t.action(sig)
}

// action is t's disposition of sig, read without making t's sighand_struct.
func (t *Task) action(sig int) SigAction {
	if t.defaultSighand() {
		return SigAction{} // SIG_DFL
	}
	return t.sighand().action[sig]
}

// flushSig drops sig from a pending queue, freeing its sigqueues.
func (s *Sched) flushSig(q []Signal, sig int) []Signal {
	out := q[:0]
	for _, p := range q {
		if p.Sig == sig {
			s.sigqueueFree(p)
			continue
		}
		out = append(out, p)
	}
	return out
}

// sigKernelIgnore, sigKernelCoredump, sigKernelStop, sigSpecificSicodes are
// SIG_KERNEL_IGNORE_MASK, SIG_KERNEL_COREDUMP_MASK, SIG_KERNEL_STOP_MASK and
// SIG_SPECIFIC_SICODES_MASK (include/linux/signal.h).
func sigKernelIgnore(sig int) bool {
	return sig == SIGCONT || sig == SIGCHLD || sig == SIGWINCH || sig == SIGURG
}

func sigKernelCoredump(sig int) bool {
	switch sig {
	case SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSEGV, SIGBUS, SIGSYS, SIGXCPU, SIGXFSZ:
		return true
	}
	return false
}

func sigKernelStop(sig int) bool {
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU
}

// SigSpecificSicodes reports whether sig has si_codes of its own, so that
// send_sigio_to_task() sends it with SI_SIGIO instead of POLL_*.
func SigSpecificSicodes(sig int) bool {
	switch sig {
	case SIGILL, SIGFPE, SIGSEGV, SIGBUS, SIGTRAP, SIGCHLD, SIGPOLL, SIGSYS:
		return true
	}
	return false
}

// sigHandlerIgnored is sig_handler_ignored().
func sigHandlerIgnored(h SigHandler, sig int) bool {
	return h == SigIgn || (h == SigDfl && sigKernelIgnore(sig))
}

// sigFatal is sig_fatal(): the default action, which terminates.
func sigFatal(t *Task, sig int) bool {
	return !sigKernelIgnore(sig) && !sigKernelStop(sig) && t.action(sig).Handler == SigDfl
}

// SendSignalTo is do_send_sig_info(sig, info, p, type) ->
// __send_signal_locked(): it reports whether the signal was queued, and
// EAGAIN when a real-time signal found the RLIMIT_SIGPENDING queue full
// (nothing is sent then). A SIGKILL-like group kill by a fatal default
// action happens here (complete_signal()).
// kernel/signal.c: __send_signal_locked(), prepare_signal(), complete_signal()
func (s *Sched) SendSignalTo(t *Task, sig Signal, typ PidType) (bool, uapi.Errno) {
	// A process signal to an exited (zombie) leader still reaches the group
	// while a thread lives: the leader keeps the TGID's struct pid until
	// release_task(), and complete_signal() picks a live thread.
	s.accessSendSignal(t, typ, sig.Handler != nil) // footprint_signal.go
	if t.exited() && (typ == PIDTYPE_PID || s.othersExited(t)) {
		return false, 0
	}
	if sig.Handler != nil {
		// a sender that knows the handler (perf's own signal() calls, a
		// test): the process installed it before
		t.sighand().action[sig.Sig] = SigAction{Handler: SigHandled, Body: sig.Handler, Flags: sig.SaFlags}
		s.accessInstall(t) // footprint_signal.go
	}
	// prepare_signal(): a dying group takes nothing; an ignored signal is dropped
	// sig_ignored(): "Blocked signals are never ignored, since the signal
	// handler may change by the time it is unblocked."
	if t.Leader().fam.groupExit || !t.sigBlocked(sig.Sig) && sigHandlerIgnored(t.action(sig.Sig).Handler, sig.Sig) {
		return false, 0
	}
	ss := t.sigstruct()
	pending := &t.signals
	if typ != PIDTYPE_PID {
		pending = &ss.shared
	}
	if sig.Sig < SIGRTMIN { // legacy_queue()
		for _, p := range *pending {
			if p.Sig == sig.Sig {
				return false, 0
			}
		}
	}
	// sigqueue_alloc(): "sigpending > task_rlimit(t, RLIMIT_SIGPENDING)"
	// fails unless override_rlimit (a standard signal from the kernel)
	override := sig.Sig < SIGRTMIN && sig.Code >= 0
	if !override && uint64(s.sigpending)+1 > ss.rlimSigpe {
		s.accessSigOverflow() // footprint_signal.go
		s.SigqueueOverflows++
		if sig.Sig >= SIGRTMIN && sig.Code != SI_USER {
			return false, uapi.EAGAIN // "Queue overflow, abort."
		}
		// "This is a silent loss of information": the signal without its siginfo
		sig = Signal{Sig: sig.Sig, Handler: sig.Handler}
	} else {
		s.sigpending++
		sig.counted = true
	}
	*pending = append(*pending, sig)
	s.completeSignal(t, sig.Sig, typ)
	return true, 0
}

// completeSignal finds a thread to take the signal and wakes it; a fatal
// signal that dumps no core takes the whole group down at once.
// kernel/signal.c: complete_signal(), wants_signal()
func (s *Sched) completeSignal(p *Task, sig int, typ PidType) {
	wants := func(t *Task) bool {
		s.accessWantsSignal(t) // footprint_signal.go
		if t.sigBlocked(sig) {
			return false // sigismember(&p->blocked, sig)
		}
		if t.State == Dead || t.exited() || t.fam.exiting {
			return false // PF_EXITING
		}
		return t.CPU() != nil && TaskOf(t.CPU().Curr()) == t || !t.SigPending // task_curr(p) || !task_sigpending(p)
	}
	ss := p.sigstruct()
	var t *Task
	switch {
	case wants(p):
		t = p
	case typ == PIDTYPE_PID || len(s.threadGroup(p)) == 1:
		return
	default:
		group := s.threadGroup(p)
		start := 0
		for i, th := range group {
			if th == ss.curTarget {
				start = i
			}
		}
		for i := range group {
			if th := group[(start+i)%len(group)]; wants(th) {
				t = th
				break
			}
		}
		if t == nil {
			return
		}
		ss.curTarget = t
	}
	fatal := sigFatal(p, sig) && !p.Leader().fam.groupExit && !sigKernelCoredump(sig)
	s.accessCompleteSignal(t, typ != PIDTYPE_PID, fatal) // footprint_signal.go
	if fatal {
		// "This signal will be fatal to the whole group."
		l := p.Leader()
		l.fam.groupExit = true
		ss.exitSig = sig
		s.Killed = append(s.Killed, DeliveredSignal{Task: t, Signal: Signal{Sig: sig}, At: s.M.Now()})
		for _, th := range s.threadGroup(p) {
			if th.State == Dead || th.exited() {
				continue
			}
			th.fam.killed = true // sigaddset(&t->pending.signal, SIGKILL)
			th.SigPending = true
			s.kickTask(th)
		}
		return
	}
	t.SigPending = true // signal_wake_up()
	s.kickTask(t)
}

// sigqueueFree is __sigqueue_free(): the user's pending count drops.
func (s *Sched) sigqueueFree(sig Signal) {
	if sig.counted {
		s.sigpending--
	}
}

// Sigpending is the user's count of queued signals (UCOUNT_RLIMIT_SIGPENDING;
// every task runs as root).
func (s *Sched) Sigpending() int { return s.sigpending }

// SetRlimitSigpending is prlimit64(0, RLIMIT_SIGPENDING, {n, n}, NULL) from t.
// kernel/sys.c: do_prlimit()
func (s *Sched) SetRlimitSigpending(t *Task, n uint64) {
	t.sigstruct().rlimSigpe = n
}

// dequeueSignal takes the next signal t does not block: its own queue
// first, then the process's; in each the synchronous signals first, then
// the lowest number, the oldest of that number.
// kernel/signal.c: dequeue_signal(), next_signal(), collect_signal()
func (s *Sched) dequeueSignal(t *Task) (Signal, bool) {
	for _, q := range []*[]Signal{&t.signals, &t.sigstruct().shared} {
		best := -1
		for i, p := range *q {
			if t.sigBlocked(p.Sig) {
				continue // next_signal(pending, &tsk->blocked): not a blocked one
			}
			if best < 0 || sigBefore(p.Sig, (*q)[best].Sig) {
				best = i
			}
		}
		if best >= 0 {
			sig := (*q)[best]
			*q = append((*q)[:best:best], (*q)[best+1:]...)
			s.accessSigqueueFree(t, sig) // footprint_signal.go
			s.sigqueueFree(sig)
			return sig, true
		}
	}
	return Signal{}, false
}

// sigBefore is next_signal()'s order: SYNCHRONOUS_MASK first, then by number.
func sigBefore(a, b int) bool {
	sa, sb := isSynchronous(a), isSynchronous(b)
	if sa != sb {
		return sa
	}
	return a < b
}

func isSynchronous(sig int) bool {
	switch sig {
	case SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGSYS:
		return true
	}
	return false
}

// recalcSigpending is recalc_sigpending(): TIF_SIGPENDING while t or its
// process has a signal pending that t does not block.
// kernel/signal.c: recalc_sigpending_tsk(): PENDING(&t->pending, &t->blocked)
func (t *Task) recalcSigpending() {
	t.SigPending = t.unblockedIn(t.signals) || t.unblockedIn(t.sigstruct().shared)
}

// ExitSignal returns the signal that ended t's process by its default
// action (0: it exited), and whether it dumped core.
func (t *Task) ExitSignal() (int, bool) {
	ss := t.Leader().sig // read only: a process no signal reached has none made
	if ss == nil {
		return 0, false
	}
	return ss.exitSig, ss.coreDump
}

// Pgid returns the process group of t's process.
func (t *Task) Pgid() int { return t.sigstruct().pgid }

// processGroup returns the live processes (their leaders) of group pgid:
// do_each_pid_task(pid, PIDTYPE_PGID, p).
func (s *Sched) processGroup(pgid int) []*Task {
	var out []*Task
	for _, t := range s.Tasks {
		if t.Leader() == t && !t.fam.reaped && t.sig != nil && t.sig.pgid == pgid {
			out = append(out, t)
		} else if t.Leader() == t && !t.fam.reaped && t.sig == nil && t.PID == pgid {
			out = append(out, t)
		}
	}
	return out
}

// KillPgrp sends sig to each process of group pgid (group-directed), and
// reports whether any was found.
// kernel/signal.c: __kill_pgrp_info()
func (s *Sched) KillPgrp(pgid int, sig Signal) bool {
	ps := s.processGroup(pgid)
	for _, p := range ps {
		_, _ = s.SendSignalTo(p, sig, PIDTYPE_PGID)
	}
	return len(ps) > 0
}

// Kill is kill(p's pid, sig) from t's annotated user code (perf record's
// SIGTERM to its workload): a process-directed SI_USER signal, which a
// zombie takes silently (kill() still returns 0). Every task runs as
// root: check_kill_permission() passes. The send annotates itself
// (footprint_signal.go: accessSendSignal).
// kernel/signal.c: SYSCALL_DEFINE2(kill) -> kill_proc_info() -> kill_pid_info() -> group_send_sig_info()
func (s *Sched) Kill(t, p *Task, sig int) {
	s.SyscallAnnotated(t, "kill", func(*Task) {
		_, _ = s.SendSignalTo(p.Leader(), Signal{Sig: sig, Code: SI_USER}, PIDTYPE_TGID)
	})
}

// RaiseDefault is signal(sig, SIG_DFL); raise(sig) from t's annotated
// user code (perf record's record__sig_exit() at exit): rt_sigaction()
// resets the disposition, then tgkill() sends sig to t itself, whose
// default action, fatal, ends t's process on the way back to user mode.
// kernel/signal.c: do_sigaction(); SYSCALL_DEFINE3(tgkill) -> do_tkill() -> do_send_specific()
func (s *Sched) RaiseDefault(t *Task, sig int) {
	s.SyscallAnnotated(t, "rt_sigaction", func(t *Task) {
		s.accessSigaction(t, sigHandlerIgnored(SigDfl, sig)) // footprint_signal.go
		_ = s.Sigaction(t, sig, SigAction{Handler: SigDfl})
	})
	s.SyscallAnnotated(t, "tgkill", func(t *Task) {
		_, _ = s.SendSignalTo(t, Signal{Sig: sig, Code: SI_TKILL}, PIDTYPE_PID)
	})
}

// ProcessGroup returns the processes of group pgid (their leaders).
func (s *Sched) ProcessGroup(pgid int) []*Task { return s.processGroup(pgid) }

// findTask is find_task_by_vpid(): a task not yet released.
func (s *Sched) findTask(pid int) *Task {
	for _, t := range s.Tasks {
		if t.TID == pid && !t.fam.reaped {
			return t
		}
	}
	return nil
}

// PidExists is find_vpid(nr) != NULL: some task, process group leader or
// group still uses the number.
func (s *Sched) PidExists(nr int) bool {
	if s.findTask(nr) != nil {
		return true
	}
	return len(s.processGroup(nr)) > 0
}

// setpgid is setpgid(pid, pgid) from t: pid 0 is t's process, pgid 0 its
// pid; the target is t's process or a child of it in its session, a process
// (not a thread), and the group must exist unless it is the target's own
// pid. The model has one session and no session leaders among its tasks,
// and does not track PF_FORKNOEXEC (a child that exec'd: EACCES).
// kernel/sys.c: SYSCALL_DEFINE2(setpgid)
func (s *Sched) setpgid(t *Task, pid, pgid int64) int64 {
	if pid == 0 {
		pid = int64(t.PID)
	}
	if pgid == 0 {
		pgid = pid
	}
	if pgid < 0 {
		return errno(uapi.EINVAL)
	}
	p := s.findTask(int(pid))
	if p == nil || p.State == Dead {
		return errno(uapi.ESRCH)
	}
	if p.Leader() != p {
		return errno(uapi.EINVAL) // "if (!thread_group_leader(p)) goto out;" (err = -EINVAL)
	}
	if p.Leader() != t.Leader() {
		if par := p.fam.parent; par == nil || par.Leader() != t.Leader() {
			return errno(uapi.ESRCH) // neither us nor our child
		}
	}
	if pgid != pid && len(s.processGroup(int(pgid))) == 0 {
		return errno(uapi.EPERM) // "find_task_by_pid_type(PIDTYPE_PGID, pgrp)" in our session
	}
	p.sigstruct().pgid = int(pgid) // change_pid(group_leader, PIDTYPE_PGID, pgrp)
	return 0
}

// getpgid is getpgid(pid): pid 0 is t.
// kernel/sys.c: do_getpgid()
func (s *Sched) getpgid(t *Task, pid int64) int64 {
	p := t
	if pid != 0 {
		p = s.findTask(int(pid))
		if p == nil || p.exited() {
			return errno(uapi.ESRCH)
		}
	}
	return int64(p.sigstruct().pgid)
}

func init() {
	sysModels["setpgid"] = func(s *Sched, t *Task, a *[6]uint64) int64 {
		return s.setpgid(t, int64(int32(a[0])), int64(int32(a[1])))
	}
	sysModels["getpgid"] = func(s *Sched, t *Task, a *[6]uint64) int64 { return s.getpgid(t, int64(int32(a[0]))) }
	sysModels["getpgrp"] = func(s *Sched, t *Task, a *[6]uint64) int64 { return s.getpgid(t, 0) }
	sysModels["rt_sigaction"] = sysRtSigaction
	sysModels["rt_sigprocmask"] = sysRtSigprocmask
	sysModels["prlimit64"] = sysPrlimit64
}

// RLIMIT_SIGPENDING is the resource number (include/uapi/asm-generic/resource.h).
const RLIMIT_SIGPENDING = 11

// userWord reads the little-endian 64-bit word at offset off of the user
// struct at addr (copy_from_user()).
func userWord(t *Task, addr uint64, off int) (uint64, bool) {
	b, ok := t.MM.String(addr)
	if !ok || len(b) < off+8 {
		return 0, false
	}
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[off+i])
	}
	return v, true
}

// UserStruct encodes 64-bit words as a struct a program passes by address
// (a SysArg string: the task puts it in user memory).
func UserStruct(words ...uint64) SysArg {
	b := make([]byte, 0, 8*len(words))
	for _, w := range words {
		for i := 0; i < 8; i++ {
			b = append(b, byte(w>>(8*i)))
		}
	}
	return SysArg{Str: string(b), IsStr: true}
}

// sysRtSigaction is rt_sigaction(sig, act, oact, sigsetsize) with act a
// struct kernel_sigaction: sa_handler 0 is SIG_DFL, 1 SIG_IGN, any other
// value a handler (whose body the model takes as empty); sa_flags next.
// kernel/signal.c: SYSCALL_DEFINE4(rt_sigaction) -> do_sigaction()
func sysRtSigaction(s *Sched, t *Task, a *[6]uint64) int64 {
	if a[3] != 8 { // "if (sigsetsize != sizeof(sigset_t)) return -EINVAL;"
		return errno(uapi.EINVAL)
	}
	sig := int(int32(a[0]))
	if a[1] == 0 { // a query: nothing to change
		if sig < 1 || sig > NSIG {
			return errno(uapi.EINVAL)
		}
		return 0
	}
	h, ok := userWord(t, a[1], 0)
	if !ok {
		return errno(uapi.EFAULT)
	}
	flags, ok := userWord(t, a[1], 8)
	if !ok {
		return errno(uapi.EFAULT)
	}
	act := SigAction{Handler: SigHandled, Flags: flags}
	switch h {
	case 0:
		act.Handler = SigDfl
	case 1:
		act.Handler = SigIgn
	}
	return errno(s.Sigaction(t, sig, act))
}

// sysPrlimit64 is prlimit64(pid, resource, new, old) on t's own process:
// RLIMIT_SIGPENDING is the one limit the model keeps; raising it past the
// hard limit needs CAP_SYS_RESOURCE, which root has. Another resource's new
// value is accepted and not kept.
// kernel/sys.c: SYSCALL_DEFINE4(prlimit64) -> do_prlimit()
func sysPrlimit64(s *Sched, t *Task, a *[6]uint64) int64 {
	if pid := int32(a[0]); pid != 0 && int(pid) != t.PID {
		if p := s.findTask(int(pid)); p == nil || p.exited() {
			return errno(uapi.ESRCH)
		}
		t = s.findTask(int(pid))
	}
	if a[1] >= 16 { // RLIM_NLIMITS
		return errno(uapi.EINVAL)
	}
	if a[2] == 0 {
		return 0
	}
	cur, ok1 := userWord(t, a[2], 0)
	max, ok2 := userWord(t, a[2], 8)
	if !ok1 || !ok2 {
		return errno(uapi.EFAULT)
	}
	if cur > max { // "if (new_rlim->rlim_cur > new_rlim->rlim_max) return -EINVAL;"
		return errno(uapi.EINVAL)
	}
	if a[1] == RLIMIT_SIGPENDING {
		s.SetRlimitSigpending(t, cur)
	}
	return 0
}

// exitSignal frees what the dead task had pending, and the process's shared
// queue with its last thread.
// kernel/exit.c: __exit_signal() -> flush_sigqueue()
func (s *Sched) exitSignal(t *Task, groupDead bool) {
	for _, p := range t.signals {
		s.sigqueueFree(p)
	}
	t.signals = nil
	if groupDead {
		ss := t.sigstruct()
		for _, p := range ss.shared {
			s.sigqueueFree(p)
		}
		ss.shared = nil
	}
}

// Exiting reports PF_EXITING: t is in do_exit() (exit_signals() set it).
func (t *Task) Exiting() bool { return t.fam.exiting }
