package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/uapi"
)

// Ioctl is ioctl(fd, cmd, arg) on a perf fd. PERF_EVENT_IOC_ID returns the
// id (the kernel stores it at *arg); SET_OUTPUT takes an fd or -1 as
// uint64(int64(-1)).
// kernel/events/core.c: perf_ioctl() -> _perf_ioctl()
func (k *Kernel) Ioctl(t *sched.Task, fd int, cmd uint64, arg uint64) (ret uint64, err error) {
	// The body is annotated (footprint_setup.go): its entry's fragment,
	// up to perf_ioctl:fdget, may be complete.
	k.S.SyscallAnnotated(t, "ioctl", func(t *sched.Task) {
		e, ref, lerr := k.fdget(t, fd) // SYSCALL_DEFINE3(ioctl): CLASS(fd, f)(fd)
		if lerr != nil {
			err = lerr
			if t.Files != nil && t.Files.Fget(int64(fd)) != nil {
				// an open fd of another file: vfs_ioctl() runs its own
				// ->unlocked_ioctl, which knows no PERF_EVENT_IOC_* (-ENOIOCTLCMD)
				err = uapi.ENOTTY
			}
			return
		}
		defer k.fdput(t, e, ref)
		t.Step("perf_ioctl:fdget")                                                           // the file held: a close() of fd here does not release the event
		k.accessEventSetup(t, e, "event->ctx", cpu.MarkedRead, "perf_event_ctx_lock_nested") // kernel/events/core.c: perf_event_ctx_lock_nested(): ctx = READ_ONCE(event->ctx)
		ctx := e.ctx
		if ctx == nil {
			ret, err = k.perfIoctl(t, e, cmd, arg)
			return
		}
		// perf_ioctl(): ctx = perf_event_ctx_lock(event); _perf_ioctl(); perf_event_ctx_unlock()
		mu, n := k.ctxMutexLocked(t, ctx)
		t.Step("perf_ioctl:ctx-locked")
		ret, err = k.perfIoctl(t, e, cmd, arg)
		k.unlockMutex(t, mu, ctx, "ctx->mutex", n)
	})
	return ret, err
}

func (k *Kernel) perfIoctl(t *sched.Task, e *Event, cmd, arg uint64) (uint64, error) {
	// perf_ioctl(): an event whose PMU is gone does nothing.
	k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "perf_ioctl") // kernel/events/core.c: perf_ioctl(): if (READ_ONCE(event->state) <= PERF_EVENT_STATE_REVOKED)
	if e.state <= StateRevoked {
		return 0, uapi.ENODEV
	}
	var fn func(t *sched.Task, e *Event)
	switch cmd {
	case uapi.PERF_EVENT_IOC_ENABLE:
		fn = k.perfEventEnable
	case uapi.PERF_EVENT_IOC_DISABLE:
		fn = k.perfEventDisable
	case uapi.PERF_EVENT_IOC_RESET:
		fn = k.perfEventReset
	case uapi.PERF_EVENT_IOC_REFRESH:
		return 0, k.perfEventRefresh(t, e, int64(arg))
	case uapi.PERF_EVENT_IOC_PERIOD:
		return 0, k.perfEventPeriod(t, e, arg)
	case uapi.PERF_EVENT_IOC_ID:
		return e.primaryEventID(), nil // event->id and event->parent: set at the event's allocation
	case uapi.PERF_EVENT_IOC_SET_OUTPUT:
		var out *Event
		if int64(arg) != -1 {
			o, err := k.lookup(t, int(int64(arg)))
			if err != nil {
				return 0, uapi.EBADF
			}
			out = o
		}
		return 0, k.perfEventSetOutputRet(t, e, out, "") // the return is annotated: the ioctl's
	case uapi.PERF_EVENT_IOC_SET_FILTER:
		return 0, uapi.EINVAL // ftrace filters are not modelled
	case uapi.PERF_EVENT_IOC_SET_BPF, uapi.PERF_EVENT_IOC_QUERY_BPF:
		return 0, uapi.EINVAL // no BPF programs
	case uapi.PERF_EVENT_IOC_PAUSE_OUTPUT:
		return 0, k.perfIoctlPauseOutput(t, e, arg != 0)
	case uapi.PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		// A number is no attr in the task's memory: perf_copy_attr()'s
		// get_user() faults (ModifyAttributes takes the attr).
		return 0, uapi.EFAULT
	default:
		return 0, uapi.ENOTTY
	}
	if arg&uapi.PERF_IOC_FLAG_GROUP != 0 {
		// perf_event_for_each(): the leader and every sibling.
		k.accessEventSetup(t, e, "event->group_leader", cpu.MarkedRead, "perf_event_for_each") // kernel/events/core.c: perf_event_for_each(): event = event->group_leader (ctx->mutex held)
		l := e.leader
		k.accessEventSetup(t, l, "event->sibling_list", cpu.MarkedRead, "perf_event_for_each") // kernel/events/core.c: perf_event_for_each(): for_each_sibling_event(sibling, event)
		fn(t, l)
		for _, s := range append([]*Event(nil), l.siblings...) {
			fn(t, s)
		}
	} else {
		fn(t, e)
	}
	return 0, nil
}

