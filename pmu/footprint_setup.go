package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
)

// The footprints of perf's setup syscalls: ioctl(2) and mmap(2) on a perf
// fd (Ioctl, SetFilter, Mmap: their bodies are annotated up to their first
// step point, sched.Sched.SyscallAnnotated), ring_buffer_attach() and
// perf_mmap_close(), declared complete (cpu.DeclareComplete) from these
// step points up to the context's next:
//
//   - "perf_ioctl:fdget": perf_event_ctx_lock()'s read of event->ctx and
//     the take of ctx->mutex (a contended take, which sleeps, is marked),
//     up to perf_ioctl:ctx-locked; or, for an event with no context,
//     _perf_ioctl() as below.
//   - "perf_ioctl:ctx-locked": _perf_ioctl()'s commands: ID, the checks of
//     ENABLE, DISABLE, REFRESH and PERIOD up to the event_function_call()
//     they make (marked where it starts: another helper's IPI path),
//     PAUSE_OUTPUT up to its step point, SET_OUTPUT (the output fd's
//     lookup, both event->mmap_mutex, the rb checks) up to
//     ring_buffer_attach's step point; RESET's read of the count (marked:
//     perf_event_read() is read.go's); then the unlock of ctx->mutex (a
//     waiter woken is marked), fdput() (the last reference, which queues
//     ____fput, is marked) and the return to the syscall's exit (sched's).
//     ModifyAttributes and SetFilter, which reach the same step point,
//     mark their bodies after it.
//   - "perf_ioctl:PAUSE_OUTPUT:rb-read", "perf_ioctl:PAUSE_OUTPUT:checked":
//     the checks on the rb read, rb_toggle_paused(), and the same return.
//   - "ring_buffer_attach:rb-set": rcu_assign_pointer(event->rb), the old
//     rb's ring_buffer_put() (the last one, which frees it, is marked) and
//     the wake_up_all() of the event's pollers (marked when it has some),
//     then the caller: SET_OUTPUT's (annotated: the mutexes dropped and
//     the ioctl's return) and perf_mmap()'s (annotated up to the
//     syscall's exit), perf_mmap_close()'s (annotated, below); every
//     other caller (perf_event_open()'s SET_OUTPUT, _free_event(), a
//     perf_mmap() that found the old buffer unmapped) is marked where the
//     call returns into it (ringBufferAttachRet).
//   - "perf_mmap:mmap_mutex": perf_mmap() with event->mmap_mutex held: the
//     data area's perf_mmap_rb() (a second mapping of the event's buffer,
//     or the limits, the new buffer, its charge) up to
//     ring_buffer_attach's step point, or the unlock, the vma's file
//     reference, the mm's maps, mmap_lock's unlock and the fput() of the
//     syscall's fget(), up to the syscall's exit. The AUX area's
//     perf_mmap_aux() up to its has-aux step: footprint_mmap_aux.go.
//   - "perf_mmap_close:mmap_count-dec", "perf_mmap_close:detached":
//     event->mmap_count, event->mmap_mutex, the detach of the event and of
//     the buffer's other events (up to ring_buffer_attach's step point),
//     the pages uncharged, ring_buffer_put() and the vma's fput(); the
//     return into remove_vma()'s caller (munmap(), exit_mmap()) is marked.
//
// The bodies' own entries, before perf_ioctl:fdget (fdget(): the fd table,
// files->count, the file's f_count) and perf_mmap:mmap_mutex (fget(),
// mmap_lock taken: a take that sleeps, and the model's first mm of a task,
// marked) are the syscall entry's fragment, which sched declares. The write audit (explore's TestWriteAuditSetup)
// checks the writes.
func init() {
	cpu.DeclareComplete(
		"perf_ioctl:fdget",
		"perf_ioctl:ctx-locked",
		"perf_ioctl:PAUSE_OUTPUT:rb-read",
		"perf_ioctl:PAUSE_OUTPUT:checked",
		"ring_buffer_attach:rb-set",
		"perf_mmap:mmap_mutex",
		"perf_mmap_close:mmap_count-dec",
		"perf_mmap_close:detached",
	)
}

