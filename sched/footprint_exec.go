package sched

import (
	"perfsim/cpu"
	"perfsim/mm"
)

// The footprint of execve()'s body (fs/exec.c: do_execveat_common() ->
// bprm_execve() -> exec_binprm() -> load_elf_binary() -> begin_new_exec()),
// a modelled body whose accesses are annotated (annotatedSysModels), so the
// syscall's entry fragment ("syscall_enter_from_user_mode") may be complete
// up to the body's first step point, and the fragments that start at a step
// point inside it (a side-band record's, perf_output_put_handle:nest-zero)
// may be complete up to the next:
//
//   - the path copied from user memory (strncpy_from_user()), the file's
//     inode looked up (the model's file system makes an inode on first use:
//     a write of the machine's files, whose order decides the inode numbers
//     MMAP2 reports);
//   - sched_exec(): current's affinity read; a task that may run on another
//     CPU is placed by select_task_rq_fair() (every run queue's load):
//     marked;
//   - de_thread(): the thread group read; a process with other threads, or
//     a thread that is not the leader, is marked (zap_other_threads(), the
//     wait, exchange_tids() nobody annotated here);
//   - exec_mmap(): the new mm made and current->mm written (the old one's
//     mm_users dropped when another process shares it); perf_event_exec()
//     (pmu/footprint_exec.go: the perf side, its own marks);
//   - __set_task_comm(): current->comm written, then perf_event_comm()
//     (pmu/footprint_sideband.go: the walk; the exec's caller annotated);
//   - flush_signal_handlers(): current's handlers read and replaced (a
//     sighand another task shares is marked: unshare_sighand());
//   - unshare_files(): a table another process shares is copied (one
//     holding perf's files is marked: dup_fd()'s get_file()), then
//     do_close_on_exec(): the fd table written; a closed fd of an anon
//     inode file (perf's event: its fput() may release it) is marked;
//   - load_elf_binary()'s mappings (setup_arg_pages(), elf_load(),
//     load_elf_interp(), map_vdso(), set_brk()): the new mm's VMAs written,
//     each a perf_event_mmap() (pmu/sideband_mm.go, annotated);
//   - trace_sched_process_exec(): perf's tracepoint hook (pmu/tp_sched.go:
//     fireSched annotates its lookup, marks perf_tp_event);
//   - the return value (task_pt_regs(current): the exit's annotation).
//
// A failing exec (-EFAULT: a bad path) is marked.

// fsKey is the machine's file system (mm.FS: its inodes by path), one key:
// the model makes an inode the first time a path is looked up, so two
// lookups of one new path conflict (whichever is first numbers it).
type fsKey struct{ fs *mm.FS }

// FootprintKey implements cpu.FootprintKeyer.
func (fsKey) FootprintKey() string { return "the file system (inodes by path)" }

// FootprintExtent is the memory the key names (explore's write audit).
func (k fsKey) FootprintExtent() []any { return []any{k.fs} }

// accessExecPath annotates the exec's copy of its path from user memory
// (the string the program stored: argValue) and, ok false, marks the
// failing exec.
func (s *Sched) accessExecPath(t *Task, ok bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t.MM, "the program's strings (user memory)", cpu.MarkedRead, "strncpy_from_user") // fs/exec.c: do_execveat_common() -> getname(): strncpy_from_user()
	if !ok {
		c.Unaudited("a failing execve") // fs/exec.c: do_execveat_common(): the error paths
	}
}

// lookupFile is s.FS.Lookup(path) with its access annotated: a read of the
// machine's inodes, or the write of a new one.
func (s *Sched) lookupFile(t *Task, path string) *mm.File {
	if s.M.FootprintListening() {
		op := cpu.MarkedRead
		if !s.FS.Cached(path) {
			op = cpu.MarkedWrite
		}
		t.CPU().AccessMarkedOnly(fsKey{s.FS}, "inode cache", op, "do_open_execat") // fs/exec.c: do_open_execat() -> do_filp_open(): the path walk finds (the model: makes) the inode
	}
	return s.FS.Lookup(path)
}

