package pmu

import (
	"perfsim/cpu"
	"perfsim/uapi"
)

// The footprint of perf_event_read() (read.go), declared complete from its
// step point "perf_event_read:state-read" up to the reading task's next
// step point: for an ACTIVE event the look at event->oncpu and the IPI
// raised (then smp_call_function_single()'s wait), or __perf_event_read()
// run right here when the event is on this CPU; for an INACTIVE one
// ctx->lock, the state checked again (a change goes round to the step
// point) and the times. Then the return into the caller: read(2)'s
// perf_read_one() (__perf_event_read_value()) and perf_read_group() annotate
// what they read of the values up to the next event's read or the child's
// step point, and mark the end of the walk (the mutex's release, the copy
// out); every other caller is marked where perf_event_read() returns into
// it (markReturn). __perf_event_read() itself, in the IPI's handler or
// here, is annotated up to its step point "__perf_event_read:active" (which
// reads the counter through the driver's pmu->read: not declared) or its
// return; a cgroup event's time is marked.
//
// With the reader's other step points: "perf_read:fdget" (the event's
// context, ctx->mutex, __perf_read()'s state check, a group read's leader,
// siblings and child list and its child_mutex, up to the first event's
// read; an event in error straight to the return), "perf_event_read_value:lock"
// (child_mutex, up to the event's read) and "perf_event_read_value:child"
// (a child's values, then the next child's read or the return). The
// return after the last read is annotated through fdput() and the
// syscall's exit to exit_to_user_mode_loop (sched annotates its part);
// the mutexes are taken through the setup syscalls' lockMutex and
// unlockMutex (footprint_setup.go: one key per mutex, a take that finds it
// held or a release that wakes a waiter marked), and the fdput() that
// drops the file's last reference is marked (fdput: accessFileRef).
//
// And "__perf_event_read:active": pmu->read() of the event (and of a
// group's ACTIVE siblings) by the hardware counters' and the clocks'
// drivers (accessPMURead; every other driver marked), ctx->lock's
// release, then the IPI handler's end (or, run here, perf_event_read()'s
// return, as above).
func init() {
	cpu.DeclareComplete("perf_event_read:state-read", "perf_read:fdget", "perf_event_read_value:lock", "perf_event_read_value:child",
		"__perf_event_read:active")
}

// accessPMURead annotates pmu->read() of e on c for the drivers whose read
// is read here: x86_pmu_read() (the CPU's counters enabled, the event's
// counter folded into its count and period) and the clocks'
// (cpu_clock_event_read(), task_clock_event_read(): the elapsed time into
// the count); the software events' and tracepoints' read nothing
// (perf_swevent_read()). Every other driver is marked.
func (k *Kernel) accessPMURead(c *cpu.CPU, e *Event) {
	if !k.M.FootprintListening() {
		return
	}
	switch p := e.pmu.(type) {
	case *hwPMU:
		c.AccessMarkedOnly(&p.cpuc[c.ID], "cpuc->enabled", cpu.MarkedRead, "x86_pmu_read") // arch/x86/events/core.c: x86_pmu_read() -> x86_perf_event_update(): rdpmc of a counter the CPU's global enable gates (the model's)
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "x86_pmu_read")  // arch/x86/events/core.c: x86_perf_event_update(): local64_try_cmpxchg(&hwc->prev_count, ...), local64_sub(delta, &hwc->period_left)
		c.AccessMarkedOnly(e, "event->count", cpu.MarkedWrite, "x86_pmu_read")             // arch/x86/events/core.c: x86_perf_event_update(): local64_add(delta, &event->count)
	case *clockPMU:
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "cpu_clock_event_read") // kernel/events/core.c: cpu_clock_event_update(): local64_xchg(&event->hw.prev_count, now)
		c.AccessMarkedOnly(e, "event->count", cpu.MarkedWrite, "cpu_clock_event_read")            // kernel/events/core.c: cpu_clock_event_update(): local64_add(now - prev, &event->count)
	case *swPMU, *tpPMU:
		// kernel/events/core.c: perf_swevent_read() is empty (the software
		// events' and the tracepoints' .read); the model's is pmuBase's no-op
	default:
		c.Unaudited("pmu->read") // a driver whose read nobody annotated here
	}
}

// accessEventCtx annotates the look at event->ctx and its task by the
// code that runs on the event's CPU for it.
func (k *Kernel) accessEventCtx(c *cpu.CPU, e *Event, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(e, "event->ctx", cpu.PlainRead, fn) // kernel/events/core.c: __perf_event_read(): struct perf_event_context *ctx = event->ctx
	if e.ctx != nil {
		c.AccessMarkedOnly(e.ctx, "ctx->task", cpu.MarkedRead, fn) // kernel/events/core.c: __perf_event_read(): if (ctx->task && cpuctx->task_ctx != ctx)
	}
}

// accessReadCtxTime annotates __perf_event_read()'s ctx_time_update_event()
// under ctx->lock: ctx->is_active read, the context's time advanced while
// it runs; a cgroup event's cgroup time is marked.
func (k *Kernel) accessReadCtxTime(c *cpu.CPU, e *Event, ctx *Context) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->is_active", cpu.PlainRead, "__perf_event_read") // kernel/events/core.c: ctx_time_update_event(): if (ctx->is_active & EVENT_TIME)
	if ctx.isActive&EVENT_TIME == 0 {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->time", cpu.MarkedWrite, "__perf_event_read") // kernel/events/core.c: ctx_time_update_event() -> __update_context_time(ctx, true): ctx->time, ctx->timestamp
	if e.cgrp != nil {
		c.Unaudited("update_cgrp_time_from_event")
	}
}

