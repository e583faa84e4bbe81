package sched

import "perfsim/uapi"

// SA_RESTART is sa_flags' bit that makes a syscall a handled signal
// interrupted run again rather than fail with EINTR; glibc's signal()
// sets it (perf record's signal(SIGINT, sig_handler), ...).
// include/uapi/asm-generic/signal-defs.h
const SA_RESTART = 0x10000000

// restartHandled is handle_signal()'s look at the syscall the task returns
// from (syscall: the exit is a syscall's, regs->orig_ax != -1) before its
// handler for a runs: a syscall a signal interrupted (-ERESTART*) fails
// with EINTR, or runs again after the handler (-ERESTARTNOINTR; and
// -ERESTARTSYS with SA_RESTART). It reports whether the syscall
// instruction runs again (regs->ip -= 2).
// arch/x86/kernel/signal.c: handle_signal()
func (s *Sched) restartHandled(t *Task, syscall bool, a SigAction) bool {
	if !syscall {
		return false
	}
	switch uapi.Errno(-t.Sys.Ret) {
	case uapi.ERESTARTNOHAND:
		return s.setSysRet(t, errno(uapi.EINTR), "handle_signal")
	case uapi.ERESTARTSYS:
		if a.Flags&SA_RESTART == 0 {
			return s.setSysRet(t, errno(uapi.EINTR), "handle_signal")
		}
		return s.setSysRet(t, int64(t.Sys.Nr), "handle_signal") // regs->ax = regs->orig_ax
	case uapi.ERESTARTNOINTR:
		return s.setSysRet(t, int64(t.Sys.Nr), "handle_signal")
	}
	return false
}

// restartNoHandler is arch_do_signal_or_restart() when get_signal()
// found no handler to run (the signal that interrupted the syscall was
// ignored after all, or was only task work's TIF_NOTIFY_SIGNAL): the
// interrupted syscall runs again. It reports whether it does.
// arch/x86/kernel/signal.c: arch_do_signal_or_restart(): "Restart the system call - no handlers present"
func (s *Sched) restartNoHandler(t *Task, syscall bool) bool {
	if !syscall {
		return false
	}
	switch uapi.Errno(-t.Sys.Ret) {
	case uapi.ERESTARTNOHAND, uapi.ERESTARTSYS, uapi.ERESTARTNOINTR:
		return s.setSysRet(t, int64(t.Sys.Nr), "arch_do_signal_or_restart")
	}
	return false
}

// sysRestartsys is the return of a syscall body whose sleep a signal
// interrupted (signal_pending() after schedule()) before it did anything:
// -ERESTARTSYS, which the signal's delivery on the way out turns into
// -EINTR or the syscall again (restartHandled, restartNoHandler).
func (s *Sched) sysRestartsys(t *Task) {
	t.accessRegs("do_syscall_64") // regs->ax = the syscall's return
	t.Sys.Ret = errno(uapi.ERESTARTSYS)
}

// setSysRet writes regs->ax: -EINTR for the program (false: no restart),
// or the syscall's number again for the instruction that runs again
// (true: regs->ip -= 2).
func (s *Sched) setSysRet(t *Task, ax int64, fn string) bool {
	t.accessRegs(fn) // footprint_entry.go
	t.Sys.Ret = ax
	return ax >= 0
}
