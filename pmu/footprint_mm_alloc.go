package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The model's first mm of a task as perf knows it (Kernel.mm.mms: the
// mmap_lock and the perf mappings; mmap_lock.go's mmOf), made on the
// task's first perf mmap() (mmap.go) or munmap() (mmap_split.go), where
// upstream's task had its mm since fork. Nothing the kernel does: the
// model's table gets the task's entry (its key numbered by the task's own
// count: keyMM), a new mmStruct nobody else reaches yet. What reads the
// entry: the task's own exec and exit (exec_mmap(), exit_mm(): program
// order) and a munmap() of a mapping in it (accessMunmapMM: taskMMKey,
// "task->mm"), whose mapping this mmap() has yet to make; another task's
// exit walks the table for its own mm's users, which a new mm is not
// (AccessTaskExitMM). So the entry's write is annotated as current->mm's
// on that key (the write audit's extent: the table), a conflict with
// every such read, where it replaces the mark "mm_alloc".

// accessMMAlloc annotates the model's first mm of owner, made in t's
// mmap() or munmap() (owner is t, or the task whose mapping t unmaps),
// before mmOf makes it.
func (k *Kernel) accessMMAlloc(t, owner *sched.Task) {
	if c := k.setupCPU(t); c != nil {
		c.AccessMarkedOnly(taskMMKey{k, owner}, "task->mm", cpu.MarkedWrite, "mm_alloc") // the model's current->mm of a task that had none: its entry in the table of mms (kernel/fork.c: mm_alloc() ran at the task's fork upstream)
	}
}