// primaryEventID is primary_event_id(): the parent's id for an inherited
// event (never here).
func (e *Event) primaryEventID() uint64 {
	if e.parent != nil {
		return e.parent.id // primary_event_id(): the original's id for an inherited event
	}
	return e.id
}

// perfIoctlPauseOutput toggles rb->paused.
// kernel/events/core.c: _perf_ioctl() case PERF_EVENT_IOC_PAUSE_OUTPUT
func (k *Kernel) perfIoctlPauseOutput(t *sched.Task, e *Event, pause bool) error {
	// rcu_read_lock(); rb = rcu_dereference(event->rb);
	k.accessEventSetup(t, e, "event->rb", cpu.MarkedRead, "_perf_ioctl") // kernel/events/core.c: _perf_ioctl(): rb = rcu_dereference(event->rb)
	buf := e.rb
	t.Step("perf_ioctl:PAUSE_OUTPUT:rb-read")
	if k.Opts.Knobs.PauseOutputRBCheck == "posted" {
		// As first posted: if (!event->rb) -- a second read of event->rb.
		k.accessEventSetup(t, e, "event->rb", cpu.MarkedRead, "_perf_ioctl") // the posted patch: if (!event->rb)
		if e.rb == nil {
			return uapi.EINVAL
		}
		t.Step("perf_ioctl:PAUSE_OUTPUT:checked")
		if buf == nil {
			panicCrash("BUG: kernel NULL pointer dereference in rb_toggle_paused() (PERF_EVENT_IOC_PAUSE_OUTPUT: rb read NULL, event->rb re-read non-NULL)")
		}
		k.rbTogglePaused(buf, pause)
		return nil
	}
	// Today: if (!rb || !rb->nr_pages) return -EINVAL; on the one copy.
	if buf != nil {
		k.accessRB(buf, "rb->nr_pages", cpu.MarkedRead, "_perf_ioctl") // kernel/events/core.c: _perf_ioctl(): if (!rb || !rb->nr_pages)
	}
	if buf == nil || buf.NrPages() == 0 {
		return uapi.EINVAL
	}
	t.Step("perf_ioctl:PAUSE_OUTPUT:checked")
	k.rbTogglePaused(buf, pause)
	return nil
}

// rbTogglePaused is rb_toggle_paused(), annotated.
// kernel/events/internal.h: rb_toggle_paused()
func (k *Kernel) rbTogglePaused(buf *rb.Buffer, pause bool) {
	k.accessRB(buf, "rb->nr_pages", cpu.MarkedRead, "rb_toggle_paused") // kernel/events/internal.h: rb_toggle_paused(): if (!pause && rb->nr_pages)
	k.accessRB(buf, "rb->paused", cpu.MarkedWrite, "rb_toggle_paused")  // kernel/events/internal.h: rb_toggle_paused(): rb->paused = 0 (or 1)
	buf.TogglePaused(pause)
}

