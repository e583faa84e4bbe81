package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
)

// The footprint of perf_mmap_aux() (kernel/events/core.c), which perf_mmap()
// calls with event->mmap_mutex held for an AUX mapping (pgoff != 0), read in
// today's core.c and ring_buffer.c (rb_alloc_aux()):
//
//   - in perf_mmap:mmap_mutex's fragment: event->rb, the take of
//     rb->aux_mutex (a take that sleeps is marked), the user page's
//     aux_offset and aux_size, the data area's size, rb_has_aux() with the
//     area's offset and size, and refcount_inc_not_zero(&rb->mmap_count),
//     up to perf_mmap_aux:has-aux;
//   - "perf_mmap_aux:has-aux": rb_has_aux(); with an area,
//     refcount_inc(&rb->aux_mmap_count) and the pages charged
//     (perf_mmap_account()); without one, perf_mmap_calc_limits() (a
//     failure's refcount_dec(&rb->mmap_count)) up to rb_alloc_aux's step;
//     then refcount_inc(&event->mmap_count), rb->aux_mutex dropped (a waiter
//     woken is marked) and perf_mmap()'s rest (annotated: footprint_setup.go)
//     up to the syscall's exit;
//   - "rb_alloc_aux": rb_alloc_aux() (the area's pages, size, offset, mode,
//     watermark, aux_refcount and aux_priv: rb/footprint_aux_alloc.go), the
//     driver's setup_aux (marked unless the PMU annotates it:
//     AuxSetupAnnotated), a failure's refcount_dec(&rb->mmap_count), or
//     refcount_set(&rb->aux_mmap_count, 1), rb->aux_mmap_locked and the
//     charge, then the same return as has-aux's.
//
// With knob aux-mutex=pre-2ab9d830262c (no rb->aux_mutex; the count set
// before the allocation) each of them is marked where it starts. The write
// audit (explore's TestWriteAuditMmapAux) checks their writes;
// TestMmapAuxFootprints pins what they annotate.
func init() {
	cpu.DeclareComplete("perf_mmap_aux:has-aux", "rb_alloc_aux")
}

// AuxSetupAnnotated is a PMU whose setup_aux touches no state another
// context sees but the private buffer it allocates (which only the new
// area's aux_priv reaches) and event->rb (read with event->mmap_mutex held):
// perf_mmap_aux() does not mark it. Any other PMU's setup_aux is marked.
type AuxSetupAnnotated interface {
	AuxSetupAnnotated() bool
}

// accessMmapAuxLock annotates perf_mmap_aux()'s entry: rb = event->rb, and
// when there is one, guard(mutex)(&rb->aux_mutex) (accessMutexLock: a take
// that sleeps is marked). Before 2ab9d830262c the body is marked.
func (k *Kernel) accessMmapAuxLock(t *sched.Task, e *Event, mu *sched.Mutex, old bool) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "perf_mmap_aux") // kernel/events/core.c: perf_mmap_aux(): rb = event->rb (event->mmap_mutex held)
	if e.rb == nil || mu == nil {
		return
	}
	if old {
		c.Unaudited("perf_mmap_aux (aux-mutex=pre-2ab9d830262c)") // the old serialization: not annotated
		return
	}
	accessMutexLock(c, t, mu, mutexKey{e.rb, "rb->aux_mutex", mu}, "mutex_lock") // kernel/events/core.c: perf_mmap_aux(): guard(mutex)(&rb->aux_mutex)
}

// accessMmapAuxUnlock annotates the guard's mutex_unlock(&rb->aux_mutex) at
// perf_mmap_aux()'s return; n is the mutex's count of contended takes once
// held (accessMutexUnlock: a waiter woken is marked).
func (k *Kernel) accessMmapAuxUnlock(t *sched.Task, buf *rb.Buffer, mu *sched.Mutex, n int) {
	if c := k.setupCPU(t); c != nil {
		accessMutexUnlock(c, t, mu, mutexKey{buf, "rb->aux_mutex", mu}, "mutex_unlock", n) // kernel/events/core.c: perf_mmap_aux(): the guard's mutex_unlock(&rb->aux_mutex)
	}
}

// accessMmapAuxChecks annotates perf_mmap_aux()'s checks with rb->aux_mutex
// held: the user page's aux_offset and aux_size (READ_ONCE), the data
// area's size, rb_has_aux() with rb->aux_pgoff and rb->aux_nr_pages (set
// with the area: rb.FieldAuxSize).
func (k *Kernel) accessMmapAuxChecks(t *sched.Task, buf *rb.Buffer) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	const fn = "perf_mmap_aux"
	c.AccessMarkedOnly(buf, rb.FieldAuxOffset, cpu.MarkedRead, fn) // kernel/events/core.c: perf_mmap_aux(): aux_offset = READ_ONCE(rb->user_page->aux_offset)
	c.AccessMarkedOnly(buf, rb.FieldAuxLen, cpu.MarkedRead, fn)    // kernel/events/core.c: perf_mmap_aux(): aux_size = READ_ONCE(rb->user_page->aux_size)
	c.AccessMarkedOnly(buf, "rb->nr_pages", cpu.MarkedRead, fn)    // kernel/events/core.c: perf_mmap_aux(): if (aux_offset < perf_data_size(rb) + PAGE_SIZE)
	c.AccessMarkedOnly(buf, rb.FieldAuxSize, cpu.MarkedRead, fn)   // kernel/events/core.c: perf_mmap_aux(): if (rb_has_aux(rb) && rb->aux_pgoff != vma->vm_pgoff); ... rb->aux_nr_pages != nr_pages
}

