package unwind

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// AccessTaskExit implements sched.AnnotatedExitHook for
// unwind_deferred_task_exit(): with no unwind pending, the task's info
// marked exiting (its own); a pending one runs the callbacks
// (process(): the unwind, perf's callback and its records) and cancels
// the task work: not annotated here.
// kernel/unwind/deferred.c: unwind_deferred_task_exit()
func (d *Deferred) AccessTaskExit(t *sched.Task) bool {
	c := t.CPU()
	c.AccessMarkedOnly(t, "task->unwind_info.unwind_mask", cpu.MarkedRead, "unwind_deferred_task_exit") // kernel/unwind/deferred.c: unwind_deferred_task_exit(): if (!current->unwind_info.cache) ... unwind_deferred_task_work()
	d.AccessInfo(c, t, cpu.PlainWrite, "unwind_deferred_task_exit")                                     // the model's exiting and noMM
	ti := d.info[t]
	return ti == nil || ti.mask&UNWIND_PENDING == 0
}

// infoKey is a task's unwind_info as the model keeps it (the table's
// entry, made on first use): the write audit's extent.
type infoKey struct {
	d *Deferred
	t *sched.Task
}

// FootprintKey implements cpu.FootprintKeyer.
func (k infoKey) FootprintKey() string {
	return k.t.FootprintKey() + "/unwind_info (the model's table)"
}

// String is the key's identity (explore's TestFootprintKeysStable).
func (k infoKey) String() string { return k.FootprintKey() }

// FootprintExtent is where the model keeps it: the table and the task's
// entry (its exiting and noMM, which the exit writes).
func (k infoKey) FootprintExtent() []any {
	if ti := k.d.info[k.t]; ti != nil {
		return []any{&k.d.info, ti}
	}
	return []any{&k.d.info}
}

// AccessInfo annotates an access of t's unwind_info as the model keeps it
// (its entry in the table, made on first use: a write).
func (d *Deferred) AccessInfo(c *cpu.CPU, t *sched.Task, op cpu.AccessOp, fn string) {
	c.AccessMarkedOnly(infoKey{d, t}, "task->unwind_info", op, fn)
}