// perfEventEnable enables an OFF or ERROR event where its context lives.
// kernel/events/core.c: _perf_event_enable() -> __perf_event_enable()
func (k *Kernel) perfEventEnable(t *sched.Task, e *Event) {
	k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "_perf_event_enable") // kernel/events/core.c: _perf_event_enable(): if (event->state >= PERF_EVENT_STATE_INACTIVE || event->state < PERF_EVENT_STATE_ERROR)
	k.accessEventSetup(t, e, "event->ctx", cpu.MarkedRead, "_perf_event_enable")   // kernel/events/core.c: _perf_event_enable(): struct perf_event_context *ctx = event->ctx
	if e.state >= StateInactive || e.state < StateError || e.ctx == nil {
		return
	}
	k.markSetup(t, "event_function_call") // the ERROR state cleared, then the cross-call: core_funccall.go's
	// "If the event is in error state, clear that first."
	if e.state == StateError {
		e.state = StateOff
	}
	k.eventFunctionCall(t, e, k.__perfEventEnable)
}

// kernel/events/core.c: __perf_event_enable()
func (k *Kernel) __perfEventEnable(c *cpu.CPU, e *Event, ctx *Context) {
	if e.state >= StateInactive || e.state <= StateError {
		return
	}
	if ctx.isActive&EVENT_TIME != 0 {
		ctx.updateContextTime(true) // ctx_time_freeze()
		k.updateCgrpTimeFromCPUCtx(k.cpuCtxOf(ctx), false)
	}
	e.setState(StateInactive)
	k.perfCgroupEventEnable(e, ctx)
	if ctx.isActive == 0 {
		// The context is not scheduled in (task asleep): just the state.
		return
	}
	if !eventFilterMatch(e, c) {
		return
	}
	// "If the event is in a group and isn't the group leader, then don't
	// put it on unless the group is on."
	if e.leader != e && e.leader.state != StateActive {
		return
	}
	taskCtx := k.cpuCtx[c.ID].taskCtx
	if ctx.task != nil {
		taskCtx = ctx
	}
	k.ctxReschedThen(c, taskCtx, getEventType(e), ctx.task == nil)
	returnUnaudited(c, "ctx_resched") // __perf_event_enable()'s caller, event_function(): nobody annotated it after ctx_resched()
}

// perfEventDisable disables an event where its context lives.
// kernel/events/core.c: _perf_event_disable() -> __perf_event_disable()
func (k *Kernel) perfEventDisable(t *sched.Task, e *Event) {
	k.accessEventSetup(t, e, "event->state", cpu.MarkedRead, "_perf_event_disable") // kernel/events/core.c: _perf_event_disable(): if (event->state <= PERF_EVENT_STATE_OFF)
	k.accessEventSetup(t, e, "event->ctx", cpu.MarkedRead, "_perf_event_disable")   // kernel/events/core.c: _perf_event_disable(): struct perf_event_context *ctx = event->ctx
	if e.state <= StateOff || e.ctx == nil {
		return
	}
	k.markSetup(t, "event_function_call") // the cross-call: core_funccall.go's
	k.eventFunctionCall(t, e, k.__perfEventDisable)
}

// kernel/events/core.c: __perf_event_disable()
func (k *Kernel) __perfEventDisable(c *cpu.CPU, e *Event, ctx *Context) {
	if e.state < StateInactive {
		return
	}
	c.Step("__perf_event_disable")
	if e.cgrp != nil && ctx.isActive&EVENT_TIME != 0 {
		ctx.updateContextTime(true) // ctx_time_update_event()
		k.updateCgrpTimeFromEvent(c, e)
	}
	if e == e.leader {
		k.groupSchedOut(c, e)
	} else {
		k.eventSchedOut(c, e)
	}
	returnUnaudited(c, "__perf_event_disable")
	k.cgroupEventDisable(e, ctx) // __event_disable()
	e.setState(StateOff)
}

