package pmu

import (
	"slices"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
)

// The footprint of munmap(2) of a perf mapping (Munmap, MunmapRange: the
// body is annotated, sched.Sched.SyscallAnnotated) and of
// perf_mmap_close()'s first part, read in today's mm/vma.c
// (do_vmi_munmap() -> vms_gather_munmap_vmas(), vms_complete_munmap_vmas()
// -> remove_vma() -> vm_ops->close) and kernel/events/core.c
// (perf_mmap_close(), perf_pmu_output_stop(), rb_free_aux()). Declared
// complete (cpu.DeclareComplete) from these step points up to the
// context's next:
//
//   - "perf_mmap_close:aux-unmapped" (an AUX mapping's close, after
//     unmap_region() zapped its pages): ring_buffer_get(), rb_has_aux()
//     and aux_pgoff, refcount_dec_and_mutex_lock() of aux_mmap_count (a
//     take of rb->aux_mutex that sleeps is marked; with knob
//     aux-mutex=pre-2ab9d830262c the teardown is marked where it starts),
//     up to perf_mmap_close:aux_mmap_count-zero; or, the count not zero,
//     rb->mmap_count's decrement up to perf_mmap_close:mmap_count-dec.
//   - "perf_mmap_close:aux_mmap_count-zero": perf_pmu_output_stop()'s walk
//     of rb->event_list and each event's oncpu (each cross-call it makes,
//     and so its retry, is marked where it starts), the AUX pages
//     uncharged, rb_free_aux() (the last reference frees the area: its
//     size, pages and aux_priv; a driver's free_aux() is marked unless the
//     driver annotates it, AuxFreeAnnotated; with knob
//     aux-free=pre-57ffc5ca679f the path is marked), rb->aux_mutex
//     dropped (a waiter woken is marked), then rb->mmap_count's decrement
//     up to perf_mmap_close:mmap_count-dec.
//
// The munmap body runs in the syscall entry's fragment (sched declares
// "syscall_enter_from_user_mode"): mmap_lock taken for write (a take that
// sleeps is marked), the VMAs of the range looked up and detached from
// the mm's tree (a split, before b024d7b56c77, is marked: its
// perf_mmap_open() is not annotated), the lock downgraded to read, and
// each detached VMA's perf_mmap_close() up to its first step point (a
// data mapping's close: ring_buffer_get(), the AUX test, rb->mmap_count).
// After the last close, mmap_read_unlock() (a waiter woken is marked) and
// the syscall's return, sched's. perf_mmap_close()'s return into munmap()
// is annotated (perfMmapCloseFrom); into exit_mmap() it stays marked.
func init() {
	cpu.DeclareComplete(
		"perf_mmap_close:aux-unmapped",
		"perf_mmap_close:aux_mmap_count-zero",
	)
}

// AuxFreeAnnotated is a PMU whose pmu->free_aux() touches no state
// another context can see but the area's aux_priv (which rb_free_aux()'s
// annotation covers): rb_free_aux() does not mark it. Any other PMU's
// free_aux() is marked unaudited.
type AuxFreeAnnotated interface {
	AuxFreeAnnotated() bool
}

// accessMunmapLocked annotates munmap()'s look at the VMAs of m's range in
// mm's tree, with mmap_lock held for write, and their detach when it
// detaches some (the model keeps a perf mapping's VMAs in the Mapping,
// which mmRef's extent covers).
// mm/vma.c: do_vmi_munmap(): vma_find(); vms_gather_munmap_vmas(); vma_iter_clear_gfp()
func (k *Kernel) accessMunmapLocked(t *sched.Task, mm *mmStruct, detach bool) {
	k.accessMM(t, mm, "mm->mm_mt", cpu.MarkedRead, "do_vmi_munmap") // mm/vma.c: do_vmi_munmap(): vma_find(vmi, end): the VMAs of the range
	if detach {
		k.accessMM(t, mm, "mm->mm_mt", cpu.MarkedWrite, "vms_gather_munmap_vmas") // mm/vma.c: vms_gather_munmap_vmas(), do_vmi_align_munmap(): vma_iter_clear_gfp(): the VMAs detached from the tree
	}
}

