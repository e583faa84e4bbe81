package pmu

import (
	"encoding/binary"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// Read is read(fd) on a perf fd: the count in the event's read_format.
// kernel/events/core.c: perf_read() -> __perf_read()
func (k *Kernel) Read(t *sched.Task, fd int) (b []byte, err error) {
	k.S.Syscall(t, "read", func(t *sched.Task) {
		e, ref, lerr := k.fdget(t, fd) // ksys_read(): CLASS(fd_pos, f)(fd)
		if lerr != nil {
			err = lerr
			return
		}
		defer k.fdput(t, e, ref)
		t.Step("perf_read:fdget") // the file held: a close() of fd here does not release the event
		k.accessEventCtx(t.CPU(), e, "perf_read")
		k.perfReadLocked(t, e, func() { b, err = k.perfRead(t, e) })
	})
	return b, err
}

// perfReadLocked runs __perf_read() (fn) under the event's ctx->mutex, as
// perf_read() does (an event with no context yet: without it).
// kernel/events/core.c: perf_read(): ctx = perf_event_ctx_lock(event); __perf_read(); perf_event_ctx_unlock()
func (k *Kernel) perfReadLocked(t *sched.Task, e *Event, fn func()) {
	if e.ctx == nil {
		fn()
		return
	}
	mu, held := k.ctxMutexLocked(t, e.ctx)
	fn()
	k.unlockMutex(t, mu, e.ctx, "ctx->mutex", held)
}

func (k *Kernel) perfRead(t *sched.Task, e *Event) ([]byte, error) {
	// "Return end-of-file for a read on an event that is in error state
	// (i.e. because it was pinned but it couldn't be scheduled on to the CPU
	// at some point)."
	k.accessPerfRead(t.CPU(), e)
	if e.state == StateError {
		return nil, nil
	}
	rf := e.Attr.ReadFormat
	le := binary.LittleEndian
	var out []byte
	if rf&uapi.PERF_FORMAT_GROUP != 0 {
		// perf_read_group(): the leader's group and each inherited copy of
		// it, summed member by member (__perf_read_group_add()).
		l := e.leader
		members := append([]*Event{l}, l.siblings...)
		values := make([]int64, len(members))
		var enabled, running sim.Duration
		held := k.lockMutex(t, &l.childMutex, l, "event->child_mutex", 0)
		for _, g := range append([]*Event{l}, l.childList...) {
			k.perfEventReadWith(t, g, true, true) // the group and its siblings in one IPI
			k.accessReadValues(t.CPU(), g, true, "perf_read_group")
			enabled += g.timeEnabled()
			running += g.timeRunning()
			values[0] += g.Count()
			for i, s := range g.siblings {
				if i+1 < len(values) {
					values[i+1] += s.Count()
				}
			}
		}
		k.unlockMutex(t, &l.childMutex, l, "event->child_mutex", held)
		k.accessReadOut(t.CPU(), e, members, "perf_read_group")
		out = le.AppendUint64(out, uint64(len(members)))
		if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
			out = le.AppendUint64(out, uint64(enabled))
		}
		if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
			out = le.AppendUint64(out, uint64(running))
		}
		for i, m := range members {
			k.checkInheritedRead(t.CPUID(), m, i, values[i])
			out = le.AppendUint64(out, uint64(values[i]))
			if rf&uapi.PERF_FORMAT_ID != 0 {
				out = le.AppendUint64(out, m.primaryEventID())
			}
			if rf&uapi.PERF_FORMAT_LOST != 0 {
				out = le.AppendUint64(out, m.lostSamples)
			}
		}
		// perf_read_group() fills a kzalloc(event->read_size) buffer and
		// returns read_size bytes: with group-detach-read-size=stale a
		// promoted sibling's old read_size (perf_group_detach()) returns
		// zeroed entries past its nr.
		if len(out) < e.readSize {
			out = append(out, make([]byte, e.readSize-len(out))...)
		}
		return out, nil
	}
	// perf_read_one()
	total, enabled, running := k.perfEventReadValue(t, e)
	k.accessReadOut(t.CPU(), e, nil, "perf_read_one")
	out = le.AppendUint64(out, uint64(total))
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
		out = le.AppendUint64(out, uint64(enabled))
	}
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
		out = le.AppendUint64(out, uint64(running))
	}
	if rf&uapi.PERF_FORMAT_ID != 0 {
		out = le.AppendUint64(out, e.primaryEventID())
	}
	if rf&uapi.PERF_FORMAT_LOST != 0 {
		out = le.AppendUint64(out, e.lostSamples)
	}
	return out, nil
}

