package sched

import "perfsim/sim"

// Signal numbers and codes perf sends (include/uapi/asm-generic/signal.h,
// include/uapi/asm-generic/siginfo.h).
const (
	SIGIO   = 29
	SIGTRAP = 5

	TRAP_PERF = 6 // si_code of a perf event's SIGTRAP (force_sig_perf())
	POLL_IN   = 1 // si_code of SIGIO for data in (kill_fasync(POLL_IN))
	POLL_ERR  = 4
	POLL_HUP  = 6
	SI_KERNEL = 0x80 // si_code of a signal sent with SEND_SIG_PRIV

	SIGRTMIN = 32 // the kernel's: signals below are not queued twice (legacy_queue())
	NSIG     = 64 // _NSIG: valid_signal()
)

// SendSignalLegacy is do_send_sig_info() for a signal that may already be
// pending: a standard signal (below SIGRTMIN) already pending for t is not
// queued again (legacy_queue()); a real-time one is. It reports whether sig
// was queued.
// kernel/signal.c: __send_signal_locked() -> legacy_queue()
func (s *Sched) SendSignalLegacy(t *Task, sig Signal) bool {
	if t.State == Dead {
		return false
	}
	if sig.Sig < SIGRTMIN {
		for _, p := range t.signals {
			if p.Sig == sig.Sig {
				return false
			}
		}
	}
	s.SendSignal(t, sig)
	return true
}

// DeliveredSignal is a signal a task took (get_signal() dequeued it and the
// handler ran), with its siginfo.
type DeliveredSignal struct {
	Task   *Task
	Signal Signal
	At     sim.Time
}
