package mm

import "perfsim/uapi"

// close_on_exec: the fdtable's close_on_exec bitmap, set by O_CLOEXEC at
// open or fcntl(F_SETFD, FD_CLOEXEC), and do_close_on_exec() at exec.

// fcntl commands and the fd flag (include/uapi/asm-generic/fcntl.h).
const (
	F_GETFD    = 1
	F_SETFD    = 2
	FD_CLOEXEC = 1
)

// SetCloexec is __set_close_on_exec()/__clear_close_on_exec().
func (fl *Files) SetCloexec(fd int, on bool) {
	if fl.cloexec == nil {
		fl.cloexec = map[int]bool{}
	}
	if on {
		fl.cloexec[fd] = true
	} else {
		delete(fl.cloexec, fd)
	}
}

// Fcntl is fcntl(fd, F_GETFD/F_SETFD, arg): the FD_CLOEXEC flag; EBADF for
// a closed fd, EINVAL for a command the model does not know.
// fs/fcntl.c: do_fcntl()
func (fl *Files) Fcntl(fd int64, cmd, arg uint64) (int64, uapi.Errno) {
	if fl.Fget(fd) == nil {
		return 0, uapi.EBADF
	}
	switch cmd {
	case F_GETFD:
		if fl.cloexec[int(fd)] {
			return FD_CLOEXEC, 0
		}
		return 0, 0
	case F_SETFD:
		fl.SetCloexec(int(fd), arg&FD_CLOEXEC != 0)
		return 0, 0
	}
	return 0, uapi.EINVAL
}

// CloseOnExec is do_close_on_exec(): every fd marked close-on-exec is
// closed; it returns the files closed, whose references the caller drops
// (filp_close() -> fput()).
// fs/file.c: do_close_on_exec()
func (fl *Files) CloseOnExec() []*OpenFile {
	var closed []*OpenFile
	for fd, f := range fl.fds {
		if fl.cloexec[fd] && f != nil && f != reserved {
			fl.fds[fd] = nil
			closed = append(closed, f)
		}
	}
	fl.cloexec = nil // "fdt->close_on_exec[i] = 0;"
	return closed
}

// CloexecSet reports whether some fd is marked close-on-exec (what
// CloseOnExec would clear): the exec's annotation of its write
// (sched/footprint_exec.go).
func (fl *Files) CloexecSet() bool { return len(fl.cloexec) > 0 }

// HasAnon reports whether an fd of the table holds an anon inode file
// (perf's event): dup_fd()'s get_file() of it reaches the file's owner
// (sched/footprint_exec.go marks that).
func (fl *Files) HasAnon() bool {
	for _, f := range fl.fds {
		if f != nil && f.Anon != nil {
			return true
		}
	}
	return false
}