// perfEventReadValue is the value read() returns for one event: its own
// count and child_count, plus each live inherited copy's count, read under
// the child_mutex (an exiting copy folds itself into child_count and leaves
// the child_list under the same mutex); the times likewise.
// kernel/events/core.c: __perf_event_read_value()
func (k *Kernel) perfEventReadValue(t *sched.Task, e *Event) (total int64, enabled, running sim.Duration) {
	t.Step("perf_event_read_value:lock")
	held := k.lockMutex(t, &e.childMutex, e, "event->child_mutex", 0)
	k.perfEventReadWith(t, e, false, true)
	k.accessReadValues(t.CPU(), e, false, "__perf_event_read_value")
	total = e.Count()
	enabled, running = e.timeEnabled(), e.timeRunning()
	for i := 0; i < len(e.childList); i++ {
		ch := e.childList[i]
		k.perfEventReadWith(t, ch, false, true) // its step point next
		t.Step("perf_event_read_value:child")
		k.accessReadValues(t.CPU(), ch, false, "__perf_event_read_value")
		k.accessChildList(t.CPU(), e, "__perf_event_read_value")
		total += ch.Count()
		enabled += ch.totalTimeEnabled
		running += ch.totalTimeRunning
	}
	k.unlockMutex(t, &e.childMutex, e, "event->child_mutex", held)
	k.checkInheritedRead(t.CPUID(), e, 0, total)
	return total, enabled, running
}

// appendReadValue appends one {value, [id], [lost]} of a group read part
// with the value given (perf_event_count(), with child_count or not).
func appendReadValue(out []byte, m *Event, count int64, rf uint64) []byte {
	le := binary.LittleEndian
	out = le.AppendUint64(out, uint64(count))
	if rf&uapi.PERF_FORMAT_ID != 0 {
		out = le.AppendUint64(out, m.primaryEventID())
	}
	if rf&uapi.PERF_FORMAT_LOST != 0 {
		out = le.AppendUint64(out, m.lostSamples)
	}
	return out
}

// perfEventReadEvent brings one event's count and times up to date.
func (k *Kernel) perfEventReadEvent(t *sched.Task, e *Event) { k.perfEventRead(t, e, false) }

// perfEventRead brings the count and times up to date: for an ACTIVE event
// an IPI to the CPU it is on (only that CPU can read its counter), for an
// INACTIVE one the times under ctx->lock (retried if the state changed);
// group reads the ACTIVE siblings in the same IPI.
// kernel/events/core.c: perf_event_read()
func (k *Kernel) perfEventRead(t *sched.Task, e *Event, group bool) {
	k.perfEventReadWith(t, e, group, false)
}

