package sched

import (
	"math"
	"path"
	"strings"

	"perfsim/mm"
	"perfsim/sim"
	"perfsim/uapi"
)

// The system calls whose effects perf can observe (a comm, a mapping, an
// exec, an fd), modelled on the task's mm and fd table (package mm). Every
// other syscall fires its tracepoints with its arguments and returns 0.

// CommHook is told of a comm change: __set_task_comm() -> perf_event_comm().
// A SyscallHook implements it to hear it.
type CommHook interface {
	TaskComm(t *Task, exec bool)
}

// ExecHook is perf_event_exec(), called by begin_new_exec() once the new mm
// is in place and before the exec COMM.
type ExecHook interface {
	TaskExec(t *Task)
}

// ExitMMHook is told at exit_mm() that t drops its use of its address
// space (mmput()); the last user's put runs exit_mmap().
type ExitMMHook interface {
	TaskExitMM(t *Task)
}

// FileHook is told when t drops a reference to an anon inode file (perf's
// event) it held through an fd: do_close_on_exec(), exit_files(), and
// close(2) unless the hook is a FileCloseHook too. The hook is the file's
// f_op: the last reference releases it.
// fs/file_table.c: fput()
type FileHook interface {
	Fput(t *Task, f mm.AnonFile)
}

// FileCloseHook is a FileHook told apart of close(2)'s drop of a reference:
// today the last one releases the file in the syscall (fput_close_sync()),
// where every other fput() defers it to task work.
// fs/open.c: SYSCALL_DEFINE1(close)
type FileCloseHook interface {
	FputClose(t *Task, f mm.AnonFile)
}

// fputClose is close(2)'s fput(): a FileCloseHook hears of it as such,
// another FileHook as an fput().
func (s *Sched) fputClose(t *Task, f *mm.OpenFile) { s.dropFile(t, f, true) }

// fput drops the reference t's closed fd held on f: an anon inode file's
// owner hears of it; a regular file has nothing to release in the model.
func (s *Sched) fput(t *Task, f *mm.OpenFile) { s.dropFile(t, f, false) }

// dropFile is fput(), or close(2)'s (fputClose) when close.
func (s *Sched) dropFile(t *Task, f *mm.OpenFile, close bool) {
	if f == nil || f.Anon == nil {
		return
	}
	s.eachHook(func(h any) {
		if c, ok := h.(FileCloseHook); ok && close {
			c.FputClose(t, f.Anon)
		} else if c, ok := h.(FileHook); ok {
			c.Fput(t, f.Anon)
		}
	})
}

// MmapHook is perf_event_mmap(vma), called for each new mapping.
type MmapHook interface {
	TaskMmap(t *Task, v *mm.VMA)
}

// FaultHook is told of a user page fault: PageFault at the entry of
// do_user_addr_fault() (perf_sw_event(PERF_COUNT_SW_PAGE_FAULTS)), then
// FaultAccounted after handle_mm_fault() succeeded (mm_account_fault():
// PERF_COUNT_SW_PAGE_FAULTS_MAJ or _MIN). addr is the faulting address;
// ip is "" for a fault of user code (the regs are the user's), else the
// kernel function whose access of user memory faulted (a read(2)'s
// _copy_to_iter: the regs are the kernel's, which exclude_kernel filters).
type FaultHook interface {
	PageFault(t *Task, addr uint64, ip string)
	FaultAccounted(t *Task, addr uint64, major bool, ip string)
}

// MajorFaultCost is a major fault's CPU time before its disk read
// (finding the page missing, the read-around submitted; the task sleeps
// through the read itself, which takes the cost model's DiskRead), on top
// of the cost of mapping what it read (the cost model's FileMapFault or
// CopyFault). Not calibrated: faults.sh measures minor faults.
const MajorFaultCost = 500 * sim.Nanosecond

// faultCost is what a fault that ran handler how costs under the cost
// model (cost/testdata/faults.txt).
func (s *Sched) faultCost(how mm.How) sim.Duration {
	p := &s.Cfg.Cost
	switch how {
	case mm.HowAnonPage:
		return p.AnonFault
	case mm.HowFileMap:
		return p.FileMapFault
	case mm.HowCopy:
		return p.CopyFault
	}
	return p.ZeroPageFault // the zero page; a PTE made writable (no page allocated either)
}

func (s *Sched) eachHook(fn func(h any)) {
	for _, h := range s.SyscallHooks {
		fn(h)
	}
}

