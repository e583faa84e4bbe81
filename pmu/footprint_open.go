package pmu

import (
	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/sched"
	"perfsim/uapi"
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
// perf_event_alloc(), find_get_context(), find_get_pmu_context(), the
// install's IPI or local call), is sched's declared entry fragment: its
// body is annotated for an event with no cgroup, output fd or AUX link, and marked where it starts otherwise (openCPU, below). The
// write audit (explore's TestWriteAuditOpen) checks the writes, pmu's
// TestOpenFootprints pins the entry's footprint.
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
		c.AccessMarkedOnly(l, "event->ctx", cpu.MarkedRead, "perf_group_attach")           // kernel/events/core.c: perf_group_attach(): WARN_ON_ONCE(group_leader->ctx != event->ctx)
		c.AccessMarkedOnly(l, "event->sibling_list", cpu.MarkedWrite, "perf_group_attach") // kernel/events/core.c: perf_group_attach(): group_leader->group_caps &= event->event_caps (the model's is its siblings'); list_add_tail(&event->sibling_list, &group_leader->sibling_list)
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
	ext := []any{&u.k.taskRefs, &u.k.lastTask, &u.k.lastTaskLife, &u.k.taskOrder}
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

// fdTableKey is the model's memory of an fd table (mm.Files), whose
// kernel key is the table itself (its name, "files#N@tidT"): a write of a
// table annotates both, the kernel's key (what another CPU's lookup
// conflicts with) and this one, whose extent is the table written (the
// write audit's), named after the table.
type fdTableKey struct{ files *mm.Files }

// FootprintKey implements cpu.FootprintKeyer.
func (f fdTableKey) FootprintKey() string { return f.files.FootprintKey() + " (the model's table)" }

// String is the key's identity (explore's TestFootprintKeysStable).
func (f fdTableKey) String() string { return f.FootprintKey() }

// FootprintExtent implements the write audit's extent.
func (f fdTableKey) FootprintExtent() []any { return []any{f.files} }

// accessFdWrite annotates a write of fd table files: the kernel's key
// and the model's.
func accessFdWrite(c *cpu.CPU, files *mm.Files, fn string) {
	c.AccessMarkedOnly(files, "fdt->fd[]", cpu.MarkedWrite, fn) // fs/file.c: the table under files->file_lock
	c.AccessMarkedOnly(fdTableKey{files}, "fdt->fd[]", cpu.MarkedWrite, fn)
}

// ownerListKey is current->perf_event_list and its perf_event_mutex, which
// the model keeps as each event's ownerTask (the event's write covers it).
type ownerListKey struct{ t *sched.Task }

// FootprintKey implements cpu.FootprintKeyer.
func (o ownerListKey) FootprintKey() string { return o.t.FootprintKey() + "/perf_event_list" }

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
	c.AccessMarkedOnly(e, "event->owner", cpu.PlainWrite, "perf_event_open")                            // kernel/events/core.c: sys_perf_event_open(): event->owner = current
	c.AccessMarkedOnly(ownerListKey{t}, "current->perf_event_list", cpu.MarkedWrite, "perf_event_open") // kernel/events/core.c: sys_perf_event_open(): mutex_lock(&current->perf_event_mutex); list_add_tail(&event->owner_entry, &current->perf_event_list)
	c.AccessMarkedOnly(e, "file->f_count", cpu.MarkedWrite, "anon_inode_getfile")                       // fs/anon_inodes.c: anon_inode_getfile(): the new file's one reference (the model sets it here)
	c.AccessMarkedOnly(e, "event->refcount", cpu.MarkedWrite, "perf_event_alloc")                       // kernel/events/core.c: perf_event_alloc(): atomic_long_set(&event->refcount, 1) (the model sets it here)
	accessFdWrite(c, files, "fd_install")                                                               // fs/file.c: fd_install(): rcu_assign_pointer(fdt->fd[fd], file)
}