// accessSiblings annotates the walk of a group's siblings.
func (k *Kernel) accessSiblings(c *cpu.CPU, e *Event, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(e, "event->sibling_list", cpu.MarkedRead, fn) // kernel/events/core.c: for_each_sibling_event(sub, event)
	}
}

// accessReadState annotates the look at the event's state (and where it
// runs) under ctx->lock.
func (k *Kernel) accessReadState(c *cpu.CPU, e *Event, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(e, "event->state", cpu.PlainRead, fn) // kernel/events/core.c: perf_event_read()/__perf_event_read(): if (event->state != PERF_EVENT_STATE_...)
	c.AccessMarkedOnly(e, "event->oncpu", cpu.PlainRead, fn) // kernel/events/core.c: __perf_event_read(): the event on this CPU (the model's check of event->oncpu)
}

// accessReadValues annotates what read(2) reads of an event after
// perf_event_read() brought it up to date: its count and times, its
// children's folded in (child_count, the child times), the child list the
// walk goes on with, and for a group its siblings' counts.
func (k *Kernel) accessReadValues(c *cpu.CPU, e *Event, group bool, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(e, "event->count", cpu.MarkedRead, fn)       // kernel/events/core.c: perf_event_count(): local64_read(&event->count) + atomic64_read(&event->child_count)
	c.AccessMarkedOnly(e, "event->child_count", cpu.MarkedRead, fn) // ... the exited children's sum (sync_child_event())
	c.AccessMarkedOnly(e, "event->tstamp", cpu.PlainRead, fn)       // kernel/events/core.c: __perf_event_read_value(): *enabled += event->total_time_enabled + atomic64_read(&event->child_total_time_enabled)
	c.AccessMarkedOnly(e, "event->child_total_time", cpu.MarkedRead, fn)
	if group {
		c.AccessMarkedOnly(e, "event->sibling_list", cpu.MarkedRead, fn) // kernel/events/core.c: __perf_read_group_add(): for_each_sibling_event(sub, leader)
		for _, s := range e.siblings {
			c.AccessMarkedOnly(s, "event->count", cpu.MarkedRead, fn) // kernel/events/core.c: __perf_read_group_add(): values[n++] += perf_event_count(sub)
			c.AccessMarkedOnly(s, "event->child_count", cpu.MarkedRead, fn)
		}
		return
	}
	k.accessChildList(c, e, fn)
}

// accessChildList annotates the walk of the event's inherited copies
// (child_list, under child_mutex), which inherit and exit change.
func (k *Kernel) accessChildList(c *cpu.CPU, e *Event, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(e, "event->child_list", cpu.MarkedRead, fn) // kernel/events/core.c: __perf_event_read_value(): list_for_each_entry(child, &event->child_list, child_list)
	}
}

// accessReadOut annotates what read(2) copies out of the event besides
// the values: its lost samples (PERF_FORMAT_LOST), the group's members'
// for a group read, and the group read's size (which perf_group_detach()
// rewrites). The ids and the read format do not change after the open.
func (k *Kernel) accessReadOut(c *cpu.CPU, e *Event, members []*Event, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	if members == nil {
		members = []*Event{e}
	} else {
		c.AccessMarkedOnly(e, "event->read_size", cpu.PlainRead, fn) // kernel/events/core.c: perf_read_group(): kzalloc(event->read_size, GFP_KERNEL)
	}
	if e.Attr.ReadFormat&uapi.PERF_FORMAT_LOST != 0 {
		for _, m := range members {
			c.AccessMarkedOnly(m, "event->lost_samples", cpu.MarkedRead, fn) // kernel/events/core.c: perf_read_one()/__perf_read_group_add(): atomic64_read(&leader->lost_samples)
		}
	}
}

// accessPerfRead annotates __perf_read()'s first looks: the event's state
// (an event in error reads as end of file) and, for a group read, its
// leader, the leader's siblings and inherited copies (walked under the
// leader's child_mutex).
func (k *Kernel) accessPerfRead(c *cpu.CPU, e *Event) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(e, "event->state", cpu.PlainRead, "__perf_read") // kernel/events/core.c: __perf_read(): if (event->state == PERF_EVENT_STATE_ERROR)
	if e.state == StateError || e.Attr.ReadFormat&uapi.PERF_FORMAT_GROUP == 0 {
		return
	}
	c.AccessMarkedOnly(e, "event->group_leader", cpu.PlainRead, "perf_read_group")         // kernel/events/core.c: perf_read_group(): struct perf_event *leader = event->group_leader
	c.AccessMarkedOnly(e.leader, "event->sibling_list", cpu.MarkedRead, "perf_read_group") // kernel/events/core.c: __perf_read_group_add(): for_each_sibling_event(sub, leader)
	c.AccessMarkedOnly(e.leader, "event->child_list", cpu.MarkedRead, "perf_read_group")   // kernel/events/core.c: perf_read_group(): list_for_each_entry(child, &leader->child_list, child_list)
}