// SetComm is __set_task_comm(): the comm becomes name (at most
// TASK_COMM_LEN-1 = 15 bytes) and perf hears it.
// fs/exec.c: __set_task_comm()
func (s *Sched) SetComm(t *Task, name string, exec bool) {
	if len(name) > 15 {
		name = name[:15]
	}
	t.Comm = name
	s.eachHook(func(h any) {
		if c, ok := h.(CommHook); ok {
			c.TaskComm(t, exec)
		}
	})
}

func (s *Sched) mmapHooks(t *Task, v *mm.VMA) {
	s.eachHook(func(h any) {
		if c, ok := h.(MmapHook); ok {
			c.TaskMmap(t, v)
		}
	})
}

// modelledSyscall returns the body of a syscall (by its table or entry
// name) for which the scheduler has none: the modelled one, which spends
// t.sysCost and then acts, or spendSysCost. Made once per name.
func (s *Sched) modelledSyscall(name string) SyscallFunc {
	if body, ok := s.models[name]; ok {
		return body
	}
	body := SyscallFunc(spendSysCost)
	if sc, known := uapi.LookupSyscall(name); known {
		if model := sysModels[sc.TraceName()]; model != nil {
			body = func(t *Task) {
				s.accessMMAlloc(t) // a task made with no address space gets its first here (footprint_mm_alloc.go)
				t.ensureMM(s)
				t.Spend(t.sysCost)
				t.Sys.Ret = model(s, t, &t.Sys.Args)
			}
		}
	}
	if s.models == nil {
		s.models = map[string]SyscallFunc{}
	}
	s.models[name] = body
	return body
}

// spendSysCost is the body of a syscall without a model: time in the kernel.
func spendSysCost(t *Task) { t.Spend(t.sysCost) }

func errno(e uapi.Errno) int64 { return -int64(e) }

