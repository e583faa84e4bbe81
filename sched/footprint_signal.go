package sched

import "perfsim/cpu"

// The footprint of signal generation and delivery (signal_disp.go,
// taskwork.go), so that the fragment that delivers a signal on the way
// back to user mode (exit_to_user_mode_loop -> arch_do_signal_or_restart()
// -> get_signal()) may be complete, and the senders' fragments conflict
// with it where they should:
//
//   - the sender (SendSignalTo: do_send_sig_info() -> __send_signal_locked(),
//     from kill(2), perf's perf_sigtrap() and kill_fasync(), perf record's
//     own signals): the target's exit state and its group's threads read,
//     the disposition read (written when the sender installs the
//     handler), SIGNAL_GROUP_EXIT read, the pending queue written (the
//     task's, task->pending, or the process's, signal->shared_pending, on
//     the leader, as __exit_signal() annotates them), the rlimit and the
//     user's sigpending count (inc_rlimit_get_ucounts(): its result
//     compared, a write); complete_signal(): each candidate thread's
//     state, PF_EXITING, task_curr() and TIF_SIGPENDING read, curr_target
//     written, TIF_SIGPENDING set on the one chosen (thread_info->flags,
//     which exit_to_user_mode_loop reads); a fatal signal's group kill
//     (SIGNAL_GROUP_EXIT, each thread's SIGKILL and flags, the log of
//     kills); signal_wake_up(): sched's annotated try_to_wake_up(), or
//     an IPI to the CPU the target runs on.
//   - the receiver (doSignal): TIF_NOTIFY_SIGNAL cleared, the task works
//     (each at its own step point; the return into get_signal() is
//     annotated, no longer marked), then under siglock the pending queues
//     read and written (dequeue_signal(), the sigqueue freed: the user's
//     count, an add), the group's flags and the disposition read,
//     TIF_SIGPENDING recalculated; a handled signal logged (Sched.Delivered,
//     an observable), the mode switch, and the handler's body run by
//     runOps (which marks each operation whose code nobody annotated: a
//     Go callback, OpCall; a CallAnnotated one is not); a fatal one
//     logged (Sched.Killed), group_exit_code written, do_group_exit() and
//     do_exit() (annotated: footprint_exit.go).

// sigLogKey is the model's logs of the signals tasks took and of the ones
// that killed a process (Sched.Delivered, Sched.Killed): observables, in
// the order the deliveries ran, so every append writes them; and the
// count of sends over RLIMIT_SIGPENDING (Sched.SigqueueOverflows, an
// observable the sender adds to).
type sigLogKey struct{ s *Sched }

// FootprintKey implements cpu.FootprintKeyer: a machine has one log.
func (sigLogKey) FootprintKey() string {
	return "the signals delivered (Sched.Delivered, Sched.Killed)"
}

// FootprintExtent is where the model keeps it (explore's write audit).
func (k sigLogKey) FootprintExtent() []any {
	return []any{&k.s.Delivered, &k.s.Killed, &k.s.SigqueueOverflows}
}

// accessSigLog annotates an append to the logs.
func (s *Sched) accessSigLog(c *cpu.CPU, fn string) {
	c.AccessMarkedOnly(sigLogKey{s}, "the signal log", cpu.MarkedWrite, fn) // the model's observable: which task took which signal, in order
}

