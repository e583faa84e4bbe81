package pmu

import (
	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/sched"
)

// The footprints of perf_event_open(2)'s install: perf_install_in_context(),
// __perf_install_in_context() and the syscall's code after them, declared
// complete (cpu.DeclareComplete) from these step points up to the
// context's next:
//
//   - "__perf_install_in_context": on the CPU the IPI (or the local call)
//     runs it, cpuctx->task_ctx, ctx->task, task_curr() of the context's
//     task, the event's state (a cgroup event's match is marked), then
//     ctx_time_freeze() (ctx->is_active, ctx->time: the cgroup's time,
//     when the CPU has a cgroup, marked) and add_event_to_ctx()
//     (accessAddEventToCtx: the event, the context's lists and counts; a
//     cgroup event's enable marked; a sibling's perf_group_attach() goes
//     to its own step point), up to ctx_resched()'s first step point
//     (ctx_sched_out or ctx_sched_in: a context just given an event has
//     one to schedule in). A task that is not current, or an event that
//     does not match the CPU, returns at once: the IPI's csd_unlock() and
//     return (footprint_funccall.go), or, for a local call, the return
//     into perf_install_in_context() and perf_event_open() as below.
//   - "perf_install_in_context:ctx-locked": the task's context locked
//     after a task_function_call() that did not find it running: ctx->task
//     and task_curr() again, then the retry's step point, or
//     add_event_to_ctx() and the unlock and the return as below.
//
// The return: ctx_resched()'s last fragment (ctx_sched_in, event_sched_in,
// declared in footprint_sched.go) goes on into __perf_install_in_context()'s
// end (ctxReschedThen: not marked), then the IPI's return, or, for a
// local call, the return from smp_call_function_single() (csdCall.ret:
// not marked) into perf_install_in_context() and perf_event_open()'s code
// after it (accessOpenDone): perf_unpin_context() (ctx->lock,
// ctx->pin_count), the unlock of ctx->mutex (unlockMutex: a woken waiter
// marked), put_task_struct() of the target task, the owner list,
// fd_install(), then the syscall's exit (sched's). The same code follows
// smp_call_function_single:wait's last round (a declared end of it:
// exit_to_user_mode_loop, raw_spin_lock:ctx->lock and
// perf_install_in_context:ctx-locked are among its ends).
//
// The syscall's entry, up to its first step point (the attr checks,
// perf_event_alloc(), find_get_context(), the group checks), is still
// sched's unaudited body (sys_perf_event_open): not declared here. The
// write audit (explore's TestWriteAuditOpen) checks the writes.
func init() {
	cpu.DeclareComplete(
		"__perf_install_in_context",
		"perf_install_in_context:ctx-locked",
	)
}

// accessInstall annotates perf_install_in_context()'s start on c (the
// caller's CPU, ctx->mutex held): READ_ONCE(ctx->task), the publication of
// event->ctx, and the disabled-event check (__perf_effective_state(),
// ctx->nr_events, is_cgroup_event()).
func (k *Kernel) accessInstall(c *cpu.CPU, e *Event, ctx *Context) {
	if !k.M.FootprintListening() || c == nil {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->task", cpu.MarkedRead, "perf_install_in_context")       // kernel/events/core.c: perf_install_in_context(): struct task_struct *task = READ_ONCE(ctx->task)
	c.AccessMarkedOnly(e, "event->ctx", cpu.MarkedWrite, "perf_install_in_context")       // kernel/events/core.c: perf_install_in_context(): smp_store_release(&event->ctx, ctx)
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "perf_install_in_context")      // kernel/events/core.c: perf_install_in_context(): __perf_effective_state(event) == PERF_EVENT_STATE_OFF
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "perf_install_in_context") // kernel/events/core.c: perf_install_in_context(): ctx->nr_events
	if l := e.leader; l != nil && l != e {
		c.AccessMarkedOnly(l, "event->state", cpu.MarkedRead, "perf_install_in_context") // kernel/events/core.c: __perf_effective_state(): the leader's state
	}
}

// accessCtxTask annotates a read of ctx->task (TASK_TOMBSTONE once the
// task's perf_event_exit_task_context() ran: the model's ctx.dead).
func (k *Kernel) accessCtxTask(c *cpu.CPU, ctx *Context, fn string) {
	if k.M.FootprintListening() && c != nil {
		c.AccessMarkedOnly(ctx, "ctx->task", cpu.MarkedRead, fn) // kernel/events/core.c: if (ctx->task == TASK_TOMBSTONE)
	}
}