// accessSchedExec annotates sched_exec()'s read of current's affinity; a
// task allowed on more than one CPU is placed by select_task_rq_fair(),
// which reads every run queue: marked.
func (s *Sched) accessSchedExec(t *Task) {
	if !s.M.FootprintListening() || !s.cfsPlacement() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "p->cpus_ptr", cpu.MarkedRead, "sched_exec") // kernel/sched/core.c: sched_exec(): select_task_rq(p, ...) reads p->cpus_ptr, p->nr_cpus_allowed first
	if s.nrCPUsAllowed(t) > 1 {
		c.Unaudited("sched_exec") // kernel/sched/core.c: sched_exec() -> select_task_rq_fair(): every CPU's load
	}
}

// accessDeThread annotates de_thread()'s test of the thread group (empty,
// current the leader); any other case is marked.
func (s *Sched) accessDeThread(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t.Leader(), "signal->thread_head", cpu.MarkedRead, "de_thread") // fs/exec.c: de_thread(): if (thread_group_empty(tsk)) goto no_thread_group
	if t != t.Leader() || !s.othersExited(t) {
		c.Unaudited("de_thread") // fs/exec.c: de_thread(): zap_other_threads(), the wait, exchange_tids()
	}
}

// accessExecMM annotates exec_mmap()'s switch to the new mm: current->mm
// written (the task's own; a sample's user callchain and the MMU's walk
// read it on this CPU), the new mm's VMAs (load_elf_binary() fills it
// next: written), and the old mm's mm_users dropped when another process
// still uses it (mmput()).
func (s *Sched) accessExecMM(t *Task, old *mm.MM) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "task->mm", cpu.MarkedWrite, "exec_mmap") // fs/exec.c: exec_mmap(): tsk->mm = mm; tsk->active_mm = mm
	s.accessExecVMAs(t, "exec_mmap")
	if old != nil && old.Users > 1 {
		c.AccessMarkedOnly(old, "mm->mm_users", cpu.MarkedWrite, "mmput") // kernel/fork.c: mmput(): atomic_dec_and_test(&mm->mm_users)
	}
}

// accessExecVMAs annotates load_elf_binary()'s writes of the new mm (its
// VMAs, its brk), each in the fragment it runs in: a record of the
// mapping before (perf_event_mmap()) ends the fragment at its own step
// points. The new mm is the task's alone; a sample's user callchain and
// the MMU's walk read it, on this CPU.
func (s *Sched) accessExecVMAs(t *Task, fn string) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t.MM, "mm->mmap", cpu.MarkedWrite, fn) // fs/binfmt_elf.c: load_elf_binary(): setup_arg_pages(), elf_load(), load_elf_interp(), map_vdso(), set_brk(): the new mm's VMAs, mm->brk
	}
}

// accessComm annotates __set_task_comm()'s write of current->comm, which
// the sched tracepoints of other CPUs (a wake-up's) and perf's COMM
// record read.
func (s *Sched) accessComm(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t, "task->comm", cpu.MarkedWrite, "__set_task_comm") // fs/exec.c: __set_task_comm(): strscpy_pad(tsk->comm, buf)
	}
}

// accessFlushSignals annotates flush_signal_handlers(): current's
// handlers read and (the model: a copy of them) written; a sighand another
// live task shares (CLONE_SIGHAND) is marked: unshare_sighand() and its
// sharers nobody annotated here.
func (s *Sched) accessFlushSignals(t *Task) {
	if !s.M.FootprintListening() || t.defaultSighand() {
		return
	}
	c := t.CPU()
	h := t.sighand()
	for _, u := range s.Tasks {
		if u != t && u.State != Dead && u.sigh == h {
			c.Unaudited("unshare_sighand") // fs/exec.c: unshare_sighand(): refcount_read(&oldsighand->count) != 1
			return
		}
	}
	c.AccessMarkedOnly(t, "sighand->action", cpu.MarkedWrite, "flush_signal_handlers") // kernel/signal.c: flush_signal_handlers(): ka->sa.sa_handler = SIG_DFL
}

// filesMemKey is the model's memory of an fd table (mm.Files), the
// write audit's extent of the exec's write of it, named after the table
// as pmu's fdTableKey is (the kernel's key, which carries the conflicts,
// is the table itself, annotated beside it).
type filesMemKey struct{ files *mm.Files }

// FootprintKey implements cpu.FootprintKeyer.
func (f filesMemKey) FootprintKey() string {
	return f.files.FootprintKey() + " (the model's table: exec's)"
}