// The syscall's entry, up to its first step point: sched's fragment
// "syscall_enter_from_user_mode" (declared there) goes on into the body,
// which enters through sched.Sched.SyscallAnnotated. openCPU says at the
// start whether the body is one whose paths were read and annotated: an
// event with no group fd, no cgroup, no output fd and no AUX event to
// link (perf_get_aux_event()), alone or in a group; every other open is marked where it starts
// (sys_perf_event_open), as sched's enterBody marked every open before.
// A group fd's leader is read (accessGroupLeader); a move_group's pmu_ctx
// moves are annotated (footprint_move_group.go).
// In an annotated open, the paths nobody annotated are marked where they
// begin: a PMU's event_init other than the hardware counters', the
// software events' and the clocks' (tracepoints, breakpoints, intel_pt,
// coresight: perfInitEvent), the old find_get_pmu_context() of a knob,
// and every error return once the event is made (openFail: the frees of
// the err_* labels; an earlier one's put_unused_fd() annotated:
// openFailEarly).

// openCPU is the CPU of an open whose body is annotated, when a footprint
// listener hears it; nil otherwise, the open marked when listened to.
func (k *Kernel) openCPU(t *sched.Task, uattr *Attr, groupFD int, flags uint64) *cpu.CPU {
	c := k.setupCPU(t)
	if c == nil {
		return nil
	}
	if uattr == nil || flags&(uapi.PERF_FLAG_PID_CGROUP|uapi.PERF_FLAG_FD_OUTPUT) != 0 {
		c.Unaudited("sys_perf_event_open") // a cgroup or an output event: not read (an AUX event's link: footprint_group.go's getAuxEventOpen)
		return nil
	}
	return c
}

// markOpen marks a path of an annotated open (or its install) nobody
// annotated: fn.
func markOpen(c *cpu.CPU, fn string) {
	if c != nil {
		c.Unaudited(fn)
	}
}

// accessGroupLeader annotates what the open reads of its group leader l
// (ctx->mutex held for the checks, as perf_event_ctx_lock_nested() takes
// it upstream): its state (step 11's revoked check, step 22's), whether it
// leads (group_leader), its siblings (nr_siblings: the read size, the
// group's PMUs: move_group, perf_event_validate_size()), its context and
// pmu_ctx. Its attr and PMU do not change.
func (k *Kernel) accessGroupLeader(c *cpu.CPU, l *Event) {
	if c == nil {
		return
	}
	c.AccessMarkedOnly(l, "event->state", cpu.MarkedRead, "perf_event_open")        // kernel/events/core.c: sys_perf_event_open(): if (group_leader->state <= PERF_EVENT_STATE_REVOKED), ... < PERF_EVENT_STATE_EXIT
	c.AccessMarkedOnly(l, "event->group_leader", cpu.PlainRead, "perf_event_open")  // kernel/events/core.c: sys_perf_event_open(): if (group_leader->group_leader != group_leader)
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.MarkedRead, "perf_event_open") // kernel/events/core.c: perf_event_validate_size(), in_software_context(): for_each_sibling_event(), nr_siblings
	c.AccessMarkedOnly(l, "event->ctx", cpu.MarkedRead, "perf_event_open")          // kernel/events/core.c: sys_perf_event_open(): if (group_leader->ctx != ctx)
	c.AccessMarkedOnly(l, "event->pmu_ctx", cpu.PlainRead, "perf_event_open")       // kernel/events/core.c: sys_perf_event_open(): group_leader->pmu_ctx->pmu
}

// openFail marks an error return of an annotated open once perf_event_alloc()
// made the event (the err_* labels' frees: free_event(), put_ctx(),
// put_pmu_ctx(), not annotated) and returns its result. An earlier one is
// openFailEarly's.
func openFail(c *cpu.CPU, err error) (int, error) {
	if c != nil {
		c.Unaudited("sys_perf_event_open's error path")
	}
	return -1, err
}