// sysModels are the modelled bodies by entry name: each returns what the
// syscall returns (a negative errno on failure).
var sysModels = map[string]func(s *Sched, t *Task, a *[6]uint64) int64{
	// fs/open.c: SYSCALL_DEFINE1(close): file_close_fd(), fput_close_sync()
	"close": func(s *Sched, t *Task, a *[6]uint64) int64 {
		f, err := t.Files.Close(int64(int32(a[0])))
		s.fputClose(t, f) // fput_close_sync()
		return errno(err)
	},
	// fs/read_write.c: ksys_write(): a regular file's through its page
	// cache (fileio.go); a tty's or /dev/null's in devWrite (uaccess.go)
	"write": func(s *Sched, t *Task, a *[6]uint64) int64 {
		s.accessFdTable(t, "ksys_write") // footprint_syscalls.go
		f := t.Files.Fget(int64(int32(a[0])))
		if f == nil {
			return errno(uapi.EBADF)
		}
		if unlock := s.fdgetPos(t, f); unlock != nil {
			defer unlock()
		}
		if e := vfsRWChecks(f, a, true); e != 0 {
			return errno(e)
		}
		if !f.Regular() {
			return s.devWrite(t, f, a[1], a[2])
		}
		return s.fileIO(t, f, -1, a[1], a[2], true)
	},
	// fs/read_write.c: ksys_read(): a regular file's through its page
	// cache (fileio.go), perf's fd through its owner (readAnon); a tty or
	// /dev file reads end of file
	"read": func(s *Sched, t *Task, a *[6]uint64) int64 {
		s.accessFdTable(t, "ksys_read") // footprint_syscalls.go
		f := t.Files.Fget(int64(int32(a[0])))
		if f == nil {
			return errno(uapi.EBADF)
		}
		if unlock := s.fdgetPos(t, f); unlock != nil {
			defer unlock()
		}
		if e := vfsRWChecks(f, a, false); e != 0 {
			return errno(e)
		}
		if f.Anon != nil {
			return s.readAnon(t, f.Anon, a[1], a[2]) // perf's fd: perf_read()
		}
		if !f.Regular() {
			return 0
		}
		return s.fileIO(t, f, -1, a[1], a[2], false)
	},
	// fs/read_write.c: ksys_pread64(), ksys_pwrite64(): at pos, f_pos left
	// as it is
	"pread64": func(s *Sched, t *Task, a *[6]uint64) int64 {
		return s.positionedIO(t, a, false)
	},
	"pwrite64": func(s *Sched, t *Task, a *[6]uint64) int64 {
		return s.positionedIO(t, a, true)
	},
	// fs/read_write.c: ksys_lseek()
	"lseek": func(s *Sched, t *Task, a *[6]uint64) int64 {
		f := t.Files.Fget(int64(int32(a[0])))
		if f == nil {
			return errno(uapi.EBADF)
		}
		if unlock := s.fdgetPos(t, f); unlock != nil {
			defer unlock()
		}
		switch {
		case uint32(a[2]) > uapi.SEEK_MAX:
			return errno(uapi.EINVAL) // ksys_lseek(): whence checked before vfs_llseek()
		case !f.Regular():
			return errno(uapi.ESPIPE) // vfs_llseek(): !(file->f_mode & FMODE_LSEEK)
		}
		pos, err := f.Lseek(int64(a[1]), uint64(uint32(a[2])))
		if err != 0 {
			return errno(err)
		}
		return pos
	},
	// fs/sync.c: do_fsync(): the file's dirty pages written back, waited for
	"fsync":     func(s *Sched, t *Task, a *[6]uint64) int64 { return s.fsync(t, a) },
	"fdatasync": func(s *Sched, t *Task, a *[6]uint64) int64 { return s.fsync(t, a) },
	// fs/open.c: do_sys_open(): every path exists in the model.
	"open": func(s *Sched, t *Task, a *[6]uint64) int64 { return s.open(t, a[0], a[1]) },
	// fs/open.c: SYSCALL_DEFINE2(creat): O_CREAT|O_WRONLY|O_TRUNC
	"creat": func(s *Sched, t *Task, a *[6]uint64) int64 {
		return s.open(t, a[0], uapi.O_CREAT|uapi.O_WRONLY|uapi.O_TRUNC)
	},
	"openat": func(s *Sched, t *Task, a *[6]uint64) int64 { return s.open(t, a[1], a[2]) },
	// fs/fcntl.c: SYSCALL_DEFINE3(fcntl): F_GETFD/F_SETFD (FD_CLOEXEC)
	"fcntl": func(s *Sched, t *Task, a *[6]uint64) int64 {
		r, err := t.Files.Fcntl(int64(int32(a[0])), a[1], a[2])
		if err != 0 {
			return errno(err)
		}
		return r
	},
	// kernel/sys.c: SYSCALL_DEFINE5(prctl)
	"prctl": func(s *Sched, t *Task, a *[6]uint64) int64 {
		switch a[0] {
		case uapi.PR_SET_NAME:
			name, ok := t.MM.String(a[1])
			if !ok {
				return errno(uapi.EFAULT)
			}
			s.SetComm(t, name, false) // set_task_comm()
			return 0
		case uapi.PR_GET_NAME:
			return 0
		case uapi.PR_GET_TIMERSLACK:
			return int64(min(uint64(t.TimerSlack), math.MaxInt64)) // "if (current->timer_slack_ns > ULONG_MAX) error = ULONG_MAX"
		case uapi.PR_SET_TIMERSLACK:
			// The model has no rt or deadline policy ("if
			// (rt_or_dl_task_policy(current)) break;"); arg2 is an
			// unsigned long, so only 0 restores the default.
			if a[1] == 0 {
				t.TimerSlack = t.DefaultTimerSlack
			} else {
				t.TimerSlack = sim.Duration(min(a[1], math.MaxInt64))
			}
			return 0
		}
		return errno(uapi.EINVAL) // the options the model does not know, as the kernel's default case
	},
	// arch/x86/kernel/sys_x86_64.c: SYSCALL_DEFINE6(mmap) -> ksys_mmap_pgoff()
	"mmap": func(s *Sched, t *Task, a *[6]uint64) int64 {
		var of *mm.OpenFile
		var f *mm.File
		if a[3]&uapi.MAP_ANONYMOUS == 0 {
			if of = t.Files.Fget(int64(int32(a[4]))); of == nil || of.Inode == nil {
				return errno(uapi.EBADF)
			}
			f = of.Inode
		}
		var mayMap func() uapi.Errno
		if of != nil {
			mayMap = func() uapi.Errno {
				if !of.MayMap(a[2], a[3]) {
					return uapi.EACCES // do_mmap(): after the length, type and address checks
				}
				return 0
			}
		}
		v, err := t.MM.MmapChecked(a[0], a[1], a[2], a[3], f, a[5], mayMap)
		if err != 0 {
			return errno(err)
		}
		if f != nil {
			v.SetReadAhead(of.ReadAhead(s.FS)) // vma->vm_file: the open file's f_ra
		}
		s.mmapHooks(t, v) // mmap_region() -> __mmap_complete() -> perf_event_mmap()
		// do_mmap(): *populate for VM_LOCKED, or MAP_POPULATE without MAP_NONBLOCK
		if a[3]&uapi.MAP_LOCKED != 0 || a[3]&(uapi.MAP_POPULATE|uapi.MAP_NONBLOCK) == uapi.MAP_POPULATE {
			s.populate(t, v) // vm_mmap_pgoff() -> mm_populate(), after the mmap lock is dropped
		}
		return int64(v.Start)
	},
	// mm/mprotect.c: SYSCALL_DEFINE3(mprotect): an MMAP2 for each VMA changed
	"mprotect": func(s *Sched, t *Task, a *[6]uint64) int64 {
		changed, err := t.MM.Mprotect(a[0], a[1], a[2])
		for _, v := range changed {
			s.mmapHooks(t, v) // mprotect_fixup() -> perf_event_mmap()
		}
		return errno(err)
	},
	// mm/mmap.c: SYSCALL_DEFINE1(brk): do_brk_flags() -> perf_event_mmap() of
	// the heap VMA made or grown (before mm->brk moves: mm/brk.go)
	"brk": func(s *Sched, t *Task, a *[6]uint64) int64 {
		ret, v := t.MM.Brk(a[0])
		if v != nil {
			s.mmapHooks(t, v)
			t.MM.NameHeap(v)
		}
		return int64(ret)
	},
	// fs/open.c: SYSCALL_DEFINE2(ftruncate) -> do_ftruncate(): i_size set,
	// the page cache past it dropped (truncate_pagecache())
	"ftruncate": func(s *Sched, t *Task, a *[6]uint64) int64 {
		of := t.Files.Fget(int64(int32(a[0])))
		switch {
		case int64(a[1]) < 0: // do_sys_ftruncate(): before the fd
			return errno(uapi.EINVAL)
		case of == nil:
			return errno(uapi.EBADF)
		case !of.Regular() || !of.Writable(): // do_ftruncate(): !S_ISREG(inode->i_mode) || !(file->f_mode & FMODE_WRITE)
			return errno(uapi.EINVAL)
		case int64(a[1]) > mm.SMaxBytes: // do_truncate() -> ext4_setattr() -> inode_newsize_ok()
			return errno(uapi.EFBIG)
		}
		s.truncate(of.Inode, int64(a[1]))
		return 0
	},
	// mm/madvise.c: SYSCALL_DEFINE3(madvise): no perf record
	"madvise": func(s *Sched, t *Task, a *[6]uint64) int64 {
		return errno(t.MM.Madvise(a[0], a[1], int64(a[2]), t.CPU().Now()))
	},
	// mm/fadvise.c: ksys_fadvise64_64() -> generic_fadvise(): what a
	// DONTNEED cannot drop is what a PTE of any address space maps
	"fadvise64": func(s *Sched, t *Task, a *[6]uint64) int64 {
		f := t.Files.Fget(int64(int32(a[0])))
		if f == nil {
			return errno(uapi.EBADF)
		}
		mapped := func(pgoff uint64) bool {
			found := false
			s.eachMM(func(m *mm.MM) { found = found || m.MapsFilePage(f.Inode, pgoff) })
			return found
		}
		return errno(f.Fadvise(s.FS, int64(a[1]), int64(a[2]), int64(int32(a[3])), t.CPU().Now(), mapped))
	},
	// mm/mremap.c: SYSCALL_DEFINE5(mremap): no perf record
	"mremap": func(s *Sched, t *Task, a *[6]uint64) int64 {
		addr, err := t.MM.Mremap(a[0], a[1], a[2], a[3], a[4])
		if err != 0 {
			return errno(err)
		}
		return int64(addr)
	},
	// mm/mmap.c: SYSCALL_DEFINE2(munmap)
	"munmap": func(s *Sched, t *Task, a *[6]uint64) int64 {
		s.accessMunmap(t) // footprint_munmap.go
		return errno(t.MM.Munmap(a[0], a[1]))
	},
	// fs/exec.c: SYSCALL_DEFINE3(execve)
	"execve": func(s *Sched, t *Task, a *[6]uint64) int64 {
		file, ok := t.MM.String(a[0])
		s.accessExecPath(t, ok) // footprint_exec.go
		if !ok {
			return errno(uapi.EFAULT)
		}
		s.Execve(t, file)
		return 0
	},
}