// accessSendSignal annotates __send_signal_locked() and prepare_signal()
// for t, a signal of type typ (the process's queue unless PIDTYPE_PID);
// install says the sender installs the handler first (perf's own
// signals, a test's: the process's rt_sigaction() before).
// kernel/signal.c: do_send_sig_info(), prepare_signal(), __send_signal_locked()
func (s *Sched) accessSendSignal(t *Task, typ PidType, install bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := s.runningCPU()
	if c == nil {
		return
	}
	l := t.Leader()
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedRead, "do_send_sig_info")                 // kernel/signal.c: do_send_sig_info() -> lock_task_sighand(): p->sighand, NULL once __exit_signal() ran
	c.AccessMarkedOnly(signalLiveKey{l}, "signal->live", cpu.MarkedRead, "complete_signal") // kernel/signal.c: complete_signal(): the group's threads (while_each_thread())
	op := cpu.MarkedRead
	if install {
		op = cpu.MarkedWrite
	}
	c.AccessMarkedOnly(t, "sighand->action", sigCacheOp(t, op), "do_sigaction") // kernel/signal.c: do_sigaction(), sig_task_ignored(): t->sighand (the model's pointer, made on first use)
	if l.sig == nil {
		c.AccessMarkedOnly(l, "task->signal", cpu.MarkedWrite, "__send_signal_locked") // the model's signal_struct, made on first use (sigstruct)
	}
	if t.sig == nil || t.sig != l.sig {
		c.AccessMarkedOnly(t, "task->signal", cpu.MarkedWrite, "__send_signal_locked") // ... and t's pointer to it, set on first use
	}
	c.AccessMarkedOnly(l, "sighand->action", op, "prepare_signal")                 // kernel/signal.c: prepare_signal() -> sig_ignored() -> sig_task_ignored(): t->sighand->action[sig - 1]
	c.AccessMarkedOnly(l, "signal->flags", cpu.MarkedRead, "prepare_signal")       // kernel/signal.c: prepare_signal(): if (signal->flags & SIGNAL_GROUP_EXIT)
	c.AccessMarkedOnly(t, "task->blocked", cpu.MarkedRead, "sig_ignored")          // kernel/signal.c: sig_ignored(): if (sigismember(&t->blocked, sig) || ...) return false
	c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, "complete_signal") // kernel/signal.c: complete_signal() -> wants_signal(): task_sigpending(p)
	if typ == PIDTYPE_PID {
		c.AccessMarkedOnly(t, "task->pending", cpu.MarkedWrite, "__send_signal_locked") // kernel/signal.c: __send_signal_locked(): legacy_queue(); list_add_tail(&q->list, &pending->list); sigaddset(&pending->signal, sig)
	} else {
		c.AccessMarkedOnly(l, "signal->shared_pending", cpu.MarkedWrite, "__send_signal_locked") // kernel/signal.c: __send_signal_locked(): pending = &t->signal->shared_pending
		accessSharedQueue(c, l, "__send_signal_locked")
	}
	c.AccessMarkedOnly(l, "signal->rlim", cpu.MarkedRead, "__sigqueue_alloc")                                              // kernel/signal.c: __sigqueue_alloc(): task_rlimit(t, RLIMIT_SIGPENDING)
	c.AccessMarkedOnly(sigpendingKey{s}, "ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING]", cpu.MarkedWrite, "__sigqueue_alloc") // kernel/signal.c: __sigqueue_alloc(): inc_rlimit_get_ucounts(), its result compared with the limit
}

// accessSigOverflow annotates a send over RLIMIT_SIGPENDING: the model's
// count of them (an observable), written with the log's key.
func (s *Sched) accessSigOverflow() {
	if !s.M.FootprintListening() {
		return
	}
	if c := s.runningCPU(); c != nil {
		s.accessSigLog(c, "__sigqueue_alloc") // the model's count of sigqueue allocations over the limit (print_dropped_signal())
	}
}

// accessWantsSignal annotates complete_signal()'s wants_signal() look at
// th: its state and PF_EXITING, whether it runs (task_curr()), and
// TIF_SIGPENDING.
// kernel/signal.c: wants_signal()
func (s *Sched) accessWantsSignal(th *Task) {
	if !s.M.FootprintListening() {
		return
	}
	if c := s.runningCPU(); c != nil {
		c.AccessMarkedOnly(th, "task->blocked", cpu.MarkedRead, "wants_signal")      // kernel/signal.c: wants_signal(): if (sigismember(&p->blocked, sig)) return false
		c.AccessMarkedOnly(th, "p->__state", cpu.MarkedRead, "wants_signal")         // kernel/signal.c: wants_signal(): if (p->flags & PF_EXITING) ... __fatal_signal_pending(p)
		c.AccessMarkedOnly(th, "task->flags", cpu.MarkedRead, "wants_signal")        // kernel/signal.c: wants_signal(): p->flags & PF_EXITING
		c.AccessMarkedOnly(&th.Thread, "p->on_cpu", cpu.MarkedRead, "wants_signal")  // kernel/signal.c: wants_signal(): task_curr(p)
		c.AccessMarkedOnly(th, "thread_info->flags", cpu.MarkedRead, "wants_signal") // kernel/signal.c: wants_signal(): task_sigpending(p)
		s.accessKickCPU(c, th)
	}
}