// accessMmapAuxCount annotates perf_mmap_aux()'s
// refcount_inc_not_zero(&rb->mmap_count), after its checks passed.
func (k *Kernel) accessMmapAuxCount(t *sched.Task, buf *rb.Buffer) {
	if k.setupCPU(t) != nil {
		k.accessBufState(buf, "rb->mmap_count", cpu.MarkedWrite, "perf_mmap_aux") // kernel/events/core.c: perf_mmap_aux(): if (!refcount_inc_not_zero(&rb->mmap_count))
	}
}

// accessMmapAuxHasAux annotates perf_mmap_aux() from its has-aux step:
// rb_has_aux(), and with an area refcount_inc(&rb->aux_mmap_count) (its
// refcount_t's warning read: the same field) and perf_mmap_account()'s
// charge; without one, perf_mmap_calc_limits()'s read of the charges (its
// failure's refcount_dec(&rb->mmap_count)). Before 2ab9d830262c the
// fragment is marked.
func (k *Kernel) accessMmapAuxHasAux(t *sched.Task, buf *rb.Buffer, old bool) {
	c := k.mmapAuxCPU(t, old)
	if c == nil {
		return
	}
	const fn = "perf_mmap_aux"
	c.AccessMarkedOnly(buf, rb.FieldAuxSize, cpu.MarkedRead, fn) // kernel/events/core.c: perf_mmap_aux(): if (rb_has_aux(rb))
	if buf.HasAux() {
		c.AccessMarkedOnly(buf, "rb->aux_mmap_count", cpu.MarkedWrite, fn) // kernel/events/core.c: perf_mmap_aux(): refcount_inc(&rb->aux_mmap_count)
		k.accessLockedVM(t, cpu.AtomicAdd, "perf_mmap_account")            // kernel/events/core.c: perf_mmap_aux(): perf_mmap_account(vma, user_extra, extra)
		return
	}
	k.accessLockedVM(t, cpu.MarkedRead, "perf_mmap_calc_limits") // kernel/events/core.c: perf_mmap_aux(): perf_mmap_calc_limits(vma, &user_extra, &extra)
}

// accessMmapAuxUndo annotates perf_mmap_aux()'s (or a failed
// rb_alloc_aux()'s) refcount_dec(&rb->mmap_count).
func (k *Kernel) accessMmapAuxUndo(t *sched.Task, buf *rb.Buffer) {
	if k.setupCPU(t) != nil {
		k.accessBufState(buf, "rb->mmap_count", cpu.MarkedWrite, "perf_mmap_aux") // kernel/events/core.c: perf_mmap_aux(): refcount_dec(&rb->mmap_count)
	}
}

// accessMmapAuxAlloc annotates perf_mmap_aux() from its rb_alloc_aux step
// up to rb_alloc_aux()'s own annotation (rb's): the driver's setup_aux,
// marked unless the PMU annotates it (AuxSetupAnnotated: then its read of
// event->rb). Before 2ab9d830262c the fragment is marked.
func (k *Kernel) accessMmapAuxAlloc(t *sched.Task, e *Event, old bool) {
	c := k.mmapAuxCPU(t, old)
	if c == nil {
		return
	}
	if a, ok := e.pmu.(AuxSetupAnnotated); !ok || !a.AuxSetupAnnotated() {
		c.Unaudited("pmu->setup_aux") // kernel/events/ring_buffer.c: rb_alloc_aux(): event->pmu->setup_aux(event, rb->aux_pages, nr_pages, overwrite): the driver's
		return
	}
	c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "setup_aux") // the model's driver finds the buffer through event->rb (event->mmap_mutex held)
}

// accessMmapAuxAllocated annotates perf_mmap_aux() after a successful
// rb_alloc_aux(): refcount_set(&rb->aux_mmap_count, 1), rb->aux_mmap_locked
// (with the model's record of the PMU whose free_aux() the area's
// teardown calls: rb->free_aux) and perf_mmap_account()'s charge.
func (k *Kernel) accessMmapAuxAllocated(t *sched.Task, buf *rb.Buffer) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	const fn = "perf_mmap_aux"
	c.AccessMarkedOnly(buf, "rb->aux_mmap_count", cpu.MarkedWrite, fn)     // kernel/events/core.c: perf_mmap_aux(): refcount_set(&rb->aux_mmap_count, 1)
	k.accessBufState(buf, "rb->aux_mmap_locked", cpu.MarkedWrite, fn)      // kernel/events/core.c: perf_mmap_aux(): rb->aux_mmap_locked = extra
	k.accessBufState(buf, "rb->free_aux", cpu.MarkedWrite, "rb_alloc_aux") // kernel/events/ring_buffer.c: rb_alloc_aux(): rb->free_aux = event->pmu->free_aux
	k.accessLockedVM(t, cpu.AtomicAdd, "perf_mmap_account")                // kernel/events/core.c: perf_mmap_aux(): perf_mmap_account(vma, user_extra, extra)
}

// accessMmapAuxEventCount annotates perf_mmap_aux()'s
// refcount_inc(&event->mmap_count) (a saturated count is only read).
func (k *Kernel) accessMmapAuxEventCount(t *sched.Task, e *Event) {
	k.accessEventSetup(t, e, "event->mmap_count", cpu.MarkedWrite, "perf_mmap_aux") // kernel/events/core.c: perf_mmap_aux(): refcount_inc(&event->mmap_count)
}

// mmapAuxCPU is the CPU whose perf_mmap_aux() fragment to annotate: none
// when nobody listens, or before 2ab9d830262c (old), whose serialization is
// not annotated: the fragment is marked.
func (k *Kernel) mmapAuxCPU(t *sched.Task, old bool) *cpu.CPU {
	c := k.setupCPU(t)
	if c != nil && old {
		c.Unaudited("perf_mmap_aux (aux-mutex=pre-2ab9d830262c)") // the old serialization: not annotated
		return nil
	}
	return c
}