// perfEventDisableLocal is the irq_work side of perf_event_disable_inatomic()
// (event_limit reached): on the CPU where the event is.
// kernel/events/core.c: perf_event_disable_local()
func (k *Kernel) perfEventDisableLocal(c *cpu.CPU, e *Event) {
	if e.ctx == nil || e.state < StateInactive {
		return
	}
	if e.state == StateActive && e.oncpu != c.ID {
		return // event_function_local(): "We must be either inactive or active and the right task"
	}
	k.__perfEventDisable(c, e, e.ctx)
}

// perfEventReset zeroes the count.
// kernel/events/core.c: _perf_event_reset()
func (k *Kernel) perfEventReset(t *sched.Task, e *Event) {
	k.markSetup(t, "perf_event_read") // read.go's
	k.perfEventReadEvent(t, e)
	e.count = 0
	e.childCount = 0
}

// perfEventRefresh adds to event_limit and enables the event.
// kernel/events/core.c: _perf_event_refresh()
func (k *Kernel) perfEventRefresh(t *sched.Task, e *Event, refresh int64) error {
	// "not supported on inherited events"
	k.accessEventSetup(t, e, "event->attr.sample_period", cpu.MarkedRead, "_perf_event_refresh") // kernel/events/core.c: _perf_event_refresh(): if (event->attr.inherit || !is_sampling_event(event))
	if e.Attr.Inherit || !e.isSampling() {
		return uapi.EINVAL
	}
	k.accessEventSetup(t, e, "event->event_limit", cpu.AtomicAdd, "_perf_event_refresh") // kernel/events/core.c: _perf_event_refresh(): atomic_add(refresh, &event->event_limit)
	e.eventLimit += refresh
	k.perfEventEnable(t, e)
	return nil
}

// perfEventPeriod changes sample_period.
// kernel/events/core.c: perf_event_period() -> _perf_event_period()
func (k *Kernel) perfEventPeriod(t *sched.Task, e *Event, v uint64) error {
	k.accessEventSetup(t, e, "event->attr.sample_period", cpu.MarkedRead, "perf_event_period") // kernel/events/core.c: perf_event_period(): if (!is_sampling_event(event))
	if !e.isSampling() {
		return uapi.EINVAL
	}
	if v == 0 {
		return uapi.EINVAL
	}
	if e.Attr.Freq {
		k.accessSampleRate(t)
		if v > uint64(k.Opts.Sysctl.MaxSampleRate) {
			return uapi.EINVAL
		}
	} else if v&(1<<63) != 0 {
		return uapi.EINVAL
	}
	k.markSetup(t, "event_function_call") // the cross-call: core_funccall.go's
	k.eventFunctionCall(t, e, func(c *cpu.CPU, e *Event, ctx *Context) {
		e.Attr.SamplePeriod = v
		if !e.Attr.Freq {
			e.hw.samplePeriod = v
		}
		active := e.state == StateActive && e.oncpu == c.ID
		if active {
			e.pmu.Stop(c, e, PERF_EF_UPDATE)
		}
		e.hw.periodLeft = 0
		if active {
			e.pmu.Start(c, e, PERF_EF_RELOAD)
		}
	})
	return nil
}

// perfEventSetOutput redirects the event's output into output's buffer (nil:
// back to its own, i.e. none), holding both events' mmap_mutex.
// kernel/events/core.c: perf_event_set_output()
func (k *Kernel) perfEventSetOutput(t *sched.Task, e, output *Event) error {
	return k.perfEventSetOutputRet(t, e, output, "perf_event_set_output's caller")
}