// perfEventReadWith is perfEventRead for a caller that annotates its code
// after the return up to its next step point (ret), or not: then the
// return into it is marked.
func (k *Kernel) perfEventReadWith(t *sched.Task, e *Event, group, ret bool) {
	how := csdCall{fn: true, ret: ret} // __perf_event_read() is annotated up to its step point (footprint_read.go)
	for {
		t.CPU().Access(e, "event->state", cpu.MarkedRead, "perf_event_read") // core.c: perf_event_read(): READ_ONCE(event->state)
		state := e.state                                                     // READ_ONCE(event->state)
		t.Step("perf_event_read:state-read")
		switch state {
		case StateActive:
			t.CPU().Access(e, "event->oncpu", cpu.MarkedRead, "perf_event_read") // core.c: perf_event_read(): READ_ONCE(event->oncpu)
			cpuID := e.oncpu                                                     // smp_rmb(); READ_ONCE(event->oncpu)
			if cpuID < 0 || cpuID >= len(k.M.CPUs) {
				k.markReturn(t, how, "perf_event_read's caller")
				return
			}
			// "Purposely ignore the smp_call_function_single() return value."
			_ = k.smpCallWith(t, cpuID, func(c *cpu.CPU) { k.__perfEventRead(c, e, group) }, csdCall{fn: true, ret: true})
			k.markReturn(t, how, "perf_event_read's caller")
			return
		case StateInactive:
			c := t.CPU()
			f := c.LocalIrqSave()
			k.ctxLock(c, e.ctx)
			k.accessReadState(c, e, "perf_event_read")
			if e.state != StateInactive {
				k.ctxUnlock(c, e.ctx)
				c.LocalIrqRestore(f)
				continue // goto again
			}
			e.updateTime("perf_event_read")
			if group {
				k.accessSiblings(c, e, "perf_event_read")
				for _, s := range e.siblings {
					s.updateTime("perf_event_read")
				}
			}
			k.ctxUnlock(c, e.ctx)
			c.LocalIrqRestore(f)
		}
		k.markReturn(t, how, "perf_event_read's caller")
		return
	}
}

// __perfEventRead is the cross-CPU read: on the event's CPU with irqs off,
// the context checked and locked, the counter (and a group's ACTIVE
// siblings) read if the event is still ACTIVE here.
// kernel/events/core.c: __perf_event_read()
func (k *Kernel) __perfEventRead(c *cpu.CPU, e *Event, group bool) {
	e.checkLive("__perf_event_read")
	k.accessEventCtx(c, e, "__perf_event_read")
	ctx := e.ctx
	// "If this is a task context, we need to check whether it is the current
	// task context of this cpu. If not it has been scheduled out before the
	// smp call arrived."
	c.Access(&k.cpuCtx[c.ID], "cpuctx->task_ctx", cpu.PlainRead, "__perf_event_read") // core.c: __perf_event_read(): if (ctx->task && cpuctx->task_ctx != ctx) (irqs off, its own CPU)
	if ctx.task != nil && k.cpuCtx[c.ID].taskCtx != ctx {
		return
	}
	k.ctxLock(c, ctx)
	k.accessReadCtxTime(c, e, ctx)
	if ctx.isActive&EVENT_TIME != 0 {
		ctx.updateContextTime(true) // ctx_time_update_event()
		k.updateCgrpTimeFromEvent(c, e)
	}
	e.updateTime("__perf_event_read")
	if group {
		k.accessSiblings(c, e, "__perf_event_read")
		for _, s := range e.siblings {
			s.updateTime("__perf_event_read")
		}
	}
	k.accessReadState(c, e, "__perf_event_read")
	if e.state != StateActive || e.oncpu != c.ID {
		k.ctxUnlock(c, ctx)
		return
	}
	c.Step("__perf_event_read:active") // ACTIVE tested, pmu->read() next: an NMI may land here
	k.accessPMURead(c, e)
	e.pmu.Read(c, e)
	if group {
		// pmu->start_txn(PERF_PMU_TXN_READ) ... commit_txn()
		k.accessSiblings(c, e, "__perf_event_read")
		for _, s := range e.siblings {
			k.accessReadState(c, s, "__perf_event_read")
			if s.state == StateActive {
				k.accessPMURead(c, s)
				s.pmu.Read(c, s)
			}
		}
	}
	k.ctxUnlock(c, ctx)
}

// Close closes a perf fd. The event is released when its last file
// reference goes, here in the syscall (fputClose): a mapping keeps it
// alive (vma->vm_file), and its munmap() then drops the last. The body is
// annotated (footprint_release.go): the syscall's entry fragment, up to
// its exit, may be complete.
// fs/open.c: SYSCALL_DEFINE1(close) -> file_close_fd(), filp_flush(), fput_close_sync()
func (k *Kernel) Close(t *sched.Task, fd int) (err error) {
	k.S.SyscallAnnotated(t, "close", func(t *sched.Task) {
		var e *Event
		if e, err = k.lookup(t, fd); err != nil {
			return
		}
		k.accessFileClose(t)
		t.Files.Close(int64(fd)) // file_close_fd()
		k.accessCloseFput(t, e)
		k.fputClose(t, e)
	})
	return err
}