func (s *Sched) open(t *Task, pathAddr, flags uint64) int64 {
	p, ok := t.MM.String(pathAddr)
	if !ok {
		return errno(uapi.EFAULT)
	}
	// Every path exists but one O_CREAT|O_EXCL makes: it succeeds only for
	// a path the run has not met yet (not a /dev file), and the new file
	// is empty.
	excl := flags&(uapi.O_CREAT|uapi.O_EXCL) == uapi.O_CREAT|uapi.O_EXCL
	if excl && (s.FS.Cached(p) || strings.HasPrefix(p, "/dev/")) {
		return errno(uapi.EEXIST) // open_last_lookups() -> lookup_open(): O_EXCL on a positive dentry
	}
	f := s.FS.Lookup(p)
	fd, err := t.Files.Install(f, flags)
	if err != 0 {
		return errno(err)
	}
	if flags&uapi.O_TRUNC != 0 || excl {
		s.truncate(f, 0) // do_open() -> handle_truncate(); or a new inode, i_size 0
	}
	return int64(fd)
}

// truncate sets f's size: its page cache past it is dropped, and so is
// every PTE past it of every address space that maps it.
// mm/truncate.c: truncate_setsize() -> truncate_pagecache()
func (s *Sched) truncate(f *mm.File, size int64) {
	f.Truncate(size)
	s.eachMM(func(m *mm.MM) { m.ZapPastEOF(f) })
}

