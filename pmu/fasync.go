package pmu

import (
	"perfsim/sched"
	"perfsim/uapi"
)

// SIGIO for perf events: fcntl(F_SETFL, O_ASYNC) puts the perf file on the
// event's fasync list (perf_fasync() -> fasync_helper()); F_SETOWN names who
// gets the signal and F_SETSIG which; each overflow (and each wakeup of the
// ring) then sets pending_kill, and perf_pending_irq() -> perf_event_wakeup()
// sends it with kill_fasync(): SIGIO with si_code SI_KERNEL, or the F_SETSIG
// signal with si_code POLL_IN (POLL_HUP when an IOC_REFRESH limit ran out,
// POLL_ERR for a pinned event that could not go on) and si_fd.
//
// The owner is a pid of a type (f_owner.pid, pid_type): F_SETOWN pid a
// process (PIDTYPE_TGID), F_SETOWN -pgid each process of a group
// (PIDTYPE_PGID), F_SETOWN_EX a thread, a process or a group. An F_SETSIG
// real-time signal that finds the owner's RLIMIT_SIGPENDING queue full
// falls back to a plain SIGIO; a signal the owner has no handler for takes
// its default action (SIGIO's terminates the process).
// kernel/events/core.c: perf_fasync(), perf_event_fasync(), perf_event_wakeup(); fs/fcntl.c: kill_fasync(), send_sigio()

// fcntl commands and flags (include/uapi/asm-generic/fcntl.h).
const (
	F_GETFL  = 3
	F_SETFL  = 4
	F_SETOWN = 8
	F_GETOWN = 9
	F_SETSIG = 10
	F_GETSIG = 11

	F_SETOWN_EX = 15
	F_GETOWN_EX = 16

	F_OWNER_TID  = 0
	F_OWNER_PID  = 1
	F_OWNER_PGRP = 2
	O_RDWR       = 02
	O_ASYNC      = 020000 // FASYNC
)

// perfFile is what of struct file the fcntl calls set: f_flags' FASYNC,
// f_owner (pid, signum) and whether the file is on the event's fasync list
// (fa_fd is the fd fasync_helper() was called with).
type perfFile struct {
	async     bool
	onList    bool
	fd        int
	owner     int           // f_owner.pid's number (0: none)
	ownerType sched.PidType // f_owner.pid_type
	signum    int
}

// fasyncFile is perf_event_fasync() non-empty: the file on the fasync list
// of the event or, for an inherited event, of its parent.
func (e *Event) fasyncFile() *perfFile {
	if e.parent != nil {
		e = e.parent
	}
	if !e.file.onList {
		return nil
	}
	return &e.file
}

// Fcntl is fcntl(fd, cmd, arg) on a perf fd: F_SETFL (O_ASYNC), F_GETFL,
// F_SETOWN (a pid; 0 clears it), F_GETOWN, F_SETSIG, F_GETSIG.
// fs/fcntl.c: do_fcntl(), setfl(), f_setown()
func (k *Kernel) Fcntl(t *sched.Task, fd, cmd int, arg int64) (ret int64, err error) {
	k.S.Syscall(t, "fcntl", func(t *sched.Task) {
		e, lerr := k.lookup(t, fd)
		if lerr != nil {
			err = lerr
			return
		}
		f := &e.file
		switch cmd {
		case F_GETFL:
			ret = O_RDWR // anon_inode_getfile(..., O_RDWR)
			if f.async {
				ret |= O_ASYNC
			}
		case F_SETFL:
			on := arg&O_ASYNC != 0
			if on != f.async { // "((arg ^ filp->f_flags) & FASYNC) && filp->f_op->fasync"
				if err = k.perfFasync(t, e, fd, on); err != nil {
					return
				}
			}
			f.async = on
		case F_SETOWN:
			err = k.fSetown(f, arg) // f_setown(filp, argi, 1)
		case F_GETOWN:
			ret = k.fGetown(f)
		case F_SETSIG:
			if arg < 0 || arg > sched.NSIG { // valid_signal()
				err = uapi.EINVAL
				return
			}
			f.signum = int(arg)
		case F_GETSIG:
			ret = int64(f.signum)
		default:
			err = uapi.EINVAL
		}
	})
	return ret, err
}

// FcntlSetownEx is fcntl(fd, F_SETOWN_EX, &{type, pid}): the owner is a
// thread (F_OWNER_TID), a process (F_OWNER_PID) or a process group
// (F_OWNER_PGRP); EINVAL for another type, ESRCH for a pid not in use.
// fs/fcntl.c: f_setown_ex()
func (k *Kernel) FcntlSetownEx(t *sched.Task, fd, typ int, pid int64) (err error) {
	k.S.Syscall(t, "fcntl", func(t *sched.Task) {
		e, lerr := k.lookup(t, fd)
		if lerr != nil {
			err = lerr
			return
		}
		var pt sched.PidType
		switch typ {
		case F_OWNER_TID:
			pt = sched.PIDTYPE_PID
		case F_OWNER_PID:
			pt = sched.PIDTYPE_TGID
		case F_OWNER_PGRP:
			pt = sched.PIDTYPE_PGID
		default:
			err = uapi.EINVAL
			return
		}
		if pid != 0 && (pid < 0 || pid > 1<<31-1 || !k.S.PidExists(int(pid))) { // "if (owner.pid && !pid) ret = -ESRCH;"
			err = uapi.ESRCH
			return
		}
		e.file.owner, e.file.ownerType = int(pid), pt // __f_setown(filp, pid, type, 1)
	})
	return err
}