// openFailEarly is an error return of an annotated open before
// perf_event_alloc() made an event (the attr's and flags' checks, the fd,
// the group fd, the task, perf_event_alloc()'s own argument checks):
// upstream's err_task, err_group_fd and err_fd labels. The target's
// put_task_struct() is the deferred putTaskStructOpen (annotated); the
// group fd's fdput() has nothing to drop (the model's lookup, as the
// install path's, holds no reference); put_unused_fd() of the fd reserved,
// when files is its table (nil: none reserved yet), annotated here.
// kernel/events/core.c: sys_perf_event_open(): err_fd: put_unused_fd(event_fd); return err
func (k *Kernel) openFailEarly(c *cpu.CPU, files *mm.Files, err error) (int, error) {
	if c != nil && files != nil {
		accessFdWrite(c, files, "put_unused_fd") // fs/file.c: put_unused_fd() -> __put_unused_fd(): __clear_open_fd(fd, fdt), files->next_fd (file_lock held)
	}
	return -1, err
}

// accessOpenArgs annotates perf_copy_attr()'s and the syscall's checks'
// read of the one sysctl the run changes (the PMI lowers
// sysctl_perf_event_sample_rate: throttle_took.go).
func (k *Kernel) accessOpenArgs(c *cpu.CPU, a *Attr) {
	if c != nil && a.Freq {
		c.AccessMarkedOnly(sampleRate, "sysctl_perf_event_sample_rate", cpu.MarkedRead, "perf_event_open") // kernel/events/core.c: sys_perf_event_open(): if (attr.sample_freq > sysctl_perf_event_sample_rate)
	}
}

// accessGetUnusedFd annotates get_unused_fd_flags() in t's table: a
// table the model makes on first use (current->files) and the fd it
// reserves.
func (k *Kernel) accessGetUnusedFd(c *cpu.CPU, t *sched.Task) {
	if c == nil {
		return
	}
	sched.AccessFdLookup(c, t, "get_unused_fd_flags")
	if t.Files == nil {
		c.AccessMarkedOnly(t, "task->files", cpu.PlainWrite, "get_unused_fd_flags") // the model's table of a task that had none
		return
	}
	accessFdWrite(c, t.Files, "get_unused_fd_flags") // fs/file.c: alloc_fd(): __set_open_fd(fd, fdt), files->next_fd (files->file_lock held)
}

// taskList is the pid hash find_task_by_vpid() looks in (fork and exit
// write it, in code that is marked).
var taskList any = cpu.KeyName("pid_hash")

// accessFindTask annotates find_lively_task_by_vpid() of pid: the lookup
// (the task list, the task's state: "lively") and get_task_struct() of the
// task found.
func (k *Kernel) accessFindTask(c *cpu.CPU, pid int, t *sched.Task) {
	if c == nil {
		return
	}
	if pid != 0 {
		c.AccessMarkedOnly(taskList, "pid_hash", cpu.MarkedRead, "find_task_by_vpid") // kernel/pid.c: find_task_by_vpid(): pid_task(find_vpid(nr), PIDTYPE_PID)
		for _, x := range k.S.Tasks {
			if x.PID == pid || x.TID == pid {
				c.AccessMarkedOnly(x, "p->__state", cpu.MarkedRead, "find_lively_task_by_vpid") // the model's "lively" check: a dead task is -ESRCH
				t = x
				break
			}
		}
	}
	if t != nil && t.State != sched.Dead && k.lifeOn() {
		c.AccessMarkedOnly(taskUsageKey{k, t}, "task->usage", cpu.MarkedWrite, "get_task_struct") // include/linux/sched/task.h: get_task_struct(): refcount_inc(&t->usage) (its WARN reads the old value)
	}
}

// auditedPMU reports a PMU whose event_init is annotated: it touches only
// the new event (the hardware counters', the software events' and the
// clocks': x86_pmu_event_init() as the model has it, perf_swevent_init(),
// cpu_clock_event_init(), task_clock_event_init()).
func (k *Kernel) auditedPMU(p PMU) bool {
	return p == PMU(k.hwPMU) || p == PMU(k.swPMU) || p == PMU(k.cpuClock) || p == PMU(k.taskClock)
}

