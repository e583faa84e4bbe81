package sched

import "perfsim/cpu"

// munmap(2)'s modelled body (sysModels["munmap"]: mm.MM.Munmap, an
// address space's VMAs and pages, none of them perf's: pmu's Munmap is
// perf's own body) is annotated: the VMAs of the range detached and their
// pages zapped, in current's mm, which another thread's page walk
// (accessTouch), fault, mmap() or exec reads. mm.MM.Munmap drops no file
// reference (the model's files hold none for a VMA) and calls no vm_ops.
// The mm_alloc of a task made with no address space is marked where the
// modelled body starts (modelledSyscall).
func init() { annotatedSysModels["munmap"] = true }

// accessMunmap annotates do_vmi_munmap() in t's mm.
// mm/vma.c: do_vmi_munmap() -> vms_gather_munmap_vmas(), vms_complete_munmap_vmas()
func (s *Sched) accessMunmap(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t.MM, "mm->mmap", cpu.MarkedWrite, "do_vmi_munmap") // mm/vma.c: do_vmi_munmap(): the VMAs detached from the mm's tree (mmap_lock held for write), unmap_region() zaps their pages
	}
}