// fput drops a file reference; the last one releases the event as task
// work (____fput) when t returns to user mode, not here, where the caller
// may hold mmap_lock (munmap's perf_mmap_close()); a task past
// exit_task_work() has it done at once (delayed_fput()).
// fs/file_table.c: fput() -> task_work_add(____fput) -> __fput() -> perf_release()
func (k *Kernel) fput(t *sched.Task, e *Event) {
	if !k.dropFileRef(e) {
		return
	}
	if t == nil || k.S.TaskWorkAdd(t.CPU(), t, sched.TaskWork{Name: "____fput", Fn: func(t *sched.Task) { k.__fput(t, e, releaseTaskWork) }}, sched.TWAResume) != nil {
		k.__fput(t, e, releaseDelayed)
	}
}

// dropFileRef drops one reference to e's file and reports whether it was
// the last.
// include/linux/file_ref.h: file_ref_put()
func (k *Kernel) dropFileRef(e *Event) bool {
	e.fileRefs--
	if e.fileRefs < 0 {
		panicCrash("fput: file refcount of event %d below zero", e.id)
	}
	return e.fileRefs == 0
}

// releaseVia says where __fput() of a perf file runs, which decides what
// the release returns into.
type releaseVia uint8

const (
	releaseTaskWork releaseVia = iota // ____fput's task work: back into task_work_run() (annotated)
	releaseInClose                    // close(2)'s fput_close_sync(): back into the syscall's return (annotated)
	releaseDelayed                    // delayed_fput() of a task past exit_task_work(): into fput()'s caller, marked
)

// __fput releases the file's event: the fasync entry off, then
// perf_release().
// fs/file_table.c: __fput() -> perf_release() -> perf_event_release_kernel()
func (k *Kernel) __fput(t *sched.Task, e *Event, via releaseVia) {
	k.accessReleaseFasync(t, e)
	if e.file.async { // __fput(): "if (unlikely(file->f_flags & FASYNC))" fasync(-1, file, 0)
		e.file.onList = false
	}
	k.perfEventReleaseKernel(t, e, via)
}

// __perfRemoveFromContext schedules the event (and, as leader, detaches its
// group) out and unlinks it, for a caller whose code after it nobody
// annotated (the exec's and the hotplug's): the return is marked.
// kernel/events/core.c: __perf_remove_from_context()
func (k *Kernel) __perfRemoveFromContext(c *cpu.CPU, e *Event, ctx *Context) {
	k.removeFromContext(c, e, ctx)
	c.Unaudited("__perf_remove_from_context's caller")
}

// __perfRemoveFromContextClose is the close's __perf_remove_from_context()
// (perfRemoveFromContext): in the IPI's handler it returns into
// event_function() and the handler's end, annotated
// (footprint_funccall.go); run here (the context not active, or the task
// not running) it returns into perf_remove_from_context()'s caller, whose
// code nobody annotated: marked.
func (k *Kernel) __perfRemoveFromContextClose(c *cpu.CPU, e *Event, ctx *Context) {
	k.removeFromContext(c, e, ctx)
	if c.Context() == cpu.CtxTask {
		c.Unaudited("perf_remove_from_context's caller")
	}
}

// __perfRemoveFromContextRelease is perf_event_release_kernel()'s own
// __perf_remove_from_context() of the released event: run in a task (the
// context not active, or its task not running), it returns into
// perf_remove_from_context()'s and perf_event_release_kernel()'s code,
// annotated (footprint_release.go); in the IPI's handler into
// event_function()'s, as the close's.
func (k *Kernel) __perfRemoveFromContextRelease(c *cpu.CPU, e *Event, ctx *Context) {
	k.removeFromContext(c, e, ctx)
}