// vfsRWChecks are vfs_read()'s and vfs_write()'s first refusals of a
// read or write of a[2] bytes at buffer a[1]: the file not open for it
// (EBADF), a write of a file with no write method (perf's: EINVAL), then
// the buffer not the user's (EFAULT); rw_verify_area() is fileIO's.
// fs/read_write.c: vfs_read(), vfs_write()
func vfsRWChecks(f *mm.OpenFile, a *[6]uint64, write bool) uapi.Errno {
	switch {
	case write && !f.Writable(), !write && !f.Readable():
		return uapi.EBADF // !(file->f_mode & FMODE_READ) / FMODE_WRITE, before access_ok()
	case write && f.Anon != nil:
		return uapi.EINVAL // !(file->f_mode & FMODE_CAN_WRITE): perf_fops has no write
	case !accessOK(a[1], a[2]):
		return uapi.EFAULT // !access_ok(buf, count)
	}
	return 0
}

// accessOK is access_ok(buf, count) on x86-64: the range ends at or below
// USER_PTR_MAX (TASK_SIZE_MAX - 1) and does not wrap. A count negative as
// a ssize_t fails here, before rw_verify_area() could say EINVAL.
// arch/x86/include/asm/uaccess_64.h: __access_ok(), valid_user_address()
func accessOK(buf, count uint64) bool {
	const userPtrMax = mm.StackTop - 1 // TASK_SIZE_MAX - 1
	end := buf + count
	return end >= buf && end <= userPtrMax
}

// maxRWCount is MAX_RW_COUNT, the most one read(2) or write(2) moves:
// INT_MAX & PAGE_MASK.
// include/linux/fs.h: #define MAX_RW_COUNT (INT_MAX & PAGE_MASK)
const maxRWCount = 0x7ffff000

// fileIO is read(2) or write(2) of count bytes of a regular file at pos
// (-1: at f_pos, which moves), through its page cache, to or from the
// buffer at buf (uaccess.go: its pages fault in from the kernel, and a bad
// one ends the copy short): the task waits in D for what the disk has
// still to read. The I/O runs on a copy of f_pos,
// stored back when it is done (ksys_read()'s local pos), and pread64(2)
// and pwrite64(2) never touch f_pos: another thread's read() while this
// one sleeps sees f_pos as it was. The path is marked unaudited: the page
// cache is shared by every process.
// fs/read_write.c: ksys_read(), ksys_pread64(); vfs_read() -> ext4_file_read_iter() -> filemap_read();
// vfs_write() -> ext4_buffered_write_iter() -> generic_perform_write()
func (s *Sched) fileIO(t *Task, f *mm.OpenFile, pos int64, buf, count uint64, write bool) int64 {
	if s.M.FootprintListening() {
		t.CPU().Unaudited("filemap_read") // the page cache, f_pos, f_ra
	}
	at := pos
	if pos < 0 {
		at = f.Pos // ksys_read(): pos = *file_ppos(file)
	}
	if int64(count) < 0 || at >= 0 && at+int64(count) < 0 {
		return errno(uapi.EINVAL) // rw_verify_area(): (ssize_t) count < 0, (loff_t) (pos + count) < 0
	}
	count = min(count, maxRWCount) // vfs_read(), vfs_write(): if (count > MAX_RW_COUNT) count = MAX_RW_COUNT
	now, wait := s.ioClock(t)
	var n int64
	var err uapi.Errno
	u := &userBuf{s: s, t: t, at: buf}
	if write {
		n, err = f.Write(&at, count, now, wait, u.fromUser)
	} else {
		n, err = f.Read(s.FS, &at, count, now, wait, u.toUser)
	}
	if pos < 0 && err == 0 && n > 0 {
		f.Pos = at // ksys_read(): if (ret >= 0 && ppos) f.file->f_pos = pos
	}
	if err != 0 {
		return errno(err)
	}
	perKiB := s.Cfg.Cost.FileReadPerKiB
	if write {
		perKiB = s.Cfg.Cost.FileWritePerKiB
	}
	t.Spend(sim.Duration(n) * perKiB / 1024) // the copy to or from the page cache
	return n
}

