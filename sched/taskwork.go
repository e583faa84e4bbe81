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
}

// TaskWorkAdd queues work on t: task_work_add().
func (s *Sched) TaskWorkAdd(c *cpu.CPU, t *Task, w TaskWork, mode TWA) error {
	if t.State == Dead {
		return ErrSearch // -ESRCH: the task is past exit_task_work()
	}
	c.Release(taskWorkKey{t}) // task_work_add() -> task_work_run(), for the data-race oracle
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

// taskWorkKey is where task_work_add() releases and task_work_run() acquires.
type taskWorkKey struct{ t *Task }

// taskWorkRun runs the queued works: task_work_run().
func (s *Sched) taskWorkRun(t *Task) {
	t.CPU().Acquire(taskWorkKey{t})
	for len(t.works) > 0 {
		works := t.works
		t.works = nil
		for _, w := range works {
			t.Step("task_work_run:" + w.Name)
			w.Fn(t)
		}
	}
}

// PendingWorks returns the number of queued task works.
func (t *Task) PendingWorks() int { return len(t.works) }

// Signal is a pending signal with the handler the task runs in user mode.
type Signal struct {
	Sig     int
	Handler []Op
	// The siginfo: si_code, and for SIGTRAP/TRAP_PERF si_addr, si_perf_data
	// and si_perf_type (force_sig_perf()).
	Code     int
	Addr     uint64
	PerfData uint64
	PerfType uint32
	// Fasync: sent by kill_fasync() (send_sigio_to_task()); Fd is its si_fd.
	Fasync bool
	Fd     int
}

// Signal numbers used by scenarios.
const (
	SIGUSR1 = 10
	SIGUSR2 = 12
)

// SendSignal queues sig for t; its handler runs on t's next return to user mode.
func (s *Sched) SendSignal(t *Task, sig Signal) {
	if t.State == Dead {
		return
	}
	t.signals = append(t.signals, sig)
	t.SigPending = true
	s.kickTask(t)
}

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

// doSignal is arch_do_signal_or_restart(): task_work first (get_signal()), then
// one signal's handler in user mode.
func (s *Sched) doSignal(t *Task) {
	t.NotifySignal = false
	s.taskWorkRun(t)
	if len(t.signals) == 0 {
		t.SigPending = false
		return
	}
	sig := t.signals[0]
	t.signals = t.signals[1:]
	t.SigPending = len(t.signals) > 0
	s.Delivered = append(s.Delivered, DeliveredSignal{Task: t, Signal: sig, At: s.M.Now()})
	s.setUser(t, true)
	s.runOps(t, sig.Handler)
	s.setUser(t, false)
}