// accessCompleteSignal annotates complete_signal()'s choice of t: the
// group's curr_target written (a process signal), TIF_SIGPENDING set
// (signal_wake_up()); with fatal, the group kill: SIGNAL_GROUP_EXIT and
// group_exit_code, each live thread's SIGKILL and flags, the log.
// kernel/signal.c: complete_signal(), signal_wake_up_state()
func (s *Sched) accessCompleteSignal(t *Task, shared, fatal bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := s.runningCPU()
	if c == nil {
		return
	}
	l := t.Leader()
	if shared {
		c.AccessMarkedOnly(l, "signal->curr_target", cpu.MarkedWrite, "complete_signal") // kernel/signal.c: complete_signal(): signal->curr_target = t
	}
	if !fatal {
		c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "signal_wake_up_state") // kernel/signal.c: signal_wake_up_state(): set_tsk_thread_flag(t, TIF_SIGPENDING)
		return
	}
	c.AccessMarkedOnly(l, "signal->flags", cpu.MarkedWrite, "complete_signal") // kernel/signal.c: complete_signal(): signal->flags = SIGNAL_GROUP_EXIT; signal->group_exit_code = sig
	s.accessSigLog(c, "complete_signal")
	for _, th := range s.threadGroup(l) {
		c.AccessMarkedOnly(th, "p->__state", cpu.MarkedRead, "complete_signal")         // the thread's exit state (the model skips dead threads)
		c.AccessMarkedOnly(th, "task->pending", cpu.MarkedWrite, "complete_signal")     // kernel/signal.c: complete_signal(): sigaddset(&t->pending.signal, SIGKILL)
		c.AccessMarkedOnly(th, "thread_info->flags", cpu.MarkedWrite, "signal_wake_up") // kernel/signal.c: signal_wake_up(t, 1): TIF_SIGPENDING
		s.accessKickCPU(c, th)
	}
}

// accessKickCPU annotates signal_wake_up_state()'s kick_process(th):
// task_cpu(th), where the IPI goes (a switch changes what runs there,
// p->on_cpu; set_task_cpu() changes task_cpu()).
func (s *Sched) accessKickCPU(c *cpu.CPU, th *Task) {
	c.AccessMarkedOnly(th, "p->se (exec_start, wake_cpu)", cpu.MarkedRead, "kick_process") // kernel/sched/core.c: kick_process(): cpu = task_cpu(p)
}

// accessGetSignal annotates get_signal() after its task works, under
// siglock: the group's flags (SIGNAL_GROUP_EXIT, a fatal signal's
// SIGKILL), dequeue_signal() on both queues, the disposition, and
// recalc_sigpending()'s TIF_SIGPENDING.
// kernel/signal.c: get_signal(), dequeue_signal(), recalc_sigpending()
func (s *Sched) accessGetSignal(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c, l := t.CPU(), t.Leader()
	c.AccessMarkedOnly(l, "signal->flags", cpu.MarkedRead, "get_signal")               // kernel/signal.c: get_signal(): if ((signal->flags & SIGNAL_GROUP_EXIT) || signal->group_exec_task)
	c.AccessMarkedOnly(t, "task->blocked", cpu.MarkedRead, "dequeue_signal")           // kernel/signal.c: dequeue_signal(tsk, &tsk->blocked, ...): next_signal() skips the blocked
	c.AccessMarkedOnly(t, "task->pending", cpu.MarkedWrite, "dequeue_signal")          // kernel/signal.c: dequeue_signal(): __dequeue_signal(&tsk->pending, ...): collect_signal()
	c.AccessMarkedOnly(l, "signal->shared_pending", cpu.MarkedWrite, "dequeue_signal") // kernel/signal.c: dequeue_signal(): __dequeue_signal(&tsk->signal->shared_pending, ...)
	if l.sig != nil && len(l.sig.shared) > 0 {
		accessSharedQueue(c, l, "dequeue_signal")
	}
	c.AccessMarkedOnly(l, "sighand->action", cpu.MarkedRead, "get_signal")                // kernel/signal.c: get_signal(): ka = &sighand->action[signr-1]
	c.AccessMarkedOnly(t, "sighand->action", sigCacheOp(t, cpu.MarkedRead), "get_signal") // the task's sighand pointer (the model's, made on first use)
	c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "recalc_sigpending")     // kernel/signal.c: recalc_sigpending(): clear_thread_flag(TIF_SIGPENDING)
}