// positionedIO is pread64(2) or pwrite64(2): EINVAL for a negative pos,
// ESPIPE for an fd that is not a regular file (a tty: FMODE_PREAD unset).
func (s *Sched) positionedIO(t *Task, a *[6]uint64, write bool) int64 {
	f := t.Files.Fget(int64(int32(a[0])))
	switch {
	case int64(a[3]) < 0:
		return errno(uapi.EINVAL)
	case f == nil:
		return errno(uapi.EBADF)
	case !f.Regular():
		return errno(uapi.ESPIPE) // before vfs_read(): !(file->f_mode & FMODE_PREAD)
	}
	if e := vfsRWChecks(f, a, write); e != 0 {
		return errno(e)
	}
	return s.fileIO(t, f, int64(a[3]), a[1], a[2], write)
}

// fsync is fsync(2) and fdatasync(2): a regular file's dirty pages are
// written back and waited for (D); any other file of the model's (a tty,
// perf's anon inode) has no ->fsync: EINVAL.
// fs/sync.c: do_fsync() -> vfs_fsync_range(): if (!file->f_op->fsync) return -EINVAL
func (s *Sched) fsync(t *Task, a *[6]uint64) int64 {
	f := t.Files.Fget(int64(int32(a[0])))
	switch {
	case f == nil:
		return errno(uapi.EBADF)
	case !f.Regular():
		return errno(uapi.EINVAL)
	}
	f.Fsync(s.ioClock(t))
	return 0
}

// ioClock is the clock t's file I/O runs by (its CPU's) and its wait for
// the disk: asleep in D until then.
func (s *Sched) ioClock(t *Task) (now func() sim.Time, wait func(until sim.Time)) {
	now = func() sim.Time { return t.CPU().Now() }
	return now, func(until sim.Time) {
		if d := until - now(); d > 0 {
			s.ioWait(t, d)
		}
	}
}

// eachMM calls fn with each address space a task still uses, once (the
// file's i_mmap tree, in the kernel: the address spaces that map it; an
// exited task's has had its exit_mmap()).
func (s *Sched) eachMM(fn func(m *mm.MM)) {
	seen := map[*mm.MM]bool{}
	for _, t := range s.Tasks {
		if t.MM != nil && t.MM.Users > 0 && !seen[t.MM] {
			seen[t.MM] = true
			fn(t.MM)
		}
	}
}

// unshareFiles gives t a table of its own when another process still shares
// it (CLONE_FILES without CLONE_THREAD: de_thread() left no thread), so the
// exec's close-on-exec closes only its own copy.
// kernel/fork.c: unshare_files()
func (s *Sched) unshareFiles(t *Task) {
	if t.Files.Users <= 1 {
		return
	}
	t.Files.Users--
	t.Files = t.Files.Dup()
	t.KeyFiles()
}

// execLoadShares is how many parts Execve spends cost.Profile.ExecLoad in.
const execLoadShares = 5

// Interp is the ELF interpreter execve maps with each image.
const Interp = "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