// EventInitAnnotated is a PMU whose event_init annotates its own accesses
// to state another context sees (each path it does not read marked where
// it begins), so perf_try_init_event() does not mark it as a whole.
type EventInitAnnotated interface {
	// EventInitAnnotated reports whether this PMU's event_init is so.
	EventInitAnnotated() bool
}

// markEventInit marks p's event_init when nobody annotated it.
func (k *Kernel) markEventInit(p PMU) {
	if !k.M.FootprintListening() || k.auditedPMU(p) {
		return
	}
	if a, ok := p.(EventInitAnnotated); ok && a.EventInitAnnotated() {
		return
	}
	if c := k.curCPU(); c != nil {
		c.Unaudited(p.Name() + "'s event_init") // kernel/events/core.c: perf_try_init_event(): pmu->event_init(event)
	}
}

// allocKey is the model's record of the objects perf_event_alloc() and
// find_get_context() make (its tables of every event and task context,
// which number the contexts' keys): a write by each, so that two CPUs'
// allocations conflict and the numbers stay stable.
type allocKey struct {
	k    *Kernel
	what string
}

// FootprintKey implements cpu.FootprintKeyer.
func (a allocKey) FootprintKey() string { return a.what + " allocations" }

// FootprintExtent implements the write audit's extent.
func (a allocKey) FootprintExtent() []any {
	if a.what == "perf_event" {
		return []any{&a.k.events}
	}
	return []any{&a.k.ctxs}
}

// sidebandCountKey is the model's global counts of side-band events
// (nr_switch_events, nr_mmap_events, nr_cgroup_events), the write
// audit's extent of the adds their cpu.KeyName keys tell the walks of.
type sidebandCountKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (sidebandCountKey) FootprintKey() string { return "nr_*_events (the model's counts)" }

// FootprintExtent implements the write audit's extent.
func (s sidebandCountKey) FootprintExtent() []any {
	return []any{&s.k.nrSwitchEvents, &s.k.nrMmapEvents, &s.k.nrCgroupEvents}
}

// nrMmapEvents and nrCgroupEvents are core.c's atomic_t nr_mmap_events
// and nr_cgroup_events (boxed once, as nrSwitchEvents).
var (
	nrMmapEvents   any = cpu.KeyName("nr_mmap_events")
	nrCgroupEvents any = cpu.KeyName("nr_cgroup_events")
)

// accessEventAlloc annotates perf_event_alloc()'s writes outside the new
// event: the model's table of events, account_event()'s counts
// (atomic_inc(), whose result nobody reads: adds), and
// get_task_struct() of the target.
func (k *Kernel) accessEventAlloc(c *cpu.CPU, e *Event) {
	if c == nil {
		return
	}
	c.AccessMarkedOnly(perfEventID, "perf_event_id", cpu.MarkedRead, "perf_event_alloc")             // kernel/events/core.c: perf_event_alloc(): event->id = atomic64_inc_return(&perf_event_id): the value is the new event's id
	c.AccessMarkedOnly(perfEventIDKey{k}, "perf_event_id", cpu.MarkedWrite, "perf_event_alloc")      // ... and the increment (never an add that commutes: two opens' order gives them their ids)
	c.AccessMarkedOnly(allocKey{k, "perf_event"}, "perf_event", cpu.MarkedWrite, "perf_event_alloc") // the model's table of every event (its observables)
	c.AccessMarkedOnly(e, "event->state", cpu.PlainWrite, "perf_event_alloc")                        // kernel/events/core.c: perf_event_alloc(): the new event's fields, perf_event__state_init() (nothing else sees it yet)
	a := &e.Attr
	if a.ContextSwitch || a.Mmap || a.MmapData || a.Cgroup { // nr_switch_events' add is annotated by accountSideband
		c.AccessMarkedOnly(sidebandCountKey{k}, "nr_*_events", cpu.AtomicAdd, "account_event")
	}
	if a.Mmap || a.MmapData {
		c.AccessMarkedOnly(nrMmapEvents, "nr_mmap_events", cpu.AtomicAdd, "account_event") // kernel/events/core.c: account_event(): atomic_inc(&nr_mmap_events)
	}
	if a.Cgroup {
		c.AccessMarkedOnly(nrCgroupEvents, "nr_cgroup_events", cpu.AtomicAdd, "account_event") // kernel/events/core.c: account_event(): atomic_inc(&nr_cgroup_events)
	}
	if e.hw.target != nil && k.lifeOn() {
		c.AccessMarkedOnly(taskUsageKey{k, e.hw.target}, "task->usage", cpu.MarkedWrite, "perf_event_alloc") // kernel/events/core.c: perf_event_alloc(): event->hw.target = get_task_struct(task)
	}
}

