package pmu

import (
	"perfsim/mm"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/uapi"
)

// PerfEventOpen is the perf_event_open() syscall, run in t's context through
// the scheduler's syscall path (so syscall tracepoints fire for it too).
// kernel/events/core.c: sys_perf_event_open()
func (k *Kernel) PerfEventOpen(t *sched.Task, attr *Attr, pid, cpuID, groupFD int, flags uint64) (fd int, err error) {
	fd = -1
	k.S.SyscallAnnotated(t, "perf_event_open", func(t *sched.Task) { // footprint_open.go: annotated, or marked where it starts
		fd, err = k.perfEventOpen(t, attr, pid, cpuID, groupFD, flags)
	})
	return fd, err
}

// perfEventOpen is the body of sys_perf_event_open(), checks in the kernel's
// order (see the step list in opencheck.go).
func (k *Kernel) perfEventOpen(t *sched.Task, uattr *Attr, pid, cpuID, groupFD int, flags uint64) (int, error) {
	oc := k.openCPU(t, uattr, groupFD, flags) // footprint_open.go: the CPU of an annotated body, or nil
	if oc != nil {
		k.openAuditing(t, true) // a tracepoint's perf_trace_init() returns into annotated code (footprint_tp_destroy.go)
		defer k.openAuditing(t, false)
	}
	if uattr == nil {
		return openFail(oc, uapi.EFAULT)
	}
	a := *uattr // the kernel works on its own copy
	sys := k.Opts.Sysctl
	// Steps 1-9.
	k.accessOpenArgs(oc, &a)
	if err := CheckOpenArgs(&a, pid, cpuID, flags, sys); err != nil {
		return k.openFailEarly(oc, nil, err) // footprint_open.go: nothing to free
	}
	cgroupFD := -1
	if flags&uapi.PERF_FLAG_PID_CGROUP != 0 {
		cgroupFD, pid = pid, -1 // "In cgroup mode, the pid argument is used to pass the fd opened to the cgroup directory"
	}
	// Step 10: get_unused_fd_flags(): "f_flags = O_RDWR | (flags & PERF_FLAG_FD_CLOEXEC ? O_CLOEXEC : 0)"
	k.accessGetUnusedFd(oc, t)
	files := k.filesOf(t)
	fd, ferr := files.GetUnusedFd(flags&uapi.PERF_FLAG_FD_CLOEXEC != 0)
	if ferr != 0 {
		return k.openFailEarly(oc, nil, ferr)
	}
	installed := false
	defer func() {
		if !installed && files.Fget(int64(fd)) == nil {
			files.PutUnusedFd(fd) // err_fd: put_unused_fd(event_fd)
		}
	}()
	// Step 11: the group fd.
	var groupLeader, outputEvent *Event
	if groupFD != -1 {
		g, err := k.lookup(t, groupFD)
		if err != nil {
			return k.openFailEarly(oc, files, uapi.EBADF)
		}
		if g.state <= StateRevoked {
			k.accessGroupLeader(oc, g) // its state read
			return k.openFailEarly(oc, files, uapi.ENODEV)
		}
		groupLeader = g
		k.accessGroupLeader(oc, g) // footprint_open.go: what the checks below read of it
		if flags&uapi.PERF_FLAG_FD_OUTPUT != 0 {
			outputEvent = groupLeader
		}
		if flags&uapi.PERF_FLAG_FD_NO_GROUP != 0 {
			groupLeader = nil
		}
	}
	// Step 12: the task.
	var task *sched.Task
	if pid != -1 {
		var err error
		k.accessFindTask(oc, pid, t)
		task, err = k.findLivelyTask(t, pid)
		if err != nil {
			return k.openFailEarly(oc, files, err)
		}
		defer k.putTaskStructOpen(t, task) // put_task_struct(task): find_lively_task_by_vpid()'s (footprint_open.go)
	}
	// Step 13.
	if task != nil && groupLeader != nil && groupLeader.Attr.Inherit != a.Inherit {
		return k.openFailEarly(oc, files, uapi.EINVAL)
	}
	// Step 14-17: perf_event_alloc().
	idBefore := k.nextID
	e, err := k.perfEventAlloc(&a, cpuID, task, groupLeader, flags)
	if err != nil {
		if k.nextID == idBefore { // perf_event_alloc()'s argument checks: no event made
			return k.openFailEarly(oc, files, err)
		}
		return openFail(oc, err)
	}
	k.accessEventAlloc(oc, e)
	defer func() {
		if !installed && !t.Unwinding() {
			// err_alloc: free_event() -> _free_event() -> event->destroy(),
			// which for a tracepoint is tp_perf_event_destroy() ->
			// perf_trace_destroy(): the tracepoint's perf_refcount drops.
			if e.attachCallchain {
				k.putCallchainBuffers(t) // __free_event(): put_callchain_buffers()
			}
			if e.tp != nil {
				k.perfTraceDestroy(nil, e, false)
			}
			k.pmuDestroy(e)
			k.perfDetachCgroup(e)
			k.perfEventPutTarget(e) // __free_event(): put_task_struct(event->hw.target)
		}
	}()
	if cgroupFD != -1 {
		// perf_event_alloc(): perf_cgroup_connect()
		if err := k.perfCgroupConnect(t, cgroupFD, e, groupLeader); err != nil {
			return openFail(oc, err)
		}
	}
	caps := PMUCaps{Capabilities: e.pmu.Capabilities()}
	if err := CheckSamplingPMU(&a, caps); err != nil {
		return openFail(oc, err)
	}
	// Step 18: the clock.
	if err := CheckClock(&a, caps); err != nil {
		return openFail(oc, err)
	}
	// Step 19 (ptrace permission) is not modelled: one user. Step 20-21.
	if err := CheckCPUContext(task != nil, sys); err != nil {
		return openFail(oc, err)
	}
	k.accessFindGetContext(oc, task)
	ctx, err := k.findGetContext(task, cpuID)
	if err != nil {
		return openFail(oc, err)
	}
	if task != nil {
		k.accessNewCtx(oc, ctx)
	}
	pinned := true
	defer func() {
		if pinned && !t.Unwinding() {
			k.perfUnpinContext(t.CPU(), ctx) // err_locked: after mutex_unlock(&ctx->mutex)
			k.putCtx(ctx, "perf_event_open") // err_context: put_ctx(ctx)
		}
	}()
	// mutex_lock(&ctx->mutex) (perf_event_ctx_lock_nested(group_leader) when
	// there is a group): the group checks and the install run under it.
	mu, n := k.ctxMutexLocked(t, ctx) // footprint_setup.go: annotated
	defer k.unlockMutex(t, mu, ctx, "ctx->mutex", n)
	// "if (ctx->task == TASK_TOMBSTONE) { err = -ESRCH; goto err_locked; }":
	// the task's perf_event_exit_task_context() ran while we waited
	k.accessCtxTask(oc, ctx, "perf_event_open")
	if ctx.dead {
		return openFail(oc, uapi.ESRCH)
	}
	// Step 21: "Check if the @cpu we're creating an event for is online",
	// under the ctx->mutex that perf_event_{init,exit}_cpu() take.
	if task == nil {
		k.accessCtxOnline(oc, cpuID)
	}
	if task == nil && k.cpuCtx[cpuID].offline {
		return openFail(oc, uapi.ENODEV)
	}
	// Step 22: the group leader rules.
	if groupLeader != nil {
		if err := k.checkGroup(e, groupLeader, ctx, cpuID); err != nil {
			return openFail(oc, err)
		}
	}
	// "Now that we're certain of the pmu; find the pmu_ctx."
	moveGroup := k.openPMUContext(e, groupLeader, ctx) // find_get_pmu_context() annotated (footprint_open.go)
	if e.pmuCtx == nil {
		return openFail(oc, uapi.ENOMEM) // "if (IS_ERR(pmu_ctx)) { err = PTR_ERR(pmu_ctx); goto err_locked; }"
	}
	defer func() {
		if !installed && !t.Unwinding() { // err_context: put_pmu_ctx(event->pmu_ctx); event->pmu_ctx = NULL
			k.putPMUCtx(e.pmuCtx, "perf_event_open")
			e.pmuCtx = nil
		}
	}()
	// Step 23: PERF_FLAG_FD_OUTPUT.
	if outputEvent != nil {
		if err := k.perfEventSetOutput(t, e, outputEvent); err != nil {
			return openFail(oc, err)
		}
	}
	// Step 24: the read size of the group.
	if groupLeader == nil {
		if err := CheckValidateSize(a.ReadFormat, a.ReadFormat, nil, true); err != nil {
			return openFail(oc, err)
		}
	} else {
		var rfs []uint64
		for _, s := range groupLeader.siblings {
			rfs = append(rfs, s.Attr.ReadFormat)
		}
		if err := CheckValidateSize(a.ReadFormat, groupLeader.Attr.ReadFormat, rfs, false); err != nil {
			return openFail(oc, err)
		}
	}
	// Step 25: an event that needs an AUX event links to its AUX group
	// leader (perf_get_aux_event, aux_core.go).
	if a.NeedAuxEvent() && !k.getAuxEventOpen(oc, e, groupLeader) { // footprint_group.go: annotated
		return openFail(oc, uapi.EINVAL)
	}
	// Step 26: exclusive PMUs (none here). Install.
	if moveGroup {
		k.accessMoveGroup(oc, groupLeader, e.pmuCtx) // footprint_move_group.go
		k.moveGroupPMUContext(groupLeader, e.pmuCtx)
	}
	k.installEvent(t, e, ctx, cpuID)
	// From here to the syscall's exit the code is annotated
	// (footprint_open.go): perf_install_in_context() returns here from
	// __perf_install_in_context()'s fragments and smp_call_function_single()'s
	// last wait.
	k.perfUnpinContext(t.CPU(), ctx) // under ctx->mutex, after perf_install_in_context()
	pinned = false
	installed = true
	k.accessOpenDone(t, e, files)
	e.ownerTask = t
	e.fileRefs = 1
	e.life.refcount = 1 // the file's reference (perf_event_alloc: atomic_long_set(&event->refcount, 1))
	// perf_event_open(): anon_inode_getfile(..., f_flags) with f_flags O_RDWR
	files.FdInstall(fd, &mm.OpenFile{Anon: e, Flags: uapi.O_RDWR}) // fd_install(event_fd, event_file)
	k.stats.opens++
	return fd, nil
}