// Execve replaces t's address space with the image of file and tells perf,
// in begin_new_exec()'s and load_elf_binary()'s order: the new mm
// (exec_mmap()), perf_event_exec() (the enable_on_exec events),
// __set_task_comm(basename, exec) (COMM with PERF_RECORD_MISC_COMM_EXEC),
// then the mappings: the stack (setup_arg_pages()), the image's PT_LOAD
// segments (elf_load()), the interpreter's (load_elf_interp()), the vdso's
// text and data (map_vdso()), each a perf_event_mmap() (the stack and the
// vdso data reach only attr.mmap_data events). The program goes on after it as the new image's.
// The loader's own later mmaps (libc) are the program's to make.
// fs/exec.c: begin_new_exec(); fs/binfmt_elf.c: load_elf_binary()
func (s *Sched) Execve(t *Task, file string) {
	s.accessSchedExec(t)
	s.schedExec(t) // bprm_execve(): sched_exec(), before exec_binprm()
	// alloc_bprm(), copy_strings() and load_elf_binary() up to
	// begin_new_exec(): the file opened, the headers read, the
	// interpreter opened; sched_exec() is early in bprm_execve(), so the
	// model spends it all on the CPU sched_exec() chose (cost.Profile.ExecStart)
	t.Spend(s.Cfg.Cost.ExecStart)
	oldPID := t.TID // exec_binprm(): old_pid = current->pid, before de_thread()
	s.accessDeThread(t)
	s.deThread(t) // begin_new_exec(): the only thread left (exec_dethread.go)
	old := t.MM
	t.MM = mm.New() // exec_mmap()
	s.keyMM(t)
	s.accessExecMM(t, old)
	if old != nil && old.Users > 1 {
		old.Users--
	} else if old != nil {
		// exec_mmap() -> mmput() of the last user: exit_mmap() unmaps and
		// frees the old VMAs before remove_vma() closes each (the perf
		// VMAs' close is the ExecHook's execMmap), as an exit's
		// exit_mm() does (cost.Profile.ExitMMap)
		t.Spend(s.Cfg.Cost.ExitMMap)
	}
	s.eachHook(func(h any) {
		if c, ok := h.(ExecHook); ok {
			c.TaskExec(t) // perf_event_exec()
		}
	})
	s.accessComm(t)
	s.SetComm(t, path.Base(file), true)
	s.accessFlushSignals(t)
	s.flushSignalHandlers(t) // begin_new_exec(): flush_signal_handlers(me, 0)
	// begin_new_exec(): unshare_files(), then do_close_on_exec(me->files):
	// the O_CLOEXEC fds, perf's among them (the last fput() releases the
	// event)
	if t.Files != nil {
		s.accessUnshareFiles(t) // footprint_exec.go
		s.unshareFiles(t)
		s.accessCloseOnExec(t)
		for _, f := range t.Files.CloseOnExec() {
			s.markFput(t, f)
			s.fput(t, f)
		}
	}
	// The rest of the exec's CPU time (cost.Profile.ExecLoad) in five
	// equal shares, one before each part that reports its mappings and
	// one after: setup_new_exec() and setup_arg_pages(), the image's
	// elf_load()s, load_elf_interp(), map_vdso(), then
	// create_elf_tables(), start_thread() and bprm_execve()'s cleanup.
	load := s.Cfg.Cost.ExecLoad / execLoadShares
	// load_elf_binary() -> setup_arg_pages() -> mprotect_fixup() ->
	// perf_event_mmap() of the stack
	t.Spend(load)
	if st := t.MM.Stack(); st != nil {
		s.mmapHooks(t, st)
	}
	t.Spend(load)
	s.accessExecVMAs(t, "elf_load")                            // footprint_exec.go
	image := t.MM.LoadELF(s.lookupFile(t, file), mm.ImageBase) // the model makes the inode here, not at do_open_execat()
	for _, v := range image {
		s.mmapHooks(t, v)
	}
	s.padzero(t, image)
	s.accessExecVMAs(t, "set_brk")
	t.MM.SetBrk(image[len(image)-1].End) // mm->start_brk = mm->brk = ELF_PAGEALIGN(elf_brk)
	t.Spend(load)
	s.accessExecVMAs(t, "load_elf_interp")
	interp := t.MM.LoadELF(s.lookupFile(t, Interp), 0)
	for _, v := range interp {
		s.mmapHooks(t, v)
	}
	s.padzero(t, interp)
	t.Spend(load)
	s.accessExecVMAs(t, "map_vdso")
	for _, v := range t.MM.MapVdso() { // map_vdso(): [vdso], [vvar], [vvar_vclock]
		s.mmapHooks(t, v)
	}
	// create_elf_tables(), start_thread(), and the rest to the syscall's exit
	t.Spend(s.Cfg.Cost.ExecLoad - (execLoadShares-1)*load)
	for _, h := range s.TraceHooks { // exec_binprm(): trace_sched_process_exec(current, old_pid, bprm)
		h.SchedProcessExec(t, file, oldPID)
	}
}

// padzero is elf_load()'s padzero() of the data segment of an image just
// mapped: clear_user() of the rest of the page its file part ends in, a
// write to a private file mapping from kernel mode, so a fault
// (do_cow_fault(): the page-cache page copied) that the page-faults event
// counts at elf_load, as every exec here shows (cost.ExecPadzeroFaults).
// The image is in the page cache (the execs measured found it there).
// fs/binfmt_elf.c: elf_load() -> padzero() -> clear_user()
func (s *Sched) padzero(t *Task, image []*mm.VMA) {
	addr := mm.PadzeroAddr(image)
	if mapped(t, addr, true) {
		return
	}
	cached := t.MM.Resident(addr)
	s.accessPadzero(t, t.MM.Find(addr).File, cached)
	s.handleFault(t, addr, true, "elf_load")
}