// accessMmapDowngrade annotates vms_complete_munmap_vmas()'s
// mmap_write_downgrade() of mm; n is mmap_lock's count of contended
// takes once held: a waiter queued since may be woken (the scheduler's
// code), which is marked.
// mm/vma.c: vms_complete_munmap_vmas(): mmap_write_downgrade(mm)
func (k *Kernel) accessMmapDowngrade(t *sched.Task, mm *mmStruct, n int) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(mmRef{mm}, "mm->mmap_lock", cpu.MarkedWrite, "mmap_write_downgrade") // include/linux/mmap_lock.h: mmap_write_downgrade(): downgrade_write(&mm->mmap_lock)
		if mm.mmapLock.Contended != n {
			c.Unaudited("rwsem_downgrade_wake") // the waiting readers woken
		}
	}
}

// accessMmapReadUnlock annotates __vm_munmap()'s mmap_read_unlock() of mm
// (the downgraded lock); n as for accessMmapDowngrade: a waiter woken is
// marked.
// mm/vma.c: vms_complete_munmap_vmas(): mmap_read_unlock(mm) (do_vmi_munmap()'s unlock == true)
func (k *Kernel) accessMmapReadUnlock(t *sched.Task, mm *mmStruct, n int) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(mmRef{mm}, "mm->mmap_lock", cpu.MarkedWrite, "mmap_read_unlock") // include/linux/mmap_lock.h: mmap_read_unlock(): up_read(&mm->mmap_lock)
		c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, "up_read")          // the locks current holds
		if mm.mmapLock.Contended != n {
			c.Unaudited("rwsem_wake") // a waiter woken
		}
	}
}

// accessMmapCloseGet annotates perf_mmap_close()'s ring_buffer_get():
// rcu_dereference(event->rb) and the reference taken.
func (k *Kernel) accessMmapCloseGet(t *sched.Task, e *Event) {
	k.accessEventSetup(t, e, "event->rb", cpu.MarkedRead, "ring_buffer_get") // kernel/events/core.c: perf_mmap_close(): ring_buffer_get(event): rb = rcu_dereference(event->rb)
	if c := k.setupCPU(t); c != nil && e.rb != nil {
		c.AccessMarkedOnly(e.rb, "rb->refcount", cpu.MarkedWrite, "ring_buffer_get") // kernel/events/core.c: ring_buffer_get(): refcount_inc_not_zero(&rb->refcount)
	}
}

// accessMmapCloseAuxTest annotates perf_mmap_close()'s test of whether
// the VMA maps the AUX area: rb_has_aux(rb) and rb->aux_pgoff (set with
// the area: rb.FieldAuxSize).
func (k *Kernel) accessMmapCloseAuxTest(t *sched.Task, buf *rb.Buffer) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(buf, rb.FieldAuxSize, cpu.MarkedRead, "perf_mmap_close") // kernel/events/core.c: perf_mmap_close(): if (rb_has_aux(rb) && vma->vm_pgoff == rb->aux_pgoff && ...)
	}
}

// accessAuxMmapCountDec annotates refcount_dec_and_mutex_lock(&rb->aux_mmap_count,
// &rb->aux_mutex)'s decrement (its result read: a write), which
// perf_aux_output_begin() reads.
func (k *Kernel) accessAuxMmapCountDec(t *sched.Task, buf *rb.Buffer) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(buf, "rb->aux_mmap_count", cpu.MarkedWrite, "refcount_dec_and_mutex_lock") // kernel/events/core.c: perf_mmap_close(): refcount_dec_and_mutex_lock(&rb->aux_mmap_count, &rb->aux_mutex)
	}
}

// accessAuxMutex annotates a take (lock) or a release of rb->aux_mutex by
// perf_mmap_close() (accessMutexLock, accessMutexUnlock; n: the mutex's
// count of contended takes once held).
func (k *Kernel) accessAuxMutex(t *sched.Task, buf *rb.Buffer, mu *sched.Mutex, lock bool, n int) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	if lock {
		accessMutexLock(c, t, mu, mutexKey{buf, "rb->aux_mutex", mu}, "mutex_lock")
	} else {
		accessMutexUnlock(c, t, mu, mutexKey{buf, "rb->aux_mutex", mu}, "mutex_unlock", n)
	}
}

// accessOutputStopIter annotates perf_pmu_output_stop()'s look at an
// event on the buffer's list: READ_ONCE(iter->oncpu) for a task event
// (event->cpu never changes once the event is made).
func (k *Kernel) accessOutputStopIter(t *sched.Task, iter *Event) {
	if iter.cpu == -1 {
		k.accessEventSetup(t, iter, "event->oncpu", cpu.MarkedRead, "perf_pmu_output_stop") // kernel/events/core.c: perf_pmu_output_stop(): cpu = READ_ONCE(iter->oncpu)
	}
}