// accessTaskCurr annotates task_curr(p): where p runs (task_cpu(p) and
// that CPU's current), which the context switch writes.
func (k *Kernel) accessTaskCurr(c *cpu.CPU, p *sched.Task, fn string) {
	if k.M.FootprintListening() && c != nil && p != nil {
		c.AccessMarkedOnly(p, "p->se (exec_start, wake_cpu)", cpu.MarkedRead, fn) // kernel/sched/core.c: task_curr(): cpu_curr(task_cpu(p)) == p
		c.AccessMarkedOnly(&p.Thread, "p->on_cpu", cpu.MarkedRead, fn)            // kernel/sched/core.c: task_curr() (the model asks where p runs)
	}
}

// markInstall marks a path of the install nobody annotated: fn.
func (k *Kernel) markInstall(c *cpu.CPU, fn string) {
	if c != nil {
		c.Unaudited(fn)
	}
}

// accessTimeFreeze annotates ctx_time_freeze()'s update of the context's
// time on c (ctx active here: this CPU's cpuctx), and marks the cgroup's
// time (update_cgrp_time_from_cpuctx()) when the CPU has a cgroup.
func (k *Kernel) accessTimeFreeze(c *cpu.CPU, ctx *Context) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->time", cpu.MarkedWrite, "ctx_time_freeze") // kernel/events/core.c: ctx_time_freeze() -> __ctx_time_update(): ctx->time, ctx->timestamp
	n := k.cpuCtxOf(ctx)
	if n < 0 {
		return
	}
	c.AccessMarkedOnly(&k.cpuCtx[n], "cpuctx->cgrp", cpu.MarkedRead, "ctx_time_freeze") // kernel/events/core.c: update_cgrp_time_from_cpuctx(): cpuctx->cgrp
	if ctx.task != nil {
		c.AccessMarkedOnly(&k.cpuCtx[n], "cpuctx->task_ctx", cpu.MarkedRead, "ctx_time_freeze") // the model finds the CPU whose task_ctx ctx is (this one: ctx is active here)
	}
	if k.cpuCtx[n].cg.cgrp != nil {
		c.Unaudited("update_cgrp_time_from_cpuctx")
	}
}

// accessAddEventToCtx annotates add_event_to_ctx() of e into ctx on c
// (ctx->lock held, or the context's CPU with irqs off): list_add_event()'s
// writes of the event (attach_state, tstamp, group_caps, event->ctx in the
// model) and of the context (event_list, the groups, nr_events, nr_stat,
// nr_no_switch_fast, generation), its read of the context's time
// (perf_event_time()); a cgroup event's perf_cgroup_event_enable() is
// marked; a sibling's perf_group_attach() links it into the leader's
// sibling_list, then stops at its own step point (group_attach.go).
func (k *Kernel) accessAddEventToCtx(c *cpu.CPU, e *Event, ctx *Context) {
	if !k.M.FootprintListening() || c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->attach_state", cpu.PlainWrite, "list_add_event")                     // kernel/events/core.c: list_add_event(): event->attach_state |= PERF_ATTACH_CONTEXT; event->tstamp = perf_event_time(event)
	c.AccessMarkedOnly(ctx, "ctx->time", cpu.MarkedRead, "list_add_event")                             // kernel/events/core.c: perf_event_time(): ctx->time (+ now - ctx->timestamp)
	c.AccessMarkedOnly(ctx, "ctx->is_active", cpu.MarkedRead, "list_add_event")                        // kernel/events/core.c: perf_event_time_now(): ctx->is_active & EVENT_TIME
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedWrite, "list_add_event")                      // kernel/events/core.c: list_add_event(): add_event_to_groups(); list_add_rcu(&event->event_entry, &ctx->event_list); ctx->nr_events++
	c.AccessMarkedOnly(ctx, "ctx->generation (pin_count, parent_gen)", cpu.PlainRMW, "list_add_event") // kernel/events/core.c: list_add_event(): ctx->nr_stat++, local_inc(&ctx->nr_no_switch_fast), ctx->generation++
	if e.cgrp != nil {
		c.Unaudited("perf_cgroup_event_enable") // a cgroup event's time and cpuctx->cgrp
	}
	if l := e.leader; l != nil && l != e {
		c.AccessMarkedOnly(l, "event->sibling_list", cpu.MarkedWrite, "perf_group_attach") // kernel/events/core.c: perf_group_attach(): list_add_tail(&event->sibling_list, &group_leader->sibling_list)
	}
}

