package sched

import "perfsim/cpu"

// The model's first address space and fd table of a task made with none
// (ensureMM: a modelled syscall's body, a touch, a string argument), where
// upstream's task had both since fork (mm_alloc(), dup_fd()). Nothing the
// kernel does: the task's own fields get a new mm.MM (keyed by the task's
// own count: keyMM) and a new mm.Files nobody else reaches yet. Their
// readers are the task's own code (program order) and the writes of exec
// and exit (exec_mmap(), exit_mm(), unshare_files(), exit_files()), which
// annotate the same keys (the task: "task->mm", "task->files"); so the
// model's allocation is annotated as writes of them, where it replaced the
// mark "mm_alloc". (Spawn and fork give every task both, so no built-in
// reaches it today.)

// accessMMAlloc annotates ensureMM's allocation on t's CPU (before it).
func (s *Sched) accessMMAlloc(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	if t.MM == nil {
		c.AccessMarkedOnly(t, "task->mm", cpu.MarkedWrite, "mm_alloc") // the model's current->mm of a task that had none (kernel/fork.c: mm_alloc() ran at fork upstream)
	}
	if t.Files == nil {
		c.AccessMarkedOnly(t, "task->files", cpu.MarkedWrite, "dup_fd") // the model's current->files of a task that had none (kernel/fork.c: copy_files() ran at fork upstream)
	}
}