// taskCtxpKey is the model's table of task->perf_event_ctxp
// (Kernel.taskCtx), the write audit's extent of a write its readers'
// key (the task) tells the walks of.
type taskCtxpKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (taskCtxpKey) FootprintKey() string { return "task->perf_event_ctxp (the model's table)" }

// FootprintExtent implements the write audit's extent.
func (p taskCtxpKey) FootprintExtent() []any { return []any{&p.k.taskCtx} }

// accessFindGetContext annotates find_get_context() of task's context
// before its pin: task->perf_event_ctxp, and either the context found
// (ctx->task: TASK_TOMBSTONE, its refcount_inc_not_zero()) or a new one
// (alloc_perf_context(): its get_task_struct(), the model's table) and
// its publication (cmpxchg(&task->perf_event_ctxp, NULL, ctx)). A CPU's
// context needs nothing but its pin (annotated in perfPinContext).
func (k *Kernel) accessFindGetContext(c *cpu.CPU, task *sched.Task) {
	if c == nil || task == nil {
		return
	}
	c.AccessMarkedOnly(task, "task->perf_event_ctxp", cpu.MarkedRead, "find_get_context") // kernel/events/core.c: perf_lock_task_context(): ctx = rcu_dereference(task->perf_event_ctxp)
	ctx := k.taskCtx[task]
	if ctx != nil {
		c.AccessMarkedOnly(ctx, "ctx->task", cpu.MarkedRead, "find_get_context")      // kernel/events/core.c: find_get_context(): if (ctx->task == TASK_TOMBSTONE)
		c.AccessMarkedOnly(ctx, "ctx->refcount", cpu.MarkedWrite, "find_get_context") // kernel/events/core.c: perf_lock_task_context(): refcount_inc_not_zero(&ctx->refcount)
		return
	}
	c.AccessMarkedOnly(task, "task->flags", cpu.MarkedRead, "find_get_context") // kernel/events/core.c: find_get_context(): if (task->flags & PF_EXITING) err = -ESRCH (under task->perf_event_mutex)
	if task.Exiting() {
		return
	}
	c.AccessMarkedOnly(allocKey{k, "perf_event_context"}, "perf_event_context", cpu.MarkedWrite, "alloc_perf_context") // the model's table of task contexts, which numbers their keys
	if k.lifeOn() {
		c.AccessMarkedOnly(taskUsageKey{k, task}, "task->usage", cpu.MarkedWrite, "alloc_perf_context") // kernel/events/core.c: alloc_perf_context(): ctx->task = get_task_struct(task)
	}
	c.AccessMarkedOnly(task, "task->perf_event_ctxp", cpu.MarkedWrite, "find_get_context") // kernel/events/core.c: find_get_context(): cmpxchg(&task->perf_event_ctxp, NULL, ctx)
	c.AccessMarkedOnly(taskCtxpKey{k}, "task->perf_event_ctxp", cpu.MarkedWrite, "find_get_context")
}

// accessNewCtx annotates the new context's own fields (its refcount):
// nothing else sees it before the publication above.
func (k *Kernel) accessNewCtx(c *cpu.CPU, ctx *Context) {
	if c != nil {
		c.AccessMarkedOnly(ctx, "ctx->refcount", cpu.MarkedWrite, "alloc_perf_context") // kernel/events/core.c: alloc_perf_context(): refcount_set(&ctx->refcount, 1), get_ctx()
	}
}

