package sched

import "perfsim/sim"

// Signal numbers and codes perf sends (include/uapi/asm-generic/signal.h,
// include/uapi/asm-generic/siginfo.h).
const (
	SIGIO   = 29
	SIGTRAP = 5

	TRAP_PERF = 6 // si_code of a perf event's SIGTRAP (send_sig_perf())

	TRAP_PERF_FLAG_ASYNC = 1 // si_perf_flags: the SIGTRAP was blocked when sent (78ed93d72ded)
	POLL_IN              = 1 // si_code of SIGIO for data in (kill_fasync(POLL_IN))
	POLL_ERR             = 4
	POLL_HUP             = 6
	SI_KERNEL            = 0x80 // si_code of a signal sent with SEND_SIG_PRIV

	SIGRTMIN = 32 // the kernel's: signals below are not queued twice (legacy_queue())
	NSIG     = 64 // _NSIG: valid_signal()
)

// DeliveredSignal is a signal a task took (get_signal() dequeued it and the
// handler ran), with its siginfo.
type DeliveredSignal struct {
	Task   *Task
	Signal Signal
	At     sim.Time
}
