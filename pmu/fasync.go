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
// kernel/events/core.c: perf_fasync(), perf_event_fasync(), perf_event_wakeup(); fs/fcntl.c: kill_fasync(), send_sigio()

// fcntl commands and flags (include/uapi/asm-generic/fcntl.h).
const (
	F_GETFL  = 3
	F_SETFL  = 4
	F_SETOWN = 8
	F_GETOWN = 9
	F_SETSIG = 10
	F_GETSIG = 11
	O_RDWR   = 02
	O_ASYNC  = 020000 // FASYNC
)

// perfFile is what of struct file the fcntl calls set: f_flags' FASYNC,
// f_owner (pid, signum) and whether the file is on the event's fasync list
// (fa_fd is the fd fasync_helper() was called with).
type perfFile struct {
	async  bool
	onList bool
	fd     int
	owner  *sched.Task // f_owner.pid (PIDTYPE_TGID): the process's task
	signum int
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
			if arg == 0 {
				f.owner = nil
				return
			}
			if arg < 0 {
				err = uapi.ESRCH // process groups are not modelled: find_vpid() finds none
				return
			}
			owner, ferr := k.findLivelyTask(t, int(arg)) // find_vpid(who)
			if ferr != nil {
				err = ferr // "if (who && !pid) ret = -ESRCH;"
				return
			}
			f.owner = owner
		case F_GETOWN:
			if f.owner != nil {
				ret = int64(f.owner.PID)
			}
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
// kernel/events/core.c: perf_event_wakeup() -> fs/fcntl.c: kill_fasync() -> send_sigio() -> send_sigio_to_task()
func (k *Kernel) killFasync(e *Event) {
	band := e.pendingKill
	if band == 0 {
		return
	}
	e.pendingKill = 0
	f := e.fasyncFile()
	if f == nil || f.owner == nil || f.owner.State == sched.Dead { // send_sigio(): "if (!pid) goto out;"
		return
	}
	k.stats.sigioSent++
	if f.signum != 0 {
		// Queue the F_SETSIG signal with the fd and the reason.
		k.S.SendSignalLegacy(f.owner, sched.Signal{Sig: f.signum, Code: band, Fasync: true, Fd: f.fd})
		return
	}
	// case 0: do_send_sig_info(SIGIO, SEND_SIG_PRIV, p, type)
	k.S.SendSignalLegacy(f.owner, sched.Signal{Sig: sched.SIGIO, Code: sched.SI_KERNEL, Fasync: true})
}

func init() {
	RegisterObservable("sigio.sent", "kill_fasync() sends of a perf event's pending_kill to its file's F_SETOWN owner (SIGIO, or the F_SETSIG signal)",
		func(k *Kernel) int64 { return int64(k.stats.sigioSent) })
	RegisterStepHelp(map[string]string{
		"perf_fasync": "kernel/events/core.c: perf_fasync(): fcntl(F_SETFL) toggling O_ASYNC, before fasync_helper() puts the file on (or takes it off) event->fasync under inode_lock",
	})
}