// setupCPU is the CPU the setup syscall of t runs on, when a footprint
// listener hears it: nil with none, or when t is not the task running
// there (a test's or an observer's look at t's fds from outside it).
func (k *Kernel) setupCPU(t *sched.Task) *cpu.CPU {
	if !k.M.FootprintListening() || t == nil {
		return nil
	}
	c := t.CPU()
	if c == nil || c.Context() != cpu.CtxTask || sched.TaskOf(c.Curr()) != t {
		return nil
	}
	return c
}

// accessFdTable annotates fdget()'s look at t's fd table: the file at fd
// (files_lookup_fd_raw()) and, for fdget(), whether the table is shared
// (files->count), which says whether the call takes a file reference.
func (k *Kernel) accessFdTable(t *sched.Task, count bool) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	if count {
		c.AccessMarkedOnly(t, "task->files", cpu.MarkedRead, "__fget_light") // fs/file.c: __fget_light(): current->files
		if t.Files != nil {
			c.AccessMarkedOnly(t.Files, "files->count", cpu.MarkedRead, "__fget_light") // fs/file.c: __fget_light(): if (likely(atomic_read_acquire(&files->count) == 1))
		}
		return
	}
	sched.AccessFdLookup(c, t, "fdget")
}

// accessFileRef annotates a change of the perf file's reference count
// (file->f_count, e.fileRefs): get_file() (an add, which commutes with
// other adds) or fput()'s atomic_long_dec_and_test() (whose result is
// read: a write). The last fput() queues ____fput as task work, which is
// marked: perf_release() follows.
func (k *Kernel) accessFileRef(t *sched.Task, e *Event, get bool) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	if get {
		c.AccessMarkedOnly(e, "file->f_count", cpu.AtomicAdd, "get_file") // include/linux/fs.h: get_file(): atomic_long_inc(&f->f_count)
		return
	}
	c.AccessMarkedOnly(e, "file->f_count", cpu.MarkedWrite, "fput") // fs/file_table.c: fput(): if (atomic_long_dec_and_test(&file->f_count))
	if e.fileRefs == 1 {
		c.Unaudited("____fput") // the last reference: task work, then perf_release()
	}
}

// mutexKey is a sched.Mutex by a stable key of its own (the key its SetKey
// gave the mutex's clock, which every lock and unlock touches as "sync",
// and " (struct mutex)": a key names one object), whose extent is the
// whole mutex: the owner and the waiters the lock writes. Every take and
// release touches the clock, which is what makes two takes conflict; this
// one is what the write audit needs.
type mutexKey struct {
	owner cpu.FootprintKeyer
	field string
	m     *sched.Mutex
}

// FootprintKey implements cpu.FootprintKeyer: OWNER/FIELD (struct mutex).
func (k mutexKey) FootprintKey() string {
	return k.owner.FootprintKey() + "/" + k.field + " (struct mutex)"
}

// FootprintExtent is where the model keeps the mutex (explore's write
// audit).
func (k mutexKey) FootprintExtent() []any { return []any{k.m} }

// ctxMutexMemoKey is the model's table of ctx->mutex, which ctxMutex fills
// on a context's first take: the mutex is the context's (its key), the
// table the model's (its extent).
type ctxMutexMemoKey struct {
	k   *Kernel
	ctx *Context
}

// FootprintKey implements cpu.FootprintKeyer: the context's mutex, made.
func (m ctxMutexMemoKey) FootprintKey() string {
	return m.ctx.FootprintKey() + "/ctx->mutex (mutex_init)"
}

// FootprintExtent implements the write audit's extent.
func (m ctxMutexMemoKey) FootprintExtent() []any { return []any{&m.k.ctxMutexes} }

