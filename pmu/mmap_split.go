package pmu

import (
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// A perf mapping is one VMA until a partial munmap splits it. Today
// perf_mmap_may_split() refuses every split (-EINVAL), because the counts
// perf_mmap_open() takes for a new piece are not the ones perf_mmap_close()
// drops for it: a piece at vm_pgoff != 0 takes an aux_mmap_count, but only
// the piece at rb->aux_pgoff gives one back. The AUX piece that keeps
// aux_pgoff takes one more; the piece that goes without it gives none. Before b024d7b56c77 (knob
// vma-split) munmap() split the mapping and the AUX area's count leaked: its
// pages outlive every mapping, and so do their locked_vm charges.

// vmaPiece is what is left of a Mapping's VMA after a split: pages from pgoff.
type vmaPiece struct{ pgoff, pages uint64 }

var vmaSplitKnob = sim.KnobSpec{
	Name:   "vma-split",
	Values: []string{"today", "pre-b024d7b56c77"},
	Help: "a munmap() of part of a perf mapping: today perf_mmap_may_split() returns -EINVAL and nothing is unmapped; pre-b024d7b56c77: " +
		"the VMA splits, perf_mmap_open() on the new piece takes event->mmap_count, rb->mmap_count and, when its vm_pgoff is not 0, " +
		"rb->aux_mmap_count, but perf_mmap_close() gives aux_mmap_count back only for the piece at rb->aux_pgoff: the AUX pages and " +
		"their locked_vm charge leak",
	Source:  "b024d7b56c77 perf/core: Prevent VMA split of buffer mappings (Thomas Gleixner, Aug 2025; Fixes 45bfb2e50471; ZDI-CAN-27504)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, vmaSplitKnob)
	RegisterObservable("mmap.locked-vm", "pages charged to the user's locked_vm by perf mappings now (0 once everything is unmapped)",
		func(k *Kernel) int64 { return k.mlockedPages })
	RegisterObservable("mmap.splits", "perf mappings split by a partial munmap (only before b024d7b56c77)",
		func(k *Kernel) int64 { return int64(k.mmapStats.splits) })
}

// Munmap unmaps a mapping made by Mmap, every piece of it that is left.
// mm/vma.c: do_vmi_munmap() -> remove_vma() -> vm_ops->close
func (k *Kernel) Munmap(t *sched.Task, m *Mapping) (err error) {
	if m == nil {
		return uapi.EINVAL
	}
	return k.MunmapRange(t, m, 0, m.Length)
}

// MunmapRange unmaps length bytes at offset off of mapping m, in the
// kernel's order (mmap_lock.go): under mmap_lock held for write, the VMAs the
// range cuts are split, first at the range's start and then at its end
// (__split_vma(..., new_below = 1): vm_ops->may_split, then vm_ops->open on
// the new VMA, which is the lower piece and keeps the old vm_pgoff), and the
// pieces in the range are detached from the mapping; then, the lock
// downgraded to read, each detached piece is closed. A range with no piece
// of m left in it (another munmap() took them) is not an error: 0, nothing
// closed.
//
// The model names a VMA by its Mapping, so the mm whose lock is taken is
// the one m was mapped into: t stands for a thread of that process (in the
// kernel a task reaches only current->mm's VMAs).
// mm/mmap.c: __vm_munmap(); mm/vma.c: do_vmi_munmap()
func (k *Kernel) MunmapRange(t *sched.Task, m *Mapping, off, length uint64) (err error) {
	// The body is annotated (footprint_munmap.go), a split marked: its
	// entry's fragment may be complete.
	k.S.SyscallAnnotated(t, "munmap", func(t *sched.Task) {
		err = k.munmapRange(t, m, off, length)
	})
	return err
}

func (k *Kernel) munmapRange(t *sched.Task, m *Mapping, off, length uint64) error {
	// do_vmi_munmap(): an unaligned start or an empty range (the model has
	// no addresses outside its mappings: a range past m's end is refused too)
	if m == nil || m.ev == nil || off%PageSize != 0 || length == 0 || off+length > m.Length {
		return uapi.EINVAL
	}
	k.accessMunmapMM(t, m.task)
	if k.mm.mms[m.task] == nil {
		k.accessMMAlloc(t, m.task) // the model's first mm of the task, made here (footprint_mm_alloc.go)
	}
	mm := k.mmOf(m.task)
	k.accessDownWrite(t, mm)
	k.mmapWriteLock(t, mm) // __vm_munmap(): mmap_write_lock_killable(mm)
	n := mm.mmapLock.Contended
	k.markMunmapElsewhere(t, mm, m)
	lazy := m.vmas == nil && !m.unmap // munmapGather's first look fills m.vmas: a write to the Mapping
	pieces, err := k.munmapGather(t, m, off, length)
	k.accessMunmapLocked(t, mm, len(pieces) > 0 || lazy)
	if err != nil || len(pieces) == 0 {
		if err == nil {
			k.mm.empty++ // vma_find() found nothing in [start, end): return 0
		}
		k.upWriteMmap(t, mm, n)
		return err
	}
	// vms_complete_munmap_vmas(): mmap_write_downgrade(), then remove_vma()
	// of each detached VMA: no other munmap() or mmap() of this mm runs
	// until the closes are done, and none would find these VMAs.
	k.accessMmapDowngrade(t, mm, n)
	k.S.DowngradeWrite(t, &mm.mmapLock)
	for _, v := range pieces {
		// the zap of its pages and the VMA's teardown: what a munmap() of
		// one VMA costs, its syscall included (cost.Profile.PerfMunmap*;
		// only a split, before b024d7b56c77, closes more than one piece)
		t.Spend(k.S.Cfg.Cost.PerfMunmap(int(v.pages)))
		k.perfMmapCloseFrom(t, m, v.pgoff, true, false) // remove_vma() -> vma->vm_ops->close
	}
	k.accessMmapReadUnlock(t, mm, n)
	k.S.UpRead(t, &mm.mmapLock)
	return nil
}

// munmapGather splits the pieces of m the range [off, off+length) cuts and
// detaches those inside it from the mapping (what is left stays in m.vmas),
// returning them. The caller holds mmap_lock for write.
// mm/vma.c: vms_gather_munmap_vmas(), then vma_iter_clear_gfp() ("Point of no return")
func (k *Kernel) munmapGather(t *sched.Task, m *Mapping, off, length uint64) ([]vmaPiece, error) {
	if m.unmap {
		return nil, nil // every piece is gone already
	}
	if m.vmas == nil {
		m.vmas = []vmaPiece{{m.Pgoff, m.Length / PageSize}}
	}
	lo := m.Pgoff + off/PageSize
	hi := lo + (length+PageSize-1)/PageSize
	// Split the pieces the range cuts: at lo, then at hi.
	for _, at := range []uint64{lo, hi} {
		for i, v := range m.vmas {
			if at <= v.pgoff || at >= v.pgoff+v.pages {
				continue
			}
			if !k.KnobIs("vma-split", "pre-b024d7b56c77") {
				return nil, uapi.EINVAL // perf_mmap_may_split()
			}
			k.markSetup(t, "__split_vma") // perf_mmap_open() on the new piece: not annotated
			k.mmapStats.splits++
			m.vmas[i].pages = at - v.pgoff
			m.vmas = append(m.vmas, vmaPiece{at, v.pgoff + v.pages - at})
			k.perfMmapOpen(m, v.pgoff) // the new, lower piece
			break
		}
	}
	var keep, gone []vmaPiece
	for _, v := range m.vmas {
		if v.pgoff >= lo && v.pgoff+v.pages <= hi {
			gone = append(gone, v)
			continue
		}
		keep = append(keep, v)
	}
	m.vmas = keep
	m.unmap = len(keep) == 0
	return gone, nil
}

// perfMmapOpen is vm_ops->open for the new piece of a split mapping, at pgoff:
// it takes the piece's references, an aux_mmap_count for any vm_pgoff != 0.
// The counts are atomic_t, as they were until 448f97fba901 (after the fix):
// an increment from 0 passes silently.
// kernel/events/core.c: perf_mmap_open()
func (k *Kernel) perfMmapOpen(m *Mapping, pgoff uint64) {
	e := m.ev
	if e.mmapCount != refcountSaturated {
		e.mmapCount++ // refcount_inc(&event->mmap_count)
	}
	if bs := k.bufs[e.rb]; bs != nil {
		bs.mmapCount++ // refcount_inc(&event->rb->mmap_count)
	}
	if pgoff != 0 {
		buf := e.rb
		buf.AuxMmapSet(buf.AuxMmapCount() + 1) // atomic_inc(&event->rb->aux_mmap_count)
	}
	if m.Aux {
		m.RB.AuxMapped(true)
	}
	e.fileRefs++ // vm_area_dup() takes the file
}
