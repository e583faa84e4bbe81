package pmu

import (
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// fdTable is a process's file table, reduced to its perf files: fds 0-2 are
// the standard streams, so the first perf fd is 3 (get_unused_fd_flags()).
type fdTable struct {
	files   []*Event     // files[fd]; nil for a free slot
	cloexec map[int]bool // the close_on_exec bitmap: PERF_FLAG_FD_CLOEXEC (O_CLOEXEC) at open
}

// maxFiles is RLIMIT_NOFILE's default soft limit.
const maxFiles = 1024

func (k *Kernel) fdt(t *sched.Task) *fdTable {
	ft := k.files[t]
	if ft == nil {
		ft = &fdTable{files: make([]*Event, 3)}
		k.files[t] = ft
	}
	return ft
}

// allocFD is get_unused_fd_flags(): the lowest free fd, or EMFILE.
func (ft *fdTable) allocFD() (int, error) {
	for fd := 3; fd < len(ft.files); fd++ {
		if ft.files[fd] == nil {
			return fd, nil
		}
	}
	if len(ft.files) >= maxFiles {
		return -1, uapi.EMFILE
	}
	ft.files = append(ft.files, nil)
	return len(ft.files) - 1, nil
}

// lookup is fdget() + is_perf_file(): the event behind fd, or EBADF.
func (k *Kernel) lookup(t *sched.Task, fd int) (*Event, error) {
	ft := k.files[t]
	if ft == nil || fd < 0 || fd >= len(ft.files) || ft.files[fd] == nil {
		return nil, uapi.EBADF
	}
	return ft.files[fd], nil
}

// EventOf returns the event behind t's fd (for tests and observers).
func (k *Kernel) EventOf(t *sched.Task, fd int) *Event {
	e, _ := k.lookup(t, fd)
	return e
}

// panicCrash raises a model oops (the engine reports it with its schedule).
func panicCrash(format string, args ...any) { sim.Crash(format, args...) }

// ShareFiles makes t use owner's file table, as a thread created with
// CLONE_FILES does (perf record's reader threads).
func (k *Kernel) ShareFiles(t, owner *sched.Task) {
	k.files[t] = k.fdt(owner)
}