// findLivelyTask looks a pid up: 0 is the caller.
// kernel/events/core.c: find_lively_task_by_vpid()
func (k *Kernel) findLivelyTask(t *sched.Task, pid int) (*sched.Task, error) {
	if pid == 0 {
		k.getTaskStruct(t, "find_lively_task_by_vpid") // get_task_struct(current)
		return t, nil
	}
	for _, x := range k.S.Tasks {
		if x.PID == pid || x.TID == pid {
			if x.State == sched.Dead {
				return nil, uapi.ESRCH
			}
			k.getTaskStruct(x, "find_lively_task_by_vpid") // get_task_struct(task)
			return x, nil
		}
	}
	return nil, uapi.ESRCH
}

// newEvent is the part of perf_event_alloc() every event shares, opened or
// inherited: a new id, the locks' names, the group leader, the target task,
// the period the hardware starts from.
// kernel/events/core.c: perf_event_alloc()
func (k *Kernel) newEvent(a *Attr, cpuID int, target *sched.Task, groupLeader *Event) *Event {
	k.accessPerfEventID() // core.c: perf_event_alloc(): event->id = atomic64_inc_return(&perf_event_id)
	k.nextID++
	e := &Event{k: k, Attr: *a, id: k.nextID, cpu: cpuID, oncpu: -1, state: StateInactive}
	e.mmapMutex.Name = "event->mmap_mutex"
	e.childMutex.Name = "event->child_mutex"
	e.mmapMutex.SetKey(e, "event->mmap_mutex")
	e.childMutex.SetKey(e, "event->child_mutex")
	e.leader = e
	if groupLeader != nil {
		e.leader = groupLeader
	}
	e.pendingIrqFn = e.perfPendingIrq
	e.hw.target = target
	e.hw.idx = -1
	e.hw.samplePeriod = a.SamplePeriod
	if a.Freq && a.SampleFreq() != 0 {
		e.hw.samplePeriod = 1
	}
	e.hw.lastPeriod = e.hw.samplePeriod
	e.hw.periodLeft = int64(e.hw.samplePeriod)
	perfEventHeaderSize(e) // with the group as it is before perf_group_attach()
	return e
}