// lockMutex takes mu (the field of owner) for t, annotated: a take that
// finds it held sleeps (mutex_lock()'s slow path, the scheduler's code),
// which is marked. It returns the mutex's count of contended takes once
// held, which unlockMutex compares to see waiters.
func (k *Kernel) lockMutex(t *sched.Task, mu *sched.Mutex, owner cpu.FootprintKeyer, field string, subclass int) int {
	if c := k.setupCPU(t); c != nil {
		accessMutexLock(c, t, mu, mutexKey{owner, field, mu}, "mutex_lock")
	}
	k.S.MutexLockNested(t, mu, subclass)
	return mu.Contended
}

// unlockMutex drops mu, annotated; n is lockMutex's answer: a take that
// found mu held meanwhile queued a waiter, which the unlock wakes
// (try_to_wake_up(), the scheduler's code): marked.
func (k *Kernel) unlockMutex(t *sched.Task, mu *sched.Mutex, owner cpu.FootprintKeyer, field string, n int) {
	if c := k.setupCPU(t); c != nil {
		accessMutexUnlock(c, t, mu, mutexKey{owner, field, mu}, "mutex_unlock", n)
	}
	k.S.MutexUnlock(t, mu)
}

// accessMutexLock annotates mutex_lock() of mu, whose footprint key is key:
// the owner's word, and current's held locks (t.mutexes, which only
// current reads); a take that finds mu held sleeps (mutex_lock()'s slow
// path, the scheduler's code), which is marked.
// kernel/locking/mutex.c: mutex_lock()
func accessMutexLock(c *cpu.CPU, t *sched.Task, mu *sched.Mutex, key any, fn string) {
	if mu.Owner() != nil {
		c.Unaudited("__mutex_lock_slowpath") // it sleeps: schedule() from a caller nobody vouched for
	}
	c.AccessMarkedOnly(key, "sync", cpu.MarkedWrite, fn)                // kernel/locking/mutex.c: __mutex_trylock_fast(): atomic_long_try_cmpxchg_acquire(&lock->owner, ...)
	c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, fn) // the locks current holds
}

// accessMutexUnlock annotates mutex_unlock() of mu (key as for
// accessMutexLock); n is the mutex's count of contended takes when this
// holder took it: a take that found mu held meanwhile queued a waiter,
// which the unlock wakes (wake_up_q(), the scheduler's code): marked.
// kernel/locking/mutex.c: mutex_unlock()
func accessMutexUnlock(c *cpu.CPU, t *sched.Task, mu *sched.Mutex, key any, fn string, n int) {
	c.AccessMarkedOnly(key, "sync", cpu.MarkedWrite, fn)                // kernel/locking/mutex.c: __mutex_unlock_fast(): atomic_long_try_cmpxchg_release(&lock->owner, ...)
	c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, fn) // the locks current holds
	if mu.Contended != n {
		c.Unaudited("__mutex_unlock_slowpath") // wake_up_q(): a waiter woken
	}
}

// ctxMutexLocked is perf_event_ctx_lock()'s take of ctx->mutex (ctxMutex
// made on first use, annotated as the context's mutex).
func (k *Kernel) ctxMutexLocked(t *sched.Task, ctx *Context) (*sched.Mutex, int) {
	if c := k.setupCPU(t); c != nil && k.ctxMutexes[ctx] == nil {
		c.AccessMarkedOnly(ctxMutexMemoKey{k, ctx}, "sync", cpu.MarkedWrite, "perf_event_ctx_lock") // the model's ctx->mutex, made at the context's first take (__perf_event_init_context(): mutex_init(&ctx->mutex))
	}
	mu := k.ctxMutex(ctx)
	return mu, k.lockMutex(t, mu, ctx, "ctx->mutex", 0)
}

// accessEventSetup annotates a read or write of e's field by the setup
// syscalls' code (the running task's CPU).
func (k *Kernel) accessEventSetup(t *sched.Task, e *Event, field string, op cpu.AccessOp, fn string) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(e, field, op, fn)
	}
}

// markSetup marks the setup syscall running in t as reaching code nobody
// annotated: fn.
func (k *Kernel) markSetup(t *sched.Task, fn string) {
	if c := k.setupCPU(t); c != nil {
		c.Unaudited(fn)
	}
}

