package sched

import "perfsim/cpu"

// The pipe and futex syscall bodies (wake.go) enter as annotated
// (SyscallAnnotated), and their step points are declared complete: each
// fragment locks the pipe (pipe->mutex) or the futex's hash bucket and
// reads and writes what it guards, the buffer and the wait queues, one
// key per object (waitObjKey); a wait (waitOn) writes the task's state,
// reads its signal flag, and returns from schedule() into the body's
// annotated code; a wake that finds a waiter runs try_to_wake_up(),
// whose code nobody annotated: marked where it begins (wakeOne).
func init() {
	cpu.DeclareComplete("pipe_write:copied", "pipe_write:wait", "pipe_read:wait", "futex_wait:queue")
}

// waitObjKey is a pipe or a futex of the machine's, by its name:
// "pipe:NAME", "futex:NAME".
type waitObjKey struct {
	s          *Sched
	kind, name string
}

// FootprintKey implements cpu.FootprintKeyer.
func (k waitObjKey) FootprintKey() string { return k.kind + ":" + k.name }

// FootprintExtent is where the model keeps it (explore's write audit): the
// tables by name, and the object.
func (k waitObjKey) FootprintExtent() []any {
	out := []any{&k.s.objs}
	switch k.kind {
	case "pipe":
		if p := k.s.objs.pipes[k.name]; p != nil {
			out = append(out, p)
		}
	case "futex":
		if f := k.s.objs.futexes[k.name]; f != nil {
			out = append(out, f)
		}
	}
	return out
}

// waitObjField is the field every access to a pipe or futex annotates:
// the lock that guards all of it.
var waitObjField = map[string]string{"pipe": "pipe->mutex", "futex": "hb->lock"}

// accessWaitObj annotates the body's access to k under its lock.
func (s *Sched) accessWaitObj(t *Task, k waitObjKey, fn string) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(k, waitObjField[k.kind], cpu.MarkedWrite, fn) // fs/pipe.c: __pipe_lock(pipe); kernel/futex/core.c: futex_q_lock(): what the lock guards, read and written
	}
}

// lookupWaitObj annotates the program's lookup of the pipe or futex
// named in its operation, in user mode before the syscall: the model
// makes it on first use (as pipe(2) or the futex word's first use would),
// a write; later a read.
func (s *Sched) lookupWaitObj(t *Task, k waitObjKey, made bool) {
	if !s.M.FootprintListening() {
		return
	}
	op := cpu.MarkedRead
	if made {
		op = cpu.MarkedWrite
	}
	t.CPU().AccessMarkedOnly(k, waitObjField[k.kind], op, "the program's "+k.kind) // the object the program names, made on first use
}

// waitOn is Wait for a pipe or futex body (k): prepare_to_wait() and
// schedule(), annotated, returning into the body's own annotated code.
func (s *Sched) waitOn(t *Task, q *WaitQueue, k waitObjKey, fn string) bool {
	return s.waitKeyed(t, q, k, waitObjField[k.kind], fn)
}

// waitKeyed is Wait on q, the wait queue field of key, from a body whose
// code is annotated: prepare_to_wait() and schedule(), annotated,
// returning into that code.
func (s *Sched) waitKeyed(t *Task, q *WaitQueue, key any, field, fn string) bool {
	if s.M.FootprintListening() {
		c := t.CPU()
		c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, fn) // include/linux/sched/signal.h: signal_pending(current)
		c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, fn)        // kernel/sched/wait.c: prepare_to_wait_event(): set_current_state(state), which try_to_wake_up() reads
		c.AccessMarkedOnly(key, field, cpu.MarkedWrite, fn)             // kernel/sched/wait.c: prepare_to_wait_event(): __add_wait_queue_entry_tail(wq_head, wq_entry)
	}
	return s.wait(t, q, true, func() {
		if s.M.FootprintListening() {
			c := t.CPU()
			c.AccessMarkedOnly(key, field, cpu.MarkedWrite, fn)             // kernel/sched/wait.c: finish_wait(): list_del_init(&wq_entry->entry); the body's lock taken again
			c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, fn) // include/linux/sched/signal.h: signal_pending(current)
		}
	})
}
