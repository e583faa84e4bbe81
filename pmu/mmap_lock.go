package pmu

import "perfsim/sched"

// The mm side of mmap() and munmap() of a perf fd. Each process has an
// mm_struct whose mmap_lock (a sleeping rw semaphore) orders the changes to
// its VMAs:
//
//	mmap()    vm_mmap_pgoff() takes mmap_lock for write; do_mmap() ->
//	          mmap_region() -> call_mmap() -> perf_mmap() runs under it.
//	munmap()  __vm_munmap() takes it for write; do_vmi_munmap() ->
//	          vms_gather_munmap_vmas() splits the VMAs the range cuts
//	          (perf_mmap_may_split(), perf_mmap_open()) and detaches those in
//	          the range from the tree; vms_complete_munmap_vmas() downgrades
//	          the lock to read and only then runs remove_vma() ->
//	          vm_ops->close = perf_mmap_close() on each detached VMA.
//
// So a second munmap() of the same range, from any thread of the process,
// waits for the lock and then finds no VMA there: it returns 0 and closes
// nothing (munmap() of an unmapped range is not an error). An mmap() in the
// same mm cannot run inside a munmap()'s perf_mmap_close() either; one in
// another process (its own mm, the same fds) can: that is where the AUX
// area's own lock, rb->aux_mutex, matters (knob aux-mutex).
//
// A lead, read in today's perf_mmap_rb() (yailabs/yai@5f6e5cf60127, post
// v6.19; atomic_set() before the refcount conversion 448f97fba901,
// refcount_set() since): the mapping of a new buffer sets event->mmap_count
// to 1 rather than incrementing it, as "there was no RB, and as such there
// could not have been an mmap". On the "Raced against perf_mmap_close()"
// path there was one: a munmap() in
// another process has taken rb->mmap_count to 0 and waits for
// event->mmap_mutex in refcount_dec_and_mutex_lock() with event->mmap_count
// still 1. The set loses the new mapping's count, the closer takes it to 0
// and detaches the buffer just mapped (ring_buffer_attach(event, NULL) drops
// its last reference while the new VMA maps it), and the new mapping's
// munmap() finds event->rb NULL: a NULL dereference in perf_mmap_close().
// With atomic_inc() the count went to 2 and the closer left it at 1. Threads
// of one process cannot get there: mmap_lock puts their mmap() after the
// closes. TestMmapVsMunmapAcrossProcesses (pmu) reaches it.
//
// The lock order is mmap_lock, then event->mmap_mutex, then rb->aux_mutex
// (the lock order comment at the top of kernel/events/core.c). The model's
// mmap_lock is not killable (mmap_write_lock_killable() returns -EINTR on a
// fatal signal; nothing here sends one). Page faults, the other readers of
// mmap_lock, are not modelled.

// mmStruct is the part of struct mm_struct perf's mappings use.
type mmStruct struct {
	mmapLock sched.RWSem // mm->mmap_lock
	maps     []*Mapping  // the perf mappings made in it, in mmap() order (exit_mmap() closes what is left: mmap_exec.go)
	key      mmKey       // its stable key (footprint_key.go: keyMM)
}

// mmState is each task's mm (task->mm) and the counters of the mm paths.
type mmState struct {
	mms map[*sched.Task]*mmStruct

	closes    uint64 // perf_mmap_close() calls
	detaches  uint64 // ... that took event->mmap_count to 0 and detached the event
	auxFrees  uint64 // AUX areas freed by the last AUX perf_mmap_close()
	empty     uint64 // munmap() calls that found no perf VMA in their range
	lockWaits uint64 // mmap() and munmap() calls that slept on mmap_lock

	extraCharged int64  // pages extra mappings of a mapped ring charged to locked_vm (knob mmap-extra-account)
	teardowns    uint64 // perf_mmap_close() teardowns of a buffer no VMA maps (detach_rest: the charge given back)
	// closes that took rb->mmap_count to 0 but were not their event's
	// last mapping, so skipped the teardown (knob mmap-close-teardown)
	teardownsSkipped uint64
	exitCloses       uint64 // perf VMAs closed by exit_mmap() (mmap_exec.go)
	exitDetaches     uint64 // ... whose close detached the event
}

func init() {
	RegisterObservable("mmap.closes", "perf_mmap_close() calls: perf VMAs closed by munmap() (one per VMA, however many threads unmap it)",
		func(k *Kernel) int64 { return int64(k.mm.closes) })
	RegisterObservable("mmap.detaches", "perf_mmap_close() calls that took event->mmap_count to 0 and detached the event from its buffer (ring_buffer_attach(event, NULL))",
		func(k *Kernel) int64 { return int64(k.mm.detaches) })
	RegisterObservable("mmap.aux-frees", "AUX areas freed by perf_mmap_close() (rb_free_aux() when the last AUX mapping goes)",
		func(k *Kernel) int64 { return int64(k.mm.auxFrees) })
	RegisterObservable("mmap.munmap-empty", "munmap() calls of a perf mapping that found no VMA left in the range (another munmap() took it): 0, nothing closed",
		func(k *Kernel) int64 { return int64(k.mm.empty) })
	RegisterObservable("mmap.lock-waits", "mmap() and munmap() calls that slept on mm->mmap_lock (another mmap() or munmap() of the same process held it)",
		func(k *Kernel) int64 { return int64(k.mm.lockWaits) })
}

// mmOf returns t's mm: its own unless ShareMM made it a thread of another
// task's process.
func (k *Kernel) mmOf(t *sched.Task) *mmStruct {
	if k.mm.mms == nil {
		k.mm.mms = map[*sched.Task]*mmStruct{}
	}
	mm := k.mm.mms[t]
	if mm == nil {
		mm = &mmStruct{mmapLock: sched.RWSem{Name: "mm->mmap_lock"}}
		k.keyMM(mm, t) // its stable key (footprint_key.go)
		k.mm.mms[t] = mm
	}
	return mm
}

// MappedIn reports whether m is a mapping of t's mm (vma->vm_mm ==
// current->mm): what a munmap() by t can reach.
func (k *Kernel) MappedIn(t *sched.Task, m *Mapping) bool {
	return m.mm != nil && m.mm == k.mm.mms[t]
}

// ShareMM makes t use owner's mm, as a thread created with CLONE_VM does
// (pthread_create(): perf's threads map and unmap in perf's address space).
// A task that never shares one has its own mm.
func (k *Kernel) ShareMM(t, owner *sched.Task) {
	k.mmOf(owner)
	k.mm.mms[t] = k.mm.mms[owner]
}

// mmapWriteLock takes mm's mmap_lock for write, counting the calls that had
// to sleep for it.
// include/linux/mmap_lock.h: mmap_write_lock_killable()
func (k *Kernel) mmapWriteLock(t *sched.Task, mm *mmStruct) {
	n := mm.mmapLock.Contended
	k.S.DownWrite(t, &mm.mmapLock)
	if mm.mmapLock.Contended != n {
		k.mm.lockWaits++
	}
}
