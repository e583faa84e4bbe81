package sched

import (
	"perfsim/cpu"
)

// TWA is task_work_add()'s notify mode.
type TWA uint8

// Notify modes of task_work_add().
const (
	TWANone       TWA = iota // TWA_NONE: run at the next return, nobody told
	TWAResume                // TWA_RESUME: set TIF_NOTIFY_RESUME
	TWASignal                // TWA_SIGNAL: set TIF_NOTIFY_SIGNAL and kick the task
	TWANMICurrent            // TWA_NMI_CURRENT: from NMI, on current
)

// TaskWork is a callback run by the task itself on its way back to user mode.
type TaskWork struct {
	Name string
	Fn   func(t *Task)
	Key  any // its struct callback_head, for TaskWorkCancelCB; nil: never cancelled by identity
}

// TaskWorkAdd queues work on t: task_work_add().
func (s *Sched) TaskWorkAdd(c *cpu.CPU, t *Task, w TaskWork, mode TWA) error {
	if t.State == Dead {
		return ErrSearch // -ESRCH: the task is past exit_task_work()
	}
	c.Release(&t.taskWorks) // task_work_add() -> task_work_run(), for the data-race oracle
	s.accessTaskWorkAdd(c, t, mode)
	t.works = append(t.works, w)
	switch mode {
	case TWAResume:
		t.NotifyResume = true
	case TWASignal:
		t.NotifySignal = true
		s.kickTask(t)
	case TWANMICurrent:
		if s.Cfg.TaskWorkNMIIrqWork {
			// Before ef1ea98c8fff: irq_work_queue(this_cpu_ptr(&irq_work_NMI_resume)),
			// whose handler does set_notify_resume(current) on whatever runs then.
			c.IrqWorkQueue(func(c *cpu.CPU) {
				if cur := TaskOf(c.Curr()); cur != nil {
					cur.NotifyResume = true
				}
			})
		} else {
			// today: set_tsk_thread_flag(current, TIF_NOTIFY_RESUME) in the NMI,
			// and the irq_work is a no-op IPI that tickles the return-to-user
			// path (an NMI that interrupted user mode does not take it).
			t.NotifyResume = true
			c.IrqWorkQueue(func(*cpu.CPU) {})
		}
	}
	return nil
}

// taskWorkRun runs the queued works: task_work_run(). task_work_add()
// pushes at the head of task->task_works and the run walks from the head,
// so the works run newest first ("The task_work list is LIFO"); works they
// add run in a later round.
// kernel/task_work.c: task_work_run()
func (s *Sched) taskWorkRun(t *Task) { s.taskWorkRunFrom(t, !t.fam.exiting) }

// taskWorkRunFrom is taskWorkRun for a caller whose code after the call,
// up to its next step point, is annotated (ret: exit_to_user_mode_loop's
// resume_user_mode_work()) or not (arch_do_signal_or_restart(),
// exit_task_work()): then the return into it is marked.
func (s *Sched) taskWorkRunFrom(t *Task, ret bool) {
	t.CPU().Acquire(&t.taskWorks)
	t.CPU().AccessMarkedOnly(t, "task->task_works", cpu.MarkedRead, "task_work_run") // kernel/task_work.c: task_work_run(): work = READ_ONCE(task->task_works)
	for len(t.works) > 0 {
		works := t.works
		t.CPU().AccessMarkedOnly(t, "task->task_works", cpu.MarkedWrite, "task_work_run") // kernel/task_work.c: task_work_run(): work = xchg(&task->task_works, head)
		t.works = nil
		for i := len(works) - 1; i >= 0; i-- {
			w := works[i]
			t.Step("task_work_run:" + w.Name)
			w.Fn(t)
		}
		s.accessTaskWorkLoop(t)
	}
	s.markTaskWorkReturn(t, ret)
}

// PendingWorks returns the number of queued task works.
func (t *Task) PendingWorks() int { return len(t.works) }