// touch runs a touch step: each page of the range is accessed; the first
// access of a page faults, and so does a write to a read-only PTE (the zero
// page, a page-cache page of a private mapping, a page shared
// copy-on-write since a fork). A bad access kills the task (SIGSEGV), which
// ends its program.
func (s *Sched) touch(t *Task, op *Op) bool {
	s.accessMMAlloc(t) // a task made with no address space gets its first here (footprint_mm_alloc.go)
	t.ensureMM(s)
	base := t.argValue(op.Args[0])
	write := op.Name == "write"
	for i := 0; i < op.N; i++ {
		addr := base + uint64(i)*mm.PageSize
		s.accessTouch(t) // footprint_user.go
		if mapped(t, addr, write) {
			continue
		}
		if !s.pageFault(t, addr, write) {
			return false
		}
	}
	return true
}

// mapped reports whether t's access of addr takes no fault: the page has
// a PTE, and a write a writable one (not the zero page, a page-cache page
// of a private mapping, a page shared copy-on-write since a fork).
func mapped(t *Task, addr uint64, write bool) bool {
	if !t.MM.Present(addr) {
		return false
	}
	v := t.MM.Find(addr)
	return v != nil && (!write || v.Flags&mm.VM_WRITE != 0 && !t.MM.WriteProtected(addr))
}

// pageFault is a user page fault at addr: the exception entry, the
// page-faults event with the user regs of the access, handle_mm_fault(),
// the major/minor accounting, and the return to user mode (a point where the
// task can be preempted). It reports false when the access was bad (SIGSEGV
// kills the task: no handler in the model).
// arch/x86/mm/fault.c: exc_page_fault() -> do_user_addr_fault()
func (s *Sched) pageFault(t *Task, addr uint64, write bool) bool {
	s.setUser(t, false)
	t.Step("exc_page_fault")
	if !s.handleFault(t, addr, write, "") {
		t.Segfaulted = true
		return false
	}
	s.exitToUserMode(t, false) // irqentry_exit_to_user_mode()
	return true
}

// handleFault is do_user_addr_fault() of a fault at addr, taken by user
// code (ip "") or by the kernel function ip copying to or from user
// memory: the page-faults event with the regs of the access, then
// handle_mm_fault() until it does not return VM_FAULT_RETRY (a retry waits
// in D for the page's read, then faults again; the fault is major if its
// first attempt was: FAULT_FLAG_TRIED), then the major/minor accounting. It
// reports false for a bad access (no VMA, or one that forbids it).
// arch/x86/mm/fault.c: do_user_addr_fault()
func (s *Sched) handleFault(t *Task, addr uint64, write bool, ip string) bool {
	s.eachHook(func(h any) {
		if f, ok := h.(FaultHook); ok {
			f.PageFault(t, addr, ip)
		}
	})
	now, wait := s.ioClock(t)
	res, how := t.MM.Fault(addr, write, now, func(r mm.FaultResult) {
		if r.Fault == mm.MajorFault {
			t.Spend(MajorFaultCost)
		}
		wait(r.RetryAt) // the read from disk: the task sleeps (D), another runs
	})
	if res == mm.BadAccess {
		return false
	}
	if res == mm.MajorFault {
		t.MajFlt++
	} else {
		t.MinFlt++
	}
	t.Spend(s.faultCost(how))
	s.eachHook(func(h any) {
		if f, ok := h.(FaultHook); ok {
			f.FaultAccounted(t, addr, res == mm.MajorFault, ip) // mm_account_fault()
		}
	})
	return true
}

// populate is mm_populate() of v: its faults, each charged its handler's
// cost and counted in t's min_flt (GUP's faults fire no perf event), the
// task waiting in D for what the disk reads. Unannotated: the page cache
// is every process's.
// mm/gup.c: __mm_populate()
func (s *Sched) populate(t *Task, v *mm.VMA) {
	if s.M.FootprintListening() {
		t.CPU().Unaudited("__mm_populate")
	}
	now, wait := s.ioClock(t)
	hows := t.MM.Populate(v, now, func(r mm.FaultResult) { wait(r.RetryAt) })
	for _, how := range hows {
		t.MinFlt++ // mm_account_fault(): regs NULL, no perf event
		t.Spend(s.faultCost(how))
	}
}

// ensureMM gives a task made without Spawn (and so without an address space
// or fd table) its own, as Spawn would.
func (t *Task) ensureMM(s *Sched) {
	if t.MM == nil {
		t.MM = mm.New()
		s.keyMM(t)
	}
	if t.Files == nil {
		t.Files = mm.NewFiles(s.FS)
		t.KeyFiles()
	}
}
