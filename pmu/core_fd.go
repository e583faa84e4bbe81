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
// closed other than by close(2) (do_close_on_exec(), exit_files(); close(2)
// is FputClose, knob_close_fput.go).
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
		t.KeyFiles()
	}
	return t.Files
}

// lookup is fdget() + is_perf_file(): the event behind fd, or EBADF (a
// closed fd, or one whose file is not a perf event's).
// kernel/events/core.c: perf_fget_light()
func (k *Kernel) lookup(t *sched.Task, fd int) (*Event, error) {
	k.accessFdTable(t, false) // footprint_setup.go
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

// fdget is fdget(fd) for a perf fd: the event, and whether the file's
// reference count was raised for the call. __fget_light() takes no
// reference when the table is the task's alone (files->count == 1: nothing
// else can close the fd meanwhile); a shared table's fd is held
// (FDPUT_FPUT), so a close() from another thread during the call drops a
// reference that is not the last, and the event is released at the caller's
// fdput() (perf_release() at the final fput()).
// fs/file.c: __fget_light(), include/linux/file.h: fdput()
func (k *Kernel) fdget(t *sched.Task, fd int) (*Event, bool, error) {
	e, err := k.lookup(t, fd)
	if err != nil {
		return nil, false, err
	}
	k.accessFdTable(t, true)
	if t.Files.Users <= 1 {
		return e, false, nil
	}
	k.accessFileRef(t, e, true)
	e.GetFile()
	return e, true, nil
}

// fdput drops what fdget took.
func (k *Kernel) fdput(t *sched.Task, e *Event, ref bool) {
	if ref {
		k.accessFileRef(t, e, false)
		if e.fileRefs == 1 {
			k.stats.fdputLast++ // the fd was closed during the call
		}
		k.fput(t, e)
	}
}

func init() {
	RegisterObservable("files.fdput-release", "perf files whose final fput() was an ioctl's or read's fdput(): the fd was closed by another thread during the call",
		func(k *Kernel) int64 { return int64(k.stats.fdputLast) })
	RegisterStepHelp(map[string]string{
		"perf_ioctl:fdget": "fs/ioctl.c: SYSCALL_DEFINE3(ioctl): the perf file held by fdget() (a reference when the fd table is shared), before perf_ioctl() takes ctx->mutex: a close() of the fd landing here drops a reference that is not the last",
		"perf_read:fdget":  "fs/read_write.c: ksys_read(): the perf file held by fdget_pos(), before perf_read() takes ctx->mutex: a close() of the fd landing here does not release the event until the read's fdput()",
	})
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