// accessSigaction annotates do_sigaction() from t: the disposition
// written (the process's, which senders read: prepare_signal()); with
// flush (SIG_IGN, or a SIG_DFL that ignores), the pending queues it
// flushes and the sigqueues it frees.
// kernel/signal.c: do_sigaction()
func (s *Sched) accessSigaction(t *Task, flush bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	l := t.Leader()
	c.AccessMarkedOnly(t, "sighand->action", cpu.MarkedWrite, "do_sigaction") // kernel/signal.c: do_sigaction(): *k = *act (t->sighand, the model's pointer, made on first use)
	c.AccessMarkedOnly(l, "sighand->action", cpu.MarkedWrite, "do_sigaction") // ... the process's dispositions, which prepare_signal() reads on the leader
	if t.sigh != nil {
		c.AccessMarkedOnly(sighandTable{t, t.sigh}, "sighand->action", cpu.MarkedWrite, "do_sigaction") // the table, where the model keeps it
	}
	if !flush {
		return
	}
	if l.sig == nil || t.sig != l.sig {
		c.AccessMarkedOnly(l, "task->signal", cpu.MarkedWrite, "do_sigaction") // the model's signal_struct, made on first use (sigstruct) ...
		c.AccessMarkedOnly(t, "task->signal", cpu.MarkedWrite, "do_sigaction") // ... and t's pointer to it
	}
	c.AccessMarkedOnly(signalLiveKey{l}, "signal->live", cpu.MarkedRead, "do_sigaction")
	c.AccessMarkedOnly(l, "signal->shared_pending", cpu.MarkedWrite, "do_sigaction") // kernel/signal.c: do_sigaction(): flush_sigqueue_mask(&mask, &p->signal->shared_pending)
	accessSharedQueue(c, l, "do_sigaction")
	for _, th := range s.threadGroup(t) {
		c.AccessMarkedOnly(th, "task->pending", cpu.MarkedWrite, "do_sigaction") // kernel/signal.c: do_sigaction(): for_each_thread(p, t) flush_sigqueue_mask(&mask, &t->pending)
	}
	c.AccessMarkedOnly(sigpendingKey{s}, "ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING]", cpu.AtomicAdd, "__sigqueue_free") // the flushed sigqueues freed
}

// sigCacheOp is op for an access of t's sighand, or a write when the
// model makes t's pointer to it on this first use (Task.sighand(): a
// thread that shares its leader's, or its own all SIG_DFL).
func sigCacheOp(t *Task, op cpu.AccessOp) cpu.AccessOp {
	if t.sigh == nil && !t.defaultSighand() {
		return cpu.MarkedWrite
	}
	return op
}

// accessSigqueueFree annotates __sigqueue_free() of a dequeued signal
// that held a sigqueue: the user's sigpending count dropped, an add.
func (s *Sched) accessSigqueueFree(t *Task, sig Signal) {
	if sig.counted && s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(sigpendingKey{s}, "ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING]", cpu.AtomicAdd, "__sigqueue_free") // kernel/signal.c: __sigqueue_free(): dec_rlimit_put_ucounts()
	}
}

// accessNotifySignal annotates get_signal()'s clear_notify_signal():
// TIF_NOTIFY_SIGNAL cleared, which task_work_add(TWA_SIGNAL) sets.
func (s *Sched) accessNotifySignal(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "clear_notify_signal") // include/linux/entry-common.h: clear_notify_signal(): clear_thread_flag(TIF_NOTIFY_SIGNAL)
	}
}

