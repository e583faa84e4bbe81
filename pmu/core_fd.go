package pmu

import (
	"perfsim/mm"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// A perf fd is an fd of the process's file table (mm.Files, t.Files: shared
// by CLONE_FILES threads, copied by fork, closed at exec when
// close-on-exec) whose file is an anon inode file with the event behind it
// (anon_inode_getfile("[perf_event]", &perf_fops, event, ...)): the event is
// its mm.AnonFile, and e.fileRefs the file's reference count (every fd that
// holds it, every mapping of it).

// GetFile is get_file(): one more reference to the event's file (dup_fd()
// copying the fd into a forked child's table).
func (e *Event) GetFile() { e.fileRefs++ }

// Fput implements sched.FileHook: an fd of t that held an event's file was
// closed (close(), do_close_on_exec()).
// fs/open.c: filp_close() -> fs/file_table.c: fput()
func (k *Kernel) Fput(t *sched.Task, f mm.AnonFile) {
	if e, ok := f.(*Event); ok && e.k == k {
		k.fput(t, e)
	}
}

// filesOf is t's file table; a task made without Spawn gets the one Spawn
// would have given it.
func (k *Kernel) filesOf(t *sched.Task) *mm.Files {
	if t.Files == nil {
		t.Files = mm.NewFiles(k.S.FS)
	}
	return t.Files
}

// lookup is fdget() + is_perf_file(): the event behind fd, or EBADF (a
// closed fd, or one whose file is not a perf event's).
// kernel/events/core.c: perf_fget_light()
func (k *Kernel) lookup(t *sched.Task, fd int) (*Event, error) {
	if t.Files == nil {
		return nil, uapi.EBADF
	}
	f := t.Files.Fget(int64(fd))
	if f == nil {
		return nil, uapi.EBADF
	}
	e, ok := f.Anon.(*Event)
	if !ok || e.k != k {
		return nil, uapi.EBADF // "if (fd_file(f)->f_op != &perf_fops) return -EBADF;"
	}
	return e, nil
}

// EventOf returns the event behind t's fd (for tests and observers).
func (k *Kernel) EventOf(t *sched.Task, fd int) *Event {
	e, _ := k.lookup(t, fd)
	return e
}

// panicCrash raises a model oops (the engine reports it with its schedule).
func panicCrash(format string, args ...any) { sim.Crash(format, args...) }

// ShareFiles makes t use owner's file table, as a thread created with
// CLONE_FILES does (perf record's reader threads): the table t had is let go
// (put_files_struct()) when nothing else uses it.
func (k *Kernel) ShareFiles(t, owner *sched.Task) {
	shared := k.filesOf(owner)
	if t.Files == shared {
		return
	}
	if t.Files != nil && t.Files.Users > 1 {
		t.Files.Users--
	}
	t.Files = shared.Share()
}