// fSetown is f_setown(filp, who, 1): a negative who names a process group;
// the number must be in use (find_vpid()).
// fs/fcntl.c: f_setown()
func (k *Kernel) fSetown(f *perfFile, who int64) error {
	typ := sched.PIDTYPE_TGID
	if who < 0 {
		if int32(who) == -1<<31 { // "avoid overflow below": INT_MIN
			return uapi.EINVAL
		}
		typ, who = sched.PIDTYPE_PGID, -who
	}
	if who != 0 && (who > 1<<31-1 || !k.S.PidExists(int(who))) {
		return uapi.ESRCH // "if (who && !pid) ret = -ESRCH;"
	}
	f.owner, f.ownerType = int(who), typ
	return nil
}

// fGetown is f_getown(): the owner's number while a task of its type has
// it (negative for a group), else 0.
// fs/fcntl.c: f_getown()
func (k *Kernel) fGetown(f *perfFile) int64 {
	if f.owner == 0 {
		return 0
	}
	if f.ownerType == sched.PIDTYPE_PGID {
		if len(k.S.ProcessGroup(f.owner)) == 0 {
			return 0
		}
		return -int64(f.owner)
	}
	if o := k.ownerTask(f); o == nil {
		return 0
	}
	return int64(f.owner)
}

// ownerTask is pid_task(f_owner.pid, PIDTYPE_PID): the task with that
// number, until it is released.
func (k *Kernel) ownerTask(f *perfFile) *sched.Task {
	for _, t := range k.S.Tasks {
		if t.TID == f.owner && !t.Reaped() {
			return t
		}
	}
	return nil
}

// perfFasync adds the file to, or removes it from, the event's fasync list.
// kernel/events/core.c: perf_fasync() -> fs/fcntl.c: fasync_helper()
func (k *Kernel) perfFasync(t *sched.Task, e *Event, fd int, on bool) error {
	if e.state <= StateRevoked {
		return uapi.ENODEV
	}
	t.Step("perf_fasync") // inode_lock(inode): fasync_helper() under it
	e.file.onList, e.file.fd = on, fd
	return nil
}

// killFasync sends the event's pending_kill to the owner of its file, then
// clears it.
// kernel/events/core.c: perf_event_wakeup() -> fs/fcntl.c: kill_fasync() -> send_sigio()
func (k *Kernel) killFasync(e *Event) {
	band := e.pendingKill
	if band == 0 {
		return
	}
	e.pendingKill = 0
	f := e.fasyncFile()
	if f == nil || f.owner == 0 { // send_sigio(): "if (!pid) goto out_unlock_fown;"
		return
	}
	if f.ownerType <= sched.PIDTYPE_TGID {
		if p := k.ownerTask(f); p != nil {
			k.sendSigioToTask(p, f, band)
		}
		return
	}
	for _, p := range k.S.ProcessGroup(f.owner) { // do_each_pid_task(pid, type, p)
		k.sendSigioToTask(p, f, band)
	}
}

// sendSigioToTask queues the F_SETSIG signal with si_code the reason (or
// SI_SIGIO for a signal with codes of its own) and si_fd; when that fails
// (a real-time signal over RLIMIT_SIGPENDING: -EAGAIN) or F_SETSIG is 0, a
// plain SIGIO with SEND_SIG_PRIV (si_code SI_KERNEL). A signal dropped
// because it is ignored or already pending is no failure.
// fs/fcntl.c: send_sigio_to_task()
func (k *Kernel) sendSigioToTask(p *sched.Task, f *perfFile, reason int) {
	k.stats.sigioSent++
	if signum := f.signum; signum != 0 { // READ_ONCE(fown->signum)
		code := reason
		if signum != sched.SIGPOLL && sched.SigSpecificSicodes(signum) {
			code = sched.SI_SIGIO
		}
		if _, err := k.S.SendSignalTo(p, sched.Signal{Sig: signum, Code: code, Fasync: true, Fd: f.fd}, f.ownerType); err == 0 {
			return
		}
		k.stats.sigioFallback++ // "fall back on the old plain SIGIO signal"
	}
	_, _ = k.S.SendSignalTo(p, sched.Signal{Sig: sched.SIGIO, Code: sched.SI_KERNEL, Fasync: true}, f.ownerType)
}

func init() {
	RegisterObservable("sigio.sent", "kill_fasync() sends of a perf event's pending_kill to its file's F_SETOWN owner (SIGIO, or the F_SETSIG signal)",
		func(k *Kernel) int64 { return int64(k.stats.sigioSent) })
	RegisterObservable("sigio.fallback", "send_sigio_to_task() sends of an F_SETSIG real-time signal that failed (RLIMIT_SIGPENDING reached: -EAGAIN) and fell back to a plain SIGIO",
		func(k *Kernel) int64 { return int64(k.stats.sigioFallback) })
	RegisterStepHelp(map[string]string{
		"perf_fasync": "kernel/events/core.c: perf_fasync(): fcntl(F_SETFL) toggling O_ASYNC, before fasync_helper() puts the file on (or takes it off) event->fasync under inode_lock",
	})
}