// perfEventAlloc allocates and initialises the event and finds its PMU.
// kernel/events/core.c: perf_event_alloc()
func (k *Kernel) perfEventAlloc(a *Attr, cpuID int, task *sched.Task, groupLeader *Event, flags uint64) (*Event, error) {
	if err := CheckAllocArgs(a, cpuID, task != nil, k.Opts.Sysctl); err != nil {
		return nil, err
	}
	if k.shouldFail(k.current(), "perf_event_alloc") {
		return nil, uapi.ENOMEM // kmem_cache_alloc_node(perf_event_cache, ...) failed: no event made
	}
	e := k.newEvent(a, cpuID, task, groupLeader)
	if a.Disabled {
		e.state = StateOff
	}
	// perf_init_event(): the PMU of attr.type, retried once when event_init
	// retargets the type (cpu-clock, task-clock), else every PMU in turn.
	p, err := k.perfInitEvent(e)
	if err != nil {
		return nil, err
	}
	e.pmu = p
	caps := PMUCaps{Capabilities: p.Capabilities(), CheckPrecise: p == PMU(k.hwPMU), MaxPreciseIP: k.Opts.HW.MaxPrecise}
	if err := CheckAllocPMU(&e.Attr, caps, task != nil, false, false, k.Opts.Sysctl); err != nil {
		k.freeEventAllocFailed(e)
		return nil, err
	}
	perfEventAllocAux(e)
	k.perfEventAllocAddrFilters(e)
	// "if (!event->parent) { if (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
	// err = get_callchain_buffers(attr->sample_max_stack); if (err) return ERR_PTR(err);"
	if e.Attr.SampleType&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
		if err := k.getCallchainBuffers(k.current()); err != nil {
			k.freeEventAllocFailed(e)
			return nil, err
		}
		e.attachCallchain = true // event->attach_state |= PERF_ATTACH_CALLCHAIN
	}
	e.idHeaderSize = rb.IDHeaderSize(e.Attr.SampleType)
	k.accountEvent(e)
	k.perfEventGetTarget(e)
	k.events = append(k.events, e)
	return e, nil
}