// removeFromContext is __perf_remove_from_context()'s body, annotated from
// its step point (footprint_remove.go).
// kernel/events/core.c: __perf_remove_from_context()
func (k *Kernel) removeFromContext(c *cpu.CPU, e *Event, ctx *Context) {
	c.Step("__perf_remove_from_context")
	k.accessCtxTimeUpdate(c, ctx, "__perf_remove_from_context")
	if ctx.isActive&EVENT_TIME != 0 {
		ctx.updateContextTime(true)
		k.updateCgrpTimeFromCPUCtx(k.cpuCtxOf(ctx), false) // ctx_time_update()
	}
	k.accessReadState(c, e, "__perf_remove_from_context")
	if e.state == StateActive && e.oncpu == c.ID {
		// event_sched_out()'s fragments are annotated up to its return
		// (footprint_sched.go), and this function's code after it is (the
		// same as an inactive event's, below): no mark.
		k.eventSchedOut(c, e)
	} else if e.state == StateActive {
		panicCrash("__perf_remove_from_context: event %d ACTIVE on cpu%d, removed from cpu%d", e.id, e.oncpu, c.ID)
	}
	k.eventCgroupUnaudited(c, e, "perf_cgroup_event_disable")
	k.cgroupRemoveDisable(e, ctx)
	// Only the event goes off the PMU: a leader's ACTIVE siblings are
	// promoted to singleton groups by perf_group_detach() and stay ACTIVE
	// ("list_add_tail(&sibling->active_list, ...)").
	k.accessListDel(c, e, ctx, "list_del_event")
	ctx.listDelEvent(c, e)
	if !ctxHasPMU(ctx, e.pmu) {
		k.accessCtx(c, ctx, "pmu_ctx->rotate_necessary", cpu.MarkedWrite, "__perf_remove_from_context") // kernel/events/core.c: __perf_remove_from_context(): if (!pmu_ctx->nr_events) pmu_ctx->rotate_necessary = 0
		ctx.rotateNecessary[e.pmu.base().index] = false                                                 // !pmu_ctx->nr_events
	}
	if ctx.task != nil {
		k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "__perf_remove_from_context") // kernel/events/core.c: __perf_remove_from_context(): if (ctx->task && ctx != cpuctx->task_ctx) (model: the last event's sched-out)
	}
	if len(ctx.events) == 0 && ctx.task != nil && k.cpuCtx[c.ID].taskCtx == ctx {
		// "If this was the last event, schedule the context out."
		// ctx_sched_out()'s fragments are annotated up to its return
		// (footprint_sched.go); this function returns at once, into its
		// caller, which marks the return where nobody annotated it
		// (__perfRemoveFromContext, __perfRemoveFromContextClose).
		k.ctxSchedOut(c, ctx, EVENT_ALL)
	}
}

// Poll waits until one of fds is readable (the buffer saw a wakeup: rb->poll)
// or hung up (the event's task exited, or the event has no buffer to wait
// on and is dead). It blocks t (sched.WaitAnnotated) until then. Its body
// is annotated (footprint_poll.go).
// kernel/events/core.c: perf_poll() (and do_poll()'s wait loop)
func (k *Kernel) Poll(t *sched.Task, fds []int) (ready []int, hup []int) {
	k.S.SyscallAnnotated(t, "poll", func(t *sched.Task) {
		var q sched.WaitQueue
		var evs []*Event // the events the poller's queue is on (footprint_poll.go)
		for {
			ready, hup, evs = ready[:0], hup[:0], evs[:0]
			for _, fd := range fds {
				e, err := k.lookup(t, fd)
				if err != nil {
					continue
				}
				k.accessPollFd(t.CPU(), e)
				evs = append(evs, e)
				// The waitq is registered before the state is looked at, so
				// no wakeup is missed in between (poll_wait()).
				e.pollers = append(e.pollers, &q)
				if e.rb != nil && e.rb.Poll != 0 {
					e.rb.Poll = 0 // atomic_xchg(&rb->poll, 0)
					ready = append(ready, fd)
				}
				if isEventHup(e) {
					hup = append(hup, fd)
				}
			}
			if len(ready) > 0 || len(hup) > 0 || len(fds) == 0 {
				break
			}
			t.Step("perf_poll:wait")
			k.accessPollSleep(t, evs)
			if !k.S.WaitAnnotated(t, &q, func() { k.accessPollWoken(t, evs) }) {
				break // a signal
			}
			for _, fd := range fds {
				if e, err := k.lookup(t, fd); err == nil {
					k.accessPollUnqueue(t.CPU(), e)
					e.pollers = removeQ(e.pollers, &q)
				}
			}
		}
		for _, fd := range fds {
			if e, err := k.lookup(t, fd); err == nil {
				k.accessPollUnqueue(t.CPU(), e)
				e.pollers = removeQ(e.pollers, &q)
			}
		}
	})
	return ready, hup
}