// accessCtxOnline annotates the online check of a CPU's context under its
// mutex (perf_event_{init,exit}_cpu() write it).
func (k *Kernel) accessCtxOnline(c *cpu.CPU, cpuID int) {
	if c != nil && cpuID >= 0 && cpuID < len(k.cpuCtx) {
		c.AccessMarkedOnly(&k.cpuCtx[cpuID], "cpuctx->online", cpu.MarkedRead, "perf_event_open") // kernel/events/core.c: sys_perf_event_open(): if (!cpuctx->online)
	}
}

// epcKey is a perf_event_pmu_context by its context's key and its PMU's
// name (one per PMU in a context; a CPU's are embedded in its
// perf_cpu_pmu_context): its extent is the epc and the model's tables of
// them.
type epcKey struct {
	k   *Kernel
	ctx *Context
	p   PMU
}

// FootprintKey implements cpu.FootprintKeyer.
func (e epcKey) FootprintKey() string { return e.ctx.FootprintKey() + "/pmu_ctx:" + e.p.Name() }

// String is the key's identity (explore's TestFootprintKeysStable): the
// context's epc of the PMU, not the Go values that find it.
func (e epcKey) String() string { return e.FootprintKey() }

// FootprintExtent implements the write audit's extent: the epcs of the
// context (their refcounts), and the tables find_get_pmu_context() fills.
func (e epcKey) FootprintExtent() []any {
	ext := []any{&e.k.cpcEpc, &e.k.epcs, &e.ctx.pmuCtxList}
	for _, epc := range e.ctx.pmuCtxList {
		if epc.pmu == e.p {
			ext = append(ext, epc)
		}
	}
	if !e.ctx.isTask() {
		if epc := e.k.cpcEpc[[2]int{e.ctx.cpu, e.p.base().index}]; epc != nil {
			ext = append(ext, epc)
		}
	}
	return ext
}

// accessFindGetPMUContext annotates find_get_pmu_context() of p in ctx
// (ctx->lock taken, annotated by ctxLock): the context's pmu_ctx_list
// (which perf_ctx_disable()'s walk reads as ctx->event_list), the epc's
// refcount, or a new one linked in. The old path of pmu-ctx-serialize is
// marked.
func (k *Kernel) accessFindGetPMUContext(c *cpu.CPU, p PMU, ctx *Context) {
	if c == nil {
		return
	}
	if k.pmuCtxSerializeOld() {
		c.Unaudited("find_get_pmu_context (pre-4f64a6c9f6f1)")
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedWrite, "find_get_pmu_context")             // kernel/events/core.c: find_get_pmu_context(): list_for_each_entry(epc, &ctx->pmu_ctx_list, ...), list_add(&epc->pmu_ctx_entry, ...)
	c.AccessMarkedOnly(epcKey{k, ctx, p}, "epc->refcount", cpu.MarkedWrite, "find_get_pmu_context") // kernel/events/core.c: find_get_pmu_context(): atomic_inc(&epc->refcount), or a new epc's
}

// perfEventIDKey is the model's counter of perf_event_id (Kernel.nextID),
// the write audit's extent of the increment perfEventID's annotation
// (accessPerfEventID) tells the walks of.
type perfEventIDKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (perfEventIDKey) FootprintKey() string { return "perf_event_id (the model's counter)" }

// FootprintExtent implements the write audit's extent.
func (p perfEventIDKey) FootprintExtent() []any { return []any{&p.k.nextID} }

// cpuOnline is cpu_online_mask, which smp_call_function_single() reads
// (the CPU hotplug writes it, in code that is marked).
var cpuOnline any = cpu.KeyName("cpu_online_mask")

// accessCPUOnline annotates smp_call_function_single()'s cpu_online()
// check of its target.
func (k *Kernel) accessCPUOnline(c *cpu.CPU, fn string) {
	if k.M.FootprintListening() && c != nil {
		c.AccessMarkedOnly(cpuOnline, "cpu_online_mask", cpu.MarkedRead, fn) // kernel/smp.c: smp_call_function_single(): if (cpu >= nr_cpu_ids || !cpu_online(cpu))
	}
}