// perfEventSetOutputRet is perfEventSetOutput, whose ring_buffer_attach()
// marks its return as reaching code nobody annotated, ret ("": the
// caller's code is annotated).
func (k *Kernel) perfEventSetOutputRet(t *sched.Task, e, output *Event, ret string) error {
	if output != nil {
		// "don't allow circular references"
		if e == output {
			return uapi.EINVAL
		}
		// "Don't allow cross-cpu buffers"
		if output.cpu != e.cpu {
			return uapi.EINVAL
		}
		// "If its not a per-cpu rb, it must be the same task."
		if output.cpu == -1 && output.hw.target != e.hw.target {
			return uapi.EINVAL
		}
		// "Mixing clocks in the same buffer is trouble you don't need."
		if output.Attr.UseClockid != e.Attr.UseClockid || output.Attr.Clockid != e.Attr.Clockid {
			return uapi.EINVAL
		}
		// "Either writing forward or backward"
		if output.Attr.WriteBackward != e.Attr.WriteBackward {
			return uapi.EINVAL
		}
		// "If both events generate aux data, they must be on the same PMU"
		if e.pmu.HasAux() && output.pmu.HasAux() && e.pmu != output.pmu {
			return uapi.EINVAL
		}
	}
	// mutex_lock_double(&event->mmap_mutex, &output_event->mmap_mutex)
	first, second := e, (*Event)(nil)
	if output != nil {
		second = output
		if output.id < e.id { // the model orders by id where the kernel orders by address
			first, second = second, first
		}
	}
	n1 := k.lockMutex(t, &first.mmapMutex, first, "event->mmap_mutex", 0)
	var n2 int
	if second != nil {
		n2 = k.lockMutex(t, &second.mmapMutex, second, "event->mmap_mutex", 1) // SINGLE_DEPTH_NESTING
	}
	err := k.setOutputLocked(t, e, output, ret)
	if second != nil {
		k.unlockMutex(t, &second.mmapMutex, second, "event->mmap_mutex", n2)
	}
	k.unlockMutex(t, &first.mmapMutex, first, "event->mmap_mutex", n1)
	return err
}

// setOutputLocked is perf_event_set_output() under the two mmap_mutexes.
func (k *Kernel) setOutputLocked(t *sched.Task, e, output *Event, ret string) error {
	// "Can't redirect output if we've got an active mmap()"
	k.accessEventSetup(t, e, "event->mmap_count", cpu.MarkedRead, "perf_event_set_output") // kernel/events/core.c: perf_event_set_output(): if (refcount_read(&event->mmap_count))
	if e.mmapCount != 0 {
		return uapi.EINVAL
	}
	var buf *rb.Buffer
	if output != nil {
		k.accessEventSetup(t, output, "event->state", cpu.MarkedRead, "perf_event_set_output") // the model's check of the output event's state (its PMU gone: -EINVAL)
		if output.state <= StateRevoked {
			return uapi.EINVAL
		}
		// get the rb we want to redirect to
		k.accessEventSetup(t, output, "event->rb", cpu.MarkedRead, "ring_buffer_get") // kernel/events/core.c: ring_buffer_get(): rb = rcu_dereference(event->rb)
		b := output.rb
		if b != nil {
			k.accessRB(b, "rb->refcount", cpu.MarkedWrite, "ring_buffer_get") // kernel/events/core.c: ring_buffer_get(): if (!refcount_inc_not_zero(&rb->refcount))
		}
		if b == nil || !k.rbGet(b, "perf_event_set_output") {
			return uapi.EINVAL
		}
		// "did we race against perf_mmap_close()"
		k.accessBufState(b, "rb->mmap_count", cpu.MarkedRead, "perf_event_set_output") // kernel/events/core.c: perf_event_set_output(): if (!refcount_read(&rb->mmap_count))
		if bs := k.bufs[b]; bs == nil || bs.mmapCount == 0 {
			k.accessRBPut(b)
			k.ringBufferPut(b)
			return uapi.EINVAL
		}
		buf = b
	}
	k.accessEventSetup(t, e, "event->rb", cpu.MarkedRead, "perf_event_set_output") // kernel/events/core.c: perf_event_set_output(): ring_buffer_attach(event, rb) reads event->rb
	if e.rb == nil && buf == nil {
		return nil
	}
	k.ringBufferAttachRet(e, buf, ret) // the mutexes dropped, then the caller's code
	return nil
}