// accessDeliver annotates a delivery's log (Sched.Delivered or Killed)
// and, for a fatal one, group_exit_code (the model's exitSig, under
// siglock, as do_group_exit() writes it).
func (s *Sched) accessDeliver(t *Task, fatal bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	s.accessSigLog(c, "get_signal")
	if fatal {
		c.AccessMarkedOnly(t.Leader(), "signal->flags", cpu.MarkedWrite, "do_group_exit") // kernel/exit.c: do_group_exit(): sig->group_exit_code = exit_code
	}
}

// sighandTable is the table of actions the model keeps apart from a task
// (sighand()): a key of its own, named after the task, whose extent is the
// table, so that explore's write audit sees a sender's install there.
type sighandTable struct {
	t *Task
	h *sighandStruct
}

// FootprintKey implements cpu.FootprintKeyer.
func (k sighandTable) FootprintKey() string { return k.t.FootprintKey() + "/sighand table" }

// FootprintExtent is the table.
func (k sighandTable) FootprintExtent() []any { return []any{k.h} }

// sigstructTable is the signal_struct the model keeps apart from a task
// (sigstruct(): its shared pending queue among the rest), named after the
// leader, whose extent is that struct, so that explore's write audit sees
// the writes of the queue there (a send to the process, the flush at the
// group's death).
type sigstructTable struct{ l *Task }

// FootprintKey implements cpu.FootprintKeyer.
func (k sigstructTable) FootprintKey() string { return k.l.FootprintKey() + "/signal_struct" }

// FootprintExtent is the struct.
func (k sigstructTable) FootprintExtent() []any { return []any{k.l.sig} }

// accessSharedQueue annotates a write of l's shared pending queue where the
// model keeps it, when the model has made it (a queue not made yet is made
// by the write: the leader's pointer to it, annotated on the leader).
func accessSharedQueue(c *cpu.CPU, l *Task, fn string) {
	if l.sig != nil {
		c.AccessMarkedOnly(sigstructTable{l}, "signal->shared_pending", cpu.MarkedWrite, fn)
	}
}

// accessInstall annotates a sender's install of the handler it knows (perf's
// own signals, a test's) in t's table: the write accessSendSignal's
// "sighand->action" stands for, where the model keeps it.
// kernel/signal.c: do_sigaction(): *k = *act, as the process did before the send
func (s *Sched) accessInstall(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	if c := s.runningCPU(); c != nil {
		c.AccessMarkedOnly(sighandTable{t, t.sigh}, "sighand->action", cpu.MarkedWrite, "do_sigaction")
	}
}

// accessForceSig annotates force_sig_info_to_task() on a signal t blocks
// or ignores: the action reset to SIG_DFL and, blocked, the signal
// unblocked and TIF_SIGPENDING recalculated.
// kernel/signal.c: force_sig_info_to_task()
func (s *Sched) accessForceSig(t *Task, blocked bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := s.runningCPU()
	if c == nil {
		return
	}
	c.AccessMarkedOnly(t, "sighand->action", cpu.MarkedWrite, "force_sig_info_to_task")          // kernel/signal.c: force_sig_info_to_task(): action = &t->sighand->action[sig-1] (the model's pointer, made on first use)
	c.AccessMarkedOnly(t.Leader(), "sighand->action", cpu.MarkedWrite, "force_sig_info_to_task") // kernel/signal.c: force_sig_info_to_task(): action->sa.sa_handler = SIG_DFL
	c.AccessMarkedOnly(sighandTable{t, t.sigh}, "sighand->action", cpu.MarkedWrite, "force_sig_info_to_task")
	if blocked {
		c.AccessMarkedOnly(t, "task->blocked", cpu.MarkedWrite, "force_sig_info_to_task")          // kernel/signal.c: force_sig_info_to_task(): sigdelset(&t->blocked, sig)
		c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "recalc_sigpending_and_wake") // kernel/signal.c: recalc_sigpending_and_wake(t)
	}
}