func removeQ(l []*sched.WaitQueue, q *sched.WaitQueue) []*sched.WaitQueue {
	for i, x := range l {
		if x == q {
			return append(l[:i:i], l[i+1:]...)
		}
	}
	return l
}

// isEventHup is is_event_hup(): the event's task is gone and so are all its
// inherited copies (child_list, read under child_mutex in the kernel).
// kernel/events/core.c: is_event_hup()
func isEventHup(e *Event) bool { return e.state <= StateExit && len(e.childList) == 0 }

// EnableOnExec enables t's enable_on_exec events: the exec of the workload
// perf record forked. Call it from t's exec (inside its execve syscall).
// kernel/events/core.c: perf_event_enable_on_exec()
func (k *Kernel) EnableOnExec(t *sched.Task) {
	ctx := k.taskCtx[t]
	if ctx == nil || len(ctx.events) == 0 {
		return
	}
	c := t.CPU()
	f := c.LocalIrqSave()
	c.Step("perf_event_enable_on_exec")
	// perf_ctx_lock(cpuctx, ctx): a read(2) of one of ctx's INACTIVE events
	// from another CPU (perf_event_read()) updates its times under ctx->lock
	k.ctxLock(c, ctx)
	k.accessEnableOnExec(c, ctx) // footprint_enable_on_exec.go: declared from here
	cc := &k.cpuCtx[c.ID]
	if cc.taskCtx == ctx {
		ctx.updateContextTime(true) // ctx_time_freeze()
	}
	enabled := false
	eventType := 0
	for _, e := range ctx.events {
		enabled = eventEnableOnExec(e) || enabled
		eventType |= getEventType(e) // every event's, as upstream ORs them
	}
	var clone *Context
	if enabled {
		// "Unclone and reschedule this context if we enabled any event."
		clone = ctx.uncloneCtx()
		k.accessUnclone(c, ctx, clone) // footprint_enable_on_exec.go
	}
	if enabled && sched.TaskOf(c.Curr()) == t { // the model's test before ctx_resched(): upstream's caller is always current
		k.ctxResched(c, ctx, eventType, false) // its return marked unless within an exec (context.go)
	} else {
		k.markEnableOnExecReturn(c) // footprint_enable_on_exec.go
	}
	k.ctxUnlock(c, ctx) // perf_ctx_unlock(cpuctx, ctx)
	c.LocalIrqRestore(f)
	k.putCtx(clone, "perf_event_enable_on_exec") // put_ctx(clone_ctx), after the unlock
}

// eventEnableOnExec enables e if it asks to be enabled at exec, and clears
// the ask whatever e's state: a second exec does not enable it again (after
// a PERF_EVENT_IOC_DISABLE, say), and a child inheriting e after the exec
// copies the cleared attr. It reports whether e went to INACTIVE. (States
// below OFF are those of events already detached from the context: not on
// its list.)
// kernel/events/core.c: event_enable_on_exec()
func eventEnableOnExec(e *Event) bool {
	if !e.Attr.EnableOnExec {
		return false
	}
	e.Attr.EnableOnExec = false
	if e.state != StateOff && e.state != StateError { // INACTIVE or more: nothing to enable
		return false
	}
	e.setState(StateInactive)
	return true
}