// perfInitEvent finds the PMU for the event.
// kernel/events/core.c: perf_init_event()
func (k *Kernel) perfInitEvent(e *Event) (PMU, error) {
	typ := e.Attr.Type
	if typ == uapi.PERF_TYPE_HARDWARE || typ == uapi.PERF_TYPE_HW_CACHE {
		typ = uint32(e.Attr.Config >> uapi.PERF_PMU_TYPE_SHIFT)
		if typ == 0 {
			typ = uapi.PERF_TYPE_RAW
		} else if int(typ) != int(k.hwPMU.Type()) {
			return nil, uapi.ENOENT
		}
	}
	for tries := 0; tries < 2; tries++ {
		for _, p := range k.pmus {
			if p.Type() != typ {
				continue
			}
			k.markEventInit(p) // footprint_open.go
			err := p.EventInit(e)
			if err == uapi.ENOENT && e.Attr.Type != typ {
				typ = e.Attr.Type // retargeted: look again
				goto again
			}
			if err != nil {
				return nil, err
			}
			return p, nil
		}
		break
	again:
	}
	// Not found by type: try every PMU.
	for _, p := range k.pmus {
		k.markEventInit(p) // footprint_open.go
		err := p.EventInit(e)
		if err == nil {
			return p, nil
		}
		if err != uapi.ENOENT {
			return nil, err
		}
	}
	return nil, uapi.ENOENT
}