// accessRBFreeAux annotates perf_mmap_close()'s rb_free_aux() ("this has
// to be the last one"): aux_refcount, and when it is the last reference
// __rb_free_aux(): the driver's free_aux() (marked unless the PMU that
// made the area annotates it), aux_priv and the area's size cleared
// (rb.FieldAuxSize, which rb_has_aux() reads), the pages freed; then the
// WARN's read of aux_refcount (the same field).
func (k *Kernel) accessRBFreeAux(t *sched.Task, buf *rb.Buffer, bs *bufState) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(buf, "rb->aux_refcount", cpu.MarkedWrite, "rb_free_aux") // kernel/events/ring_buffer.c: rb_free_aux(): if (refcount_dec_and_test(&rb->aux_refcount))
	if buf.AuxRefcount() > 1 {
		return
	}
	if fa, ok := bs.auxPMU.(AuxFreeAnnotated); !ok || !fa.AuxFreeAnnotated() {
		c.Unaudited("pmu->free_aux") // kernel/events/ring_buffer.c: __rb_free_aux(): rb->free_aux(rb->aux_priv): the driver's
	}
	c.AccessMarkedOnly(buf, rb.FieldAuxSize, cpu.MarkedWrite, "__rb_free_aux")  // kernel/events/ring_buffer.c: __rb_free_aux(): rb->aux_priv = NULL; rb->aux_nr_pages = 0
	c.AccessMarkedOnly(buf, rb.FieldAuxPages, cpu.MarkedWrite, "__rb_free_aux") // kernel/events/ring_buffer.c: __rb_free_aux(): rb_free_aux_page(rb, pg) for each page
}

// accessMunmapMM annotates __vm_munmap()'s look at the mm of the task whose
// mapping it unmaps (current->mm: the model's table of mms by task, which
// exec_mmap() writes: taskMMKey).
func (k *Kernel) accessMunmapMM(t, owner *sched.Task) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(taskMMKey{k, owner}, "task->mm", cpu.MarkedRead, "__vm_munmap") // mm/vma.c: __vm_munmap(): struct mm_struct *mm = current->mm
	}
}

// accessMmapClosePut annotates perf_mmap_close()'s last
// ring_buffer_put() ("could be last"): the refcount and, when it is the
// last reference, rb_free_rcu()'s free of the buffer (queued: call_rcu()),
// which the model does at once: its entry in the table of buffers
// (newBufferKey, which every allocation writes) and the buffer's memory
// ("rb (freed)"). No other context reaches the buffer then: every event
// was detached from it (ring_buffer_attach(event, NULL) wrote event->rb,
// which a writer's rcu_dereference() reads) and every other reference
// dropped (rb->refcount).
func (k *Kernel) accessMmapClosePut(t *sched.Task, buf *rb.Buffer) {
	c := k.setupCPU(t)
	if c == nil || buf == nil {
		return
	}
	c.AccessMarkedOnly(buf, "rb->refcount", cpu.MarkedWrite, "ring_buffer_put") // kernel/events/core.c: ring_buffer_put(): if (!refcount_dec_and_test(&rb->refcount))
	if buf.Refcount() > 1 {
		return
	}
	c.AccessMarkedOnly(buf, "rb (freed)", cpu.MarkedWrite, "ring_buffer_put")       // kernel/events/core.c: ring_buffer_put(): call_rcu(&rb->rcu_head, rb_free_rcu)
	c.AccessMarkedOnly(newBufferKey{k}, "rb_alloc", cpu.MarkedWrite, "rb_free_rcu") // the model's table of buffers: the entry dropped (rb_free_rcu() -> rb_free())
}

// markMunmapElsewhere marks a munmap() of m whose mm (the mm the model
// finds for m's task now) does not hold m: the model made m in another
// mm (a thread that mapped before it was made to share its process's mm,
// ShareMM; or one whose mm its exit dropped), so mmRef's extent does not
// cover m's VMAs.
func (k *Kernel) markMunmapElsewhere(t *sched.Task, mm *mmStruct, m *Mapping) {
	if c := k.setupCPU(t); c != nil && !slices.Contains(mm.maps, m) {
		c.Unaudited("munmap of a mapping the model keeps in another mm")
	}
}