// Signal is a pending signal with the handler the task runs in user mode.
type Signal struct {
	Sig     int
	Handler []Op
	// SaFlags are the sa_flags of Handler, which a sender that knows it
	// installs (perf's own signal() calls: SA_RESTART).
	SaFlags uint64
	// The siginfo: si_code, and for SIGTRAP/TRAP_PERF si_addr, si_perf_data,
	// si_perf_type and si_perf_flags (send_sig_perf()).
	Code      int
	Addr      uint64
	PerfData  uint64
	PerfType  uint32
	PerfFlags uint32
	// Fasync: sent by kill_fasync() (send_sigio_to_task()); Fd is its si_fd.
	Fasync bool
	Fd     int

	counted bool // holds a sigqueue counted against RLIMIT_SIGPENDING
}

// Signal numbers used by scenarios.
const (
	SIGUSR1 = 10
	SIGUSR2 = 12
)

// SendSignal sends sig to thread t (send_sig_info(): PIDTYPE_PID); the
// task takes it on its next return to user mode, as its disposition says.
func (s *Sched) SendSignal(t *Task, sig Signal) { _, _ = s.SendSignalTo(t, sig, PIDTYPE_PID) }

// kickTask gets t to its return-to-user work soon: wake it, or IPI its CPU.
func (s *Sched) kickTask(t *Task) {
	if t.State == Sleeping {
		if t.fam.hungOn == nil { // TASK_UNINTERRUPTIBLE: no signal wakes it
			s.Wake(t)
		}
		return
	}
	if c := t.CPU(); c != nil {
		if run := s.M.Eng.Running(); run == nil || run.ID != c.ID {
			c.RaiseIRQ(cpu.Interrupt{Name: "kick", Fn: func(*cpu.CPU) {}})
		}
	}
}

// doSignal is arch_do_signal_or_restart(): task_work first, then
// get_signal() dequeues signals until one has a handler, which runs in user
// mode; an ignored one is dropped; one whose default action terminates ends
// the whole group (a core-dumping one, do_coredump() not modelled, too).
// On the way out of a syscall (syscall) that a signal interrupted, it
// reports whether the syscall runs again (signal_restart.go).
// Its accesses are annotated (footprint_signal.go); the handler's
// operations are runOps's, which marks those nobody annotated.
// kernel/signal.c: get_signal(); arch/x86/kernel/signal.c: arch_do_signal_or_restart()
func (s *Sched) doSignal(t *Task, syscall bool) (restart bool) {
	s.accessNotifySignal(t)
	t.NotifySignal = false
	s.taskWorkRunFrom(t, true) // get_signal(): back into its code below, annotated
	for !t.fam.killed {
		s.accessGetSignal(t)
		sig, ok := s.dequeueSignal(t)
		if !ok {
			break
		}
		act := t.action(sig.Sig)
		switch {
		case act.Handler == SigHandled:
			t.recalcSigpending()
			s.accessDeliver(t, false)
			s.Delivered = append(s.Delivered, DeliveredSignal{Task: t, Signal: sig, At: s.M.Now()})
			restart = s.restartHandled(t, syscall, act)
			s.setUser(t, true)
			s.runOps(t, act.Body) // handle_signal(): the handler, in user mode
			s.setUser(t, false)
			return restart
		case sigHandlerIgnored(act.Handler, sig.Sig), sigKernelStop(sig.Sig):
			continue // job control stops are not modelled
		}
		// "Death signals, no core dump" / do_coredump(); do_group_exit(signr)
		ss := t.sigstruct()
		s.accessDeliver(t, true)
		if !t.Leader().fam.groupExit {
			ss.exitSig, ss.coreDump = sig.Sig, sigKernelCoredump(sig.Sig)
		}
		s.Killed = append(s.Killed, DeliveredSignal{Task: t, Signal: sig, At: s.M.Now()})
		s.doGroupExit(t)
		s.exit(t)
		return false
	}
	s.accessGetSignal(t)
	t.recalcSigpending()
	return !t.fam.killed && s.restartNoHandler(t, syscall)
}
