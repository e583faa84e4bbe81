package sched

import (
	"perfsim/mm"
	"perfsim/uapi"
)

// The user side of a syscall's copy: read(2) fills the caller's buffer
// (copy_to_user), write(2) takes it (copy_from_user). A page of the buffer
// the task has not yet mapped for the access faults from kernel mode, as
// on this machine (realperf: a 1 MB read into a fresh anonymous buffer is
// 256 page-faults:k at _copy_to_iter, a 1 MB write from one 256 at
// fault_in_readable, none :u); a page no fault can map (no VMA, a VMA
// that forbids the access, NULL) ends the copy short: the exception
// table's fixup, not a SIGSEGV.

// userBuf is the cursor of one syscall's copy through the buffer at at.
type userBuf struct {
	s  *Sched
	t  *Task
	at uint64
}

// toUser is copy_folio_to_iter() of n bytes into the buffer: each page
// not mapped writable faults at _copy_to_iter, and the copy stops at the
// first bad one. It returns the bytes copied.
// lib/iov_iter.c: _copy_to_iter() -> copy_to_user_iter(): raw_copy_to_user()
func (u *userBuf) toUser(n uint64) uint64 {
	done := u.span(n, true, u.faultAt(true, "_copy_to_iter"))
	u.at += done
	return done
}

// fromUser is generic_perform_write()'s copy of n bytes from the buffer
// into a folio: copy_folio_from_iter_atomic() with page faults disabled
// (a fault there is no event: do_user_addr_fault() returns before the
// page-faults event when faulthandler_disabled()) copies the pages already
// mapped; when it copied nothing, fault_in_iov_iter_readable() faults
// every page of the n bytes in, counting each, up to a bad one (from NULL
// it touches none: its loop stops at address 0), and the copy is tried
// again. It returns the bytes copied: a buffer whose next page is bad
// faults it twice, once in the fault-in that ended at it and once in the
// next, which ends the write (as this machine: a 64 KB write from two fresh
// pages and a hole, 4 page-faults at fault_in_readable, 8192 written).
// mm/filemap.c: generic_perform_write(); mm/gup.c: fault_in_readable()
func (u *userBuf) fromUser(n uint64) uint64 {
	atomic := func() uint64 { return u.span(n, false, func(uint64) bool { return false }) }
	done := atomic()
	if done == 0 && u.at != 0 { // for (cur = start; cur && cur < end; ...)
		u.span(n, false, u.faultAt(false, "fault_in_readable"))
		done = atomic()
	}
	u.at += done
	return done
}

// faultAt is span's fault for a copy by the kernel function ip: a
// kernel-mode fault of the access (handleFault).
func (u *userBuf) faultAt(write bool, ip string) func(addr uint64) bool {
	return func(addr uint64) bool { return u.s.handleFault(u.t, addr, write, ip) }
}

// span walks the n bytes of the buffer from u.at page by page: a page
// mapped for the access (write: writable) is copied; another is given to
// fault, and a fault that fails stops the walk there. It returns the bytes
// it got through.
func (u *userBuf) span(n uint64, write bool, fault func(addr uint64) bool) uint64 {
	var done uint64
	for done < n {
		addr := u.at + done
		if !mapped(u.t, addr, write) && !fault(addr) {
			break
		}
		done += min(n-done, mm.PageSize-addr%mm.PageSize)
	}
	return done
}

// ttyWriteChunk is the most a tty write copies at a time (a pty sets no
// TTY_NO_WRITE_SPLIT): a chunk the copy cannot finish is not written.
// drivers/tty/tty_io.c: iterate_tty_write(): chunk = 2048
const ttyWriteChunk = 2048

// devWrite is write(2) of count bytes from buf to a file with no page
// cache: a tty copies them chunk by chunk (each page faulting in at
// _copy_from_iter), and returns what the chunks it could copy held,
// EFAULT if none (as this machine's pty: 8192 from a page and a hole
// wrote 4096; from 1000 bytes into the page, 2048); the model's other /dev
// files are /dev/null's write_null(), which takes the count unread.
// drivers/tty/tty_io.c: file_tty_write() -> iterate_tty_write(); drivers/char/mem.c: write_null()
func (s *Sched) devWrite(t *Task, f *mm.OpenFile, buf, count uint64) int64 {
	if f.Inode == nil || !f.Inode.TTY() {
		return int64(count)
	}
	count = min(count, maxRWCount)
	u := &userBuf{s: s, t: t, at: buf}
	var written uint64
	for written < count {
		size := min(ttyWriteChunk, count-written)
		got := u.span(size, false, u.faultAt(false, "_copy_from_iter"))
		if got < size {
			break // if (copy_from_iter(tty->write_buf, size, from) != size) break;
		}
		u.at += size
		written += size
	}
	if written == 0 && count > 0 {
		return errno(uapi.EFAULT)
	}
	return int64(written)
}

// CopyToUser is copy_to_user() of n bytes to buf by kernel code outside
// the page cache (perf_read()'s values): each page not mapped writable
// faults at _copy_to_user, and the copy stops at the first bad one. It
// returns the bytes copied.
// include/linux/uaccess.h: copy_to_user() -> _copy_to_user()
func (s *Sched) CopyToUser(t *Task, buf, n uint64) uint64 {
	u := &userBuf{s: s, t: t, at: buf}
	return u.span(n, true, u.faultAt(true, "_copy_to_user"))
}

// AnonReadHook reads an anon inode file another subsystem made (perf's
// event fd) for read(2): ok false when f is not its file.
type AnonReadHook interface {
	ReadAnon(t *Task, f mm.AnonFile, buf, count uint64) (ret int64, ok bool)
}

// readAnon is read(2) of an anon inode file: its owner's read method, or
// EINVAL for a file with none (vfs_read(): !(file->f_mode & FMODE_CAN_READ)).
func (s *Sched) readAnon(t *Task, f mm.AnonFile, buf, count uint64) int64 {
	for _, h := range s.SyscallHooks {
		if r, ok := h.(AnonReadHook); ok {
			if ret, ok := r.ReadAnon(t, f, buf, count); ok {
				return ret
			}
		}
	}
	return errno(uapi.EINVAL)
}