// bufKey is a ring buffer's struct perf_buffer fields that the model keeps
// in the core's bufState (rb->event_list, rb->mmap_count): the buffer's
// key and "/core" (a key names one object; only bufKey touches these
// fields), the bufState's extent.
type bufKey struct {
	buf *rb.Buffer
	bs  *bufState
}

// FootprintKey implements cpu.FootprintKeyer: the buffer's, /core.
func (b bufKey) FootprintKey() string { return b.buf.FootprintKey() + "/core" }

// FootprintExtent implements the write audit's extent.
func (b bufKey) FootprintExtent() []any { return []any{b.bs} }

// accessBufState annotates an access of buf's field kept in its bufState
// (on the running CPU).
func (k *Kernel) accessBufState(buf *rb.Buffer, field string, op cpu.AccessOp, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	if bs, c := k.bufs[buf], k.curCPU(); bs != nil && c != nil {
		c.AccessMarkedOnly(bufKey{buf, bs}, field, op, fn)
	}
}

// accessRB annotates an access of buf's own field (rb.Buffer) on the
// running CPU.
func (k *Kernel) accessRB(buf *rb.Buffer, field string, op cpu.AccessOp, fn string) {
	if c := k.curCPU(); k.M.FootprintListening() && c != nil && buf != nil {
		c.AccessMarkedOnly(buf, field, op, fn)
	}
}

// accessRBPut annotates ring_buffer_put() of buf: the refcount, and the
// last reference's free (rb_free_rcu(), the model's table of buffers),
// marked.
func (k *Kernel) accessRBPut(buf *rb.Buffer) {
	c := k.curCPU()
	if !k.M.FootprintListening() || c == nil || buf == nil {
		return
	}
	c.AccessMarkedOnly(buf, "rb->refcount", cpu.MarkedWrite, "ring_buffer_put") // kernel/events/core.c: ring_buffer_put(): if (!refcount_dec_and_test(&rb->refcount))
	if buf.Refcount() <= 1 {
		c.Unaudited("rb_free_rcu") // the last reference: the buffer freed
	}
}

// mmRef is an mm by its stable key, whose extent is the model's
// mmStruct and the perf mappings made in it (their VMAs: Mapping.vmas,
// Mapping.unmap, the mm's tree that munmap() changes).
type mmRef struct{ mm *mmStruct }

// FootprintKey implements cpu.FootprintKeyer.
func (r mmRef) FootprintKey() string { return r.mm.key.FootprintKey() }

// FootprintExtent implements the write audit's extent.
func (r mmRef) FootprintExtent() []any {
	ext := make([]any, 0, 1+len(r.mm.maps))
	ext = append(ext, r.mm)
	for _, m := range r.mm.maps {
		ext = append(ext, m)
	}
	return ext
}

// accessMM annotates an access of mm's field by t (mmap_lock held).
func (k *Kernel) accessMM(t *sched.Task, mm *mmStruct, field string, op cpu.AccessOp, fn string) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(mmRef{mm}, field, op, fn)
	}
}

// upWriteMmap is perf_mmap()'s caller's mmap_write_unlock(), annotated; n
// is mmap_lock's count of contended takes once held: a waiter queued since
// is woken (the scheduler's code), which is marked.
func (k *Kernel) upWriteMmap(t *sched.Task, mm *mmStruct, n int) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(mmRef{mm}, "mm->mmap_lock", cpu.MarkedWrite, "mmap_write_unlock") // mm/util.c: vm_mmap_pgoff(): mmap_write_unlock(mm): up_write(&mm->mmap_lock)
		c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, "up_write")          // the locks current holds
		if mm.mmapLock.Contended != n {
			c.Unaudited("rwsem_wake") // a waiter woken
		}
	}
	k.S.UpWrite(t, &mm.mmapLock)
}