// findGetContext returns the context of a task (allocated on first use) or of
// a CPU.
// kernel/events/core.c: find_get_context()
func (k *Kernel) findGetContext(task *sched.Task, cpuID int) (*Context, error) {
	if task == nil {
		if cpuID < 0 || cpuID >= len(k.cpuCtx) {
			return nil, uapi.ENODEV // !cpu_online(cpu)
		}
		return &k.cpuCtx[cpuID].ctx, nil
	}
	ctx := k.taskCtx[task]
	if ctx == nil {
		if k.shouldFail(k.current(), "alloc_perf_context") {
			return nil, uapi.ENOMEM // alloc_perf_context() failed: errout
		}
		if task.Exiting() {
			return nil, uapi.ESRCH // "If it has already passed perf_event_exit_task(), we must see PF_EXITING"
		}
		ctx = k.allocCtx(task)            // refcount 1: the caller's
		k.getCtx(ctx, "find_get_context") // get_ctx(ctx): task->perf_event_ctxp's
		k.taskCtx[task] = ctx
	} else {
		if ctx.dead {
			return nil, uapi.ESRCH // ctx->task == TASK_TOMBSTONE
		}
		k.getCtx(ctx, "perf_lock_task_context") // refcount_inc_not_zero(&ctx->refcount): the caller's
	}
	k.perfPinContext(ctx)
	return ctx, nil
}

// checkGroup is step 22: the rules a new sibling must meet.
// kernel/events/core.c: sys_perf_event_open() "if (group_leader) { ... }"
func (k *Kernel) checkGroup(e, leader *Event, ctx *Context, cpuID int) error {
	// "Do not allow a recursive hierarchy (this new sibling becoming part of
	// the group of another sibling)."
	if leader.leader != leader {
		return uapi.EINVAL
	}
	// "All events in a group should have the same clock"
	if leader.Attr.UseClockid != e.Attr.UseClockid || leader.Attr.Clockid != e.Attr.Clockid {
		return uapi.EINVAL
	}
	// "Make sure we're both events for the same CPU; grouping events for
	// different CPUs is broken; since you can't add an event to a group led
	// by an event on another CPU"
	if leader.cpu != cpuID {
		return uapi.EINVAL
	}
	// "Make sure we're both on the same context; either task or cpu."
	if leader.ctx != ctx {
		return uapi.EINVAL
	}
	// "Only a group leader can be exclusive or pinned"
	if e.Attr.Exclusive || e.Attr.Pinned {
		return uapi.EINVAL
	}
	// A hardware event may only join a group whose leader is software
	// (moved to the hardware PMU) or on its own PMU.
	if !e.pmu.base().isSoftware && !leader.pmu.base().isSoftware && leader.pmu != e.pmu {
		return uapi.EINVAL
	}
	if leader.state <= StateExit {
		return uapi.EINVAL
	}
	return nil
}

// installEvent puts the new event into its context on the right CPU.
// kernel/events/core.c: perf_install_in_context()
func (k *Kernel) installEvent(t *sched.Task, e *Event, ctx *Context, cpuID int) {
	k.perfInstallInContext(t, ctx, e, cpuID)
}