// String is the key's identity (explore's TestFootprintKeysStable).
func (f filesMemKey) String() string { return f.FootprintKey() }

// FootprintExtent implements the write audit's extent.
func (f filesMemKey) FootprintExtent() []any { return []any{f.files} }

// accessUnshareFiles annotates unshare_files(): current->files read; a
// table another process shares is copied (dup_fd(): the table read, the
// copy current's, the old table's count dropped); a shared table holding
// an anon inode file (perf's event: dup_fd()'s get_file() of it) is
// marked.
func (s *Sched) accessUnshareFiles(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "task->files", cpu.MarkedRead, "unshare_files") // kernel/fork.c: unshare_files(): current->files
	if t.Files.Users <= 1 {
		return
	}
	if t.Files.HasAnon() {
		c.Unaudited("dup_fd") // fs/file.c: dup_fd(): get_file() of each file, perf's among them
		return
	}
	c.AccessMarkedOnly(t.Files, "fdt->fd[]", cpu.MarkedRead, "dup_fd")                            // fs/file.c: dup_fd(): copy_fd_bitmaps(), the files copied under oldf->file_lock
	c.AccessMarkedOnly(t, "task->files", cpu.MarkedWrite, "unshare_files")                        // kernel/fork.c: unshare_files(): task_lock(task); task->files = copy
	c.AccessMarkedOnly(t.Files, "files->count", cpu.MarkedWrite, "put_files_struct")              // fs/file.c: put_files_struct(): atomic_dec_and_test(&files->count), which __fget_light() reads
	c.AccessMarkedOnly(filesMemKey{t.Files}, "files->count", cpu.MarkedWrite, "put_files_struct") // the model's count in the old table
}

// accessCloseOnExec annotates do_close_on_exec() of current's own table
// (unshare_files() made it so): written when it has close-on-exec fds;
// an anon inode file among the closed ones (perf's event: fput() may
// release it) is marked by markFput.
func (s *Sched) accessCloseOnExec(t *Task) {
	if !s.M.FootprintListening() || !t.Files.CloexecSet() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t.Files, "fdt->fd[]", cpu.MarkedWrite, "do_close_on_exec")              // fs/file.c: do_close_on_exec(): rcu_assign_pointer(fdt->fd[fd], NULL)
	c.AccessMarkedOnly(filesMemKey{t.Files}, "fdt->fd[]", cpu.MarkedWrite, "do_close_on_exec") // the model's table
}

// markFput marks the exec's fput() of an anon inode file it closed (perf's
// event: its release path).
func (s *Sched) markFput(t *Task, f *mm.OpenFile) {
	if f != nil && f.Anon != nil && s.M.FootprintListening() {
		t.CPU().Unaudited("fput") // fs/file.c: do_close_on_exec() -> filp_close() -> fput(): the file's release
	}
}

// pageCacheKey is a file's page cache (mapping->i_pages): every process
// that maps the file (ld.so: every exec) reads its folios.
type pageCacheKey struct{ f *mm.File }

// FootprintKey implements cpu.FootprintKeyer.
func (k pageCacheKey) FootprintKey() string { return "inode " + k.f.Path + " (i_pages)" }

// FootprintExtent is the memory the key names (explore's write audit).
func (k pageCacheKey) FootprintExtent() []any { return []any{k.f} }

// accessPadzero annotates elf_load()'s padzero() fault on the exec's new
// address space: the page tables and the VMA it faults in, the image's
// page cache it copies the page from (made resident here, a write, the
// first time a run maps the image), and the task's min_flt.
func (s *Sched) accessPadzero(t *Task, image *mm.File, resident bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t.MM, "mm->mmap", cpu.MarkedWrite, "padzero") // mm/memory.c: do_cow_fault(): the VMA's anon_vma, the anon page, the PTE (mmap_lock held)
	op := cpu.MarkedWrite
	if resident {
		op = cpu.MarkedRead
	}
	c.AccessMarkedOnly(pageCacheKey{image}, "mapping->i_pages", op, "padzero") // mm/filemap.c: filemap_fault() -> filemap_get_folio()
	c.AccessMarkedOnly(t, "p->min_flt", cpu.PlainWrite, "padzero")             // mm/memory.c: mm_account_fault(): current->min_flt++
}