// taskUsageKey is task_struct->usage of t as perf holds it (the model's
// table of the references, epc_life.go's taskLifeOf).
type taskUsageKey struct {
	k *Kernel
	t *sched.Task
}

// FootprintKey implements cpu.FootprintKeyer.
func (u taskUsageKey) FootprintKey() string { return u.t.FootprintKey() + "/usage" }

// FootprintExtent implements the write audit's extent: the table and the
// one-entry cache in front of it.
func (u taskUsageKey) FootprintExtent() []any {
	ext := []any{&u.k.taskRefs, &u.k.lastTask, &u.k.lastTaskLife}
	if l := u.k.taskRefs[u.t]; l != nil {
		ext = append(ext, l)
	}
	return ext
}

// putTaskStructOpen is perf_event_open()'s put_task_struct() of the
// target task find_lively_task_by_vpid() took, annotated: the last
// reference's free (__put_task_struct()) is marked.
func (k *Kernel) putTaskStructOpen(t, task *sched.Task) {
	if c := k.setupCPU(t); c != nil && k.lifeOn() {
		c.AccessMarkedOnly(taskUsageKey{k, task}, "task->usage", cpu.MarkedWrite, "put_task_struct") // include/linux/sched/task.h: put_task_struct(): if (refcount_dec_and_test(&t->usage))
		if l := k.taskRefs[task]; l == nil || l.refs <= 1 {
			c.Unaudited("__put_task_struct")
		}
	}
	k.putTaskStruct(task, "perf_event_open")
}

// fdTableKey is the fd tables' one key (sched.FdTables: "files_struct"),
// with the table fd_install() writes as its extent.
type fdTableKey struct{ files *mm.Files }

// FootprintKey implements cpu.FootprintKeyer: sched.FdTables's.
func (fdTableKey) FootprintKey() string { return "files_struct" }

// FootprintExtent implements the write audit's extent.
func (f fdTableKey) FootprintExtent() []any { return []any{f.files} }

// ownerListKey is current->perf_event_list and its perf_event_mutex, which
// the model keeps as each event's ownerTask.
type ownerListKey struct {
	t *sched.Task
	e *Event
}

// FootprintKey implements cpu.FootprintKeyer.
func (o ownerListKey) FootprintKey() string { return o.t.FootprintKey() + "/perf_event_list" }

// FootprintExtent implements the write audit's extent: the event's
// owner_entry (the model's ownerTask).
func (o ownerListKey) FootprintExtent() []any { return []any{&o.e.ownerTask} }

// accessOpenDone annotates perf_event_open()'s code after the install
// (ctx->mutex still held; its unlock and put_task_struct() are the
// deferred calls, annotated where they run): event->owner and the owner
// list (perf_event_mutex taken and dropped: a contended take sleeps,
// marked), the event's file (its f_count, event->refcount) and
// fd_install() into the caller's table.
func (k *Kernel) accessOpenDone(t *sched.Task, e *Event, files *mm.Files) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(e, "event->owner", cpu.PlainWrite, "perf_event_open")                               // kernel/events/core.c: sys_perf_event_open(): event->owner = current
	c.AccessMarkedOnly(ownerListKey{t, e}, "current->perf_event_list", cpu.MarkedWrite, "perf_event_open") // kernel/events/core.c: sys_perf_event_open(): mutex_lock(&current->perf_event_mutex); list_add_tail(&event->owner_entry, &current->perf_event_list)
	c.AccessMarkedOnly(e, "file->f_count", cpu.MarkedWrite, "anon_inode_getfile")                          // fs/anon_inodes.c: anon_inode_getfile(): the new file's one reference (the model sets it here)
	c.AccessMarkedOnly(e, "event->refcount", cpu.MarkedWrite, "perf_event_alloc")                          // kernel/events/core.c: perf_event_alloc(): atomic_long_set(&event->refcount, 1) (the model sets it here)
	c.AccessMarkedOnly(fdTableKey{files}, "fdt->fd[]", cpu.MarkedWrite, "fd_install")                      // fs/file.c: fd_install(): rcu_assign_pointer(fdt->fd[fd], file)
}