// fputMmap is ksys_mmap_pgoff()'s fput() of the file fget() took,
// annotated.
func (k *Kernel) fputMmap(t *sched.Task, e *Event) {
	k.accessFileRef(t, e, false)
	k.fput(t, e)
}

// lockedVMKey is the pages perf's buffers charge (the model's
// mlockedPages, user->locked_vm, one user in the model; and each mm's
// pinned_vm, pinnedVM, with their sum and lowest). One key for all of them:
// the mms' counts are written in the same calls, and a search that orders
// two processes' charges it need not is sound, only slower.
type lockedVMKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (l lockedVMKey) FootprintKey() string { return "user->locked_vm" }

// FootprintExtent implements the write audit's extent.
func (l lockedVMKey) FootprintExtent() []any {
	return []any{&l.k.mlockedPages, &l.k.pinnedVM, &l.k.pinnedMin}
}

// accessLockedVM annotates perf_mmap_calc_limits()'s read of the pages
// charged, or perf_mmap_account()'s or perf_mmap_close()'s charge or
// uncharge (atomic additions, which commute with each other).
// kernel/events/core.c: perf_mmap_calc_limits(): atomic_long_read(&user->locked_vm), mm->pinned_vm;
// perf_mmap_account(): atomic_long_add(user_extra, &user->locked_vm), atomic64_add(extra, &vma->vm_mm->pinned_vm)
func (k *Kernel) accessLockedVM(t *sched.Task, op cpu.AccessOp, fn string) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(lockedVMKey{k}, "locked_vm", op, fn)
	}
}

// newBufferKey is the model's record of the buffers perf_mmap() made: its
// table of their core state (k.bufs) and the count that numbers their keys
// (footprint_key.go): a write by every perf_mmap() that allocates one, so
// that two CPUs' allocations conflict and the numbers stay stable.
type newBufferKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (n newBufferKey) FootprintKey() string { return "perf_buffer allocations" }

// FootprintExtent implements the write audit's extent.
func (n newBufferKey) FootprintExtent() []any { return []any{&n.k.bufs, &n.k.keySeq.rb} }

// accessNewBuffer annotates perf_mmap_rb()'s allocation of a buffer: the
// model's table and key number (rb_alloc() itself touches only the new
// buffer).
func (k *Kernel) accessNewBuffer(t *sched.Task) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(newBufferKey{k}, "rb_alloc", cpu.MarkedWrite, "rb_alloc") // kernel/events/ring_buffer.c: rb_alloc(): a new struct perf_buffer (the model numbers it and keeps its core state in a table)
	}
}

// accessDownWrite annotates vm_mmap_pgoff()'s mmap_write_lock_killable()
// of mm by t: a take that finds it held sleeps (the scheduler's code),
// which is marked.
func (k *Kernel) accessDownWrite(t *sched.Task, mm *mmStruct) {
	if c := k.setupCPU(t); c != nil {
		if mm.mmapLock.Writer() != nil || mm.mmapLock.Readers() > 0 {
			c.Unaudited("rwsem_down_write_slowpath") // it sleeps
		}
		c.AccessMarkedOnly(mmRef{mm}, "mm->mmap_lock", cpu.MarkedWrite, "mmap_write_lock_killable") // mm/util.c: vm_mmap_pgoff(): mmap_write_lock_killable(mm)
		c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, "down_write")               // the locks current holds
	}
}

// sampleRate is sysctl_perf_event_sample_rate (the model's
// Opts.Sysctl.MaxSampleRate), which perf_sample_event_took() lowers from
// the PMI (throttle_took.go). Boxed once, as deferredSamples.
var sampleRate any = cpu.KeyName("sysctl_perf_event_sample_rate")

// accessSampleRate annotates perf_event_period()'s read of it.
func (k *Kernel) accessSampleRate(t *sched.Task) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(sampleRate, "sysctl_perf_event_sample_rate", cpu.MarkedRead, "_perf_event_period") // kernel/events/core.c: _perf_event_period(): if (value > sysctl_perf_event_sample_rate) (attr.freq)
	}
}
