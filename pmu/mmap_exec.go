package pmu

import "perfsim/sched"

// What execve() does to the perf mappings of the old address space. begin_new_exec()
// -> exec_mmap() switches the task to the new, empty mm, then mmput()s the
// old one; when the exec'ing task was its last user (de_thread() left no
// other thread, and no CLONE_VM process shares it), __mmput() -> exit_mmap()
// unmaps and frees every VMA: under mmap_write_lock() it walks them in address
// order, remove_vma() -> vma_close() -> vm_ops->close = perf_mmap_close() on
// each perf VMA (the data ring and the AUX area alike), then fput() of the
// VMA's file, with a cond_resched() after each VMA. Nothing else can find
// those VMAs any more (the mm is unreachable), but perf_mmap_close() takes
// event->mmap_mutex and rb->aux_mutex, which a process sharing the perf fds
// can hold, and the task can be preempted between VMAs: step point
// exit_mmap:cond_resched. perf_mmap() marks its VMAs VM_DONTCOPY, so a fork
// never copies them: a process's perf mappings live in its own mm only.
//
// The mm here is the pmu's own (mmap_lock.go: mmOf, ShareMM), which names the
// processes perf's mappings live in; package mm's MM (sched.Task.MM) is the
// rest of the address space. A task's exit does the same at exit_mm(): the
// mm's last user runs exit_mmap() (TaskExitMM), after perf_event_exit_task() and
// before exit_files(), so a mapping can outlive its fd there, or close it.

func init() {
	RegisterStepHelp(map[string]string{
		"exit_mmap:cond_resched": "mm/mmap.c: exit_mmap(): the old mm's last user (an exec's exec_mmap() or an exit's exit_mm() -> mmput()) after remove_vma() of one perf VMA (perf_mmap_close() done), before the next; mmap_lock held for write, the task preemptible",
	})
	RegisterObservable("mmap.exit-closes", "perf VMAs closed by exit_mmap() (an exec or an exit dropping the mm's last user): perf_mmap_close() of each ring and AUX mapping",
		func(k *Kernel) int64 { return int64(k.mm.exitCloses) })
	RegisterObservable("mmap.exit-detaches", "perf_mmap_close() calls of exit_mmap() that took event->mmap_count to 0 and detached the event from its buffer (it was the event's last mapping)",
		func(k *Kernel) int64 { return int64(k.mm.exitDetaches) })
}

// execMmap gives t a new, empty mm at exec and puts the old one: the last
// user's put tears its perf mappings down (exitMmap).
// fs/exec.c: exec_mmap()
func (k *Kernel) execMmap(t *sched.Task) {
	old := k.mm.mms[t]
	if old == nil {
		return // t never mapped a perf buffer and no thread shares its mm (ShareMM makes the owner's first): nothing of perf's to put
	}
	k.mm.mms[t] = &mmStruct{mmapLock: sched.RWSem{Name: "mm->mmap_lock"}}
	k.keyMM(k.mm.mms[t], t) // its stable key (footprint_key.go)
	k.mmput(t, old)
}

// mmput drops t's use of mm (t no longer points at it): the last user's put
// tears its perf mappings down (exitMmap).
// kernel/fork.c: mmput()
func (k *Kernel) mmput(t *sched.Task, mm *mmStruct) {
	for u, m := range k.mm.mms { // atomic_dec_and_test(&mm->mm_users)
		if m == mm && u.State != sched.Dead {
			return // a live thread (or CLONE_VM process) still uses it
		}
	}
	k.exitMmap(t, mm)
}

// TaskExitMM is exit_mm() -> mmput() of an exiting task: if no other live
// task uses its mm, __mmput() -> exit_mmap() closes the perf VMAs left in it.
// kernel/exit.c: exit_mm()
func (k *Kernel) TaskExitMM(t *sched.Task) {
	mm := k.mm.mms[t]
	if mm == nil {
		return // it never mapped a perf buffer
	}
	delete(k.mm.mms, t) // current->mm = NULL
	k.mmput(t, mm)
}

// exitMmap closes every perf VMA still mapped in mm, newest mapping first:
// mmap() places each new mapping below the last (top-down from mmap_base),
// and exit_mmap() walks up from the lowest address. The pieces a partial
// munmap left (mmap_split.go) go lowest first.
// mm/mmap.c: exit_mmap()
func (k *Kernel) exitMmap(t *sched.Task, mm *mmStruct) {
	maps := mm.maps
	mm.maps = nil
	if len(maps) == 0 {
		return
	}
	k.mmapWriteLock(t, mm) // mmap_write_lock(mm) around free_pgtables() and the remove_vma() walk
	for i := len(maps) - 1; i >= 0; i-- {
		m := maps[i]
		if m.unmap {
			continue // munmap() took every piece already
		}
		pieces := m.vmas
		if pieces == nil {
			pieces = []vmaPiece{{m.Pgoff, m.Length / PageSize}}
		}
		m.vmas, m.unmap = nil, true // vma_mark_detached(): the mm is being destroyed
		for _, v := range pieces {
			k.mm.exitCloses++
			// the zap of its pages and the VMA's teardown: a munmap()'s
			// cost less its syscall entry and exit (cost.Profile.PerfMunmap*)
			t.Spend(max(0, k.S.Cfg.Cost.PerfMunmap(int(v.pages))-k.S.Cfg.Cost.SyscallEntryExit))
			d := k.mm.detaches
			k.perfMmapClose(t, m, v.pgoff) // remove_vma() -> vma_close()
			k.mm.exitDetaches += k.mm.detaches - d
			t.Step("exit_mmap:cond_resched")
		}
	}
	k.S.UpWrite(t, &mm.mmapLock)
}

// MmapCounts are the counts a perf mapping holds, as perf_mmap_close() drops
// them: the event's and its buffer's.
type MmapCounts struct {
	EventMmapCount int   // event->mmap_count
	RBMmapCount    int   // rb->mmap_count (0 once the buffer is freed)
	RBRefcount     int32 // rb->refcount
	AuxMmapCount   int32 // rb->aux_mmap_count
	AuxRefcount    int32 // rb->aux_refcount
	Attached       bool  // event->rb is the mapped buffer
	Mapped         bool  // some VMA of the mapping is still mapped
}

// MmapCounts reads m's event and buffer counts now.
func (k *Kernel) MmapCounts(m *Mapping) MmapCounts {
	c := MmapCounts{EventMmapCount: m.ev.mmapCount, RBRefcount: m.RB.Refcount(),
		AuxMmapCount: m.RB.AuxMmapCount(), AuxRefcount: m.RB.AuxRefcount(),
		Attached: m.ev.rb == m.RB, Mapped: m.livePieces() > 0}
	if bs := k.bufs[m.RB]; bs != nil {
		c.RBMmapCount = bs.mmapCount
	}
	return c
}
