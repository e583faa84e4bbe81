package pmu

import "perfsim/cpu"

// The footprints of perf_group_attach() (group_attach.go), declared
// complete (cpu.DeclareComplete) from its three step points up to the
// context's next. A group member's add_event_to_ctx() runs list_add_event()
// and perf_group_attach()'s start (group_caps, list_add_tail) in the
// fragment of its caller (accessAddEventToCtx, footprint_open.go), then:
//
//   - "perf_group_attach:list_add_tail": group_leader->nr_siblings++, up to
//     the next step point.
//   - "perf_group_attach:nr_siblings": group_leader->group_generation++,
//     perf_event__header_size() of the leader (its read_size from its own
//     nr_siblings), then for_each_sibling_event()'s first step (the leader
//     has one sibling at least: the one just linked).
//   - "perf_group_attach:header_size": perf_event__header_size() of one
//     sibling (its group_leader, the leader's nr_siblings), then the walk's
//     next: another header_size step, or the end of the attach and the
//     return into add_event_to_ctx()'s caller. Every caller that passes a
//     CPU (and so reaches these step points) is perf_install_in_context()'s
//     (core_funccall.go): its local path for a disabled event, its
//     perf_install_in_context:ctx-locked path and __perf_install_in_context()
//     (a task not running here, or ctx_time_freeze() + ctx_resched()). The
//     code after add_event_to_ctx() in each is the code a leader's install
//     runs after it in the same fragment, annotated by h13-d
//     (footprint_open.go: the unlock, the IPI's return, ctx_resched()'s first
//     step point, perf_event_open()'s end and the syscall's exit); but for
//     a cgroup member, whose perf_cgroup_match() after the attach is
//     marked (markGroupAttachReturn). An inherited group (inherit.go) is
//     attached with no CPU: no step point.
//
// Keys and fields are those its readers use: the leader by its
// perf_event_id, nr_siblings and group_generation as the leader's
// "event->sibling_list" (what perf_read_group(), group_sched_in(),
// perf_event_validate_size() and perf_group_detach() read or write of the
// group: footprint_read.go, footprint_sched.go, footprint_open.go,
// footprint_remove.go), each member's cached sizes as "event->read_size"
// (perf_read_group()'s kzalloc(event->read_size)). A PMI's
// perf_output_read_group() (PERF_SAMPLE_READ) reads them under the same
// names (footprint_output_read.go: accessOutputRead). explore's TestWriteAuditGroupAttach checks the
// writes, pmu's TestGroupAttachFootprints pins the footprints.
func init() {
	cpu.DeclareComplete(
		"perf_group_attach:list_add_tail",
		"perf_group_attach:nr_siblings",
		"perf_group_attach:header_size",
	)
}

// accessGroupAttachNr annotates group_leader->nr_siblings++ of leader l on
// c (ctx->lock held, irqs off).
func accessGroupAttachNr(c *cpu.CPU, l *Event) {
	if c == nil || !l.k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRMW, "perf_group_attach") // kernel/events/core.c: perf_group_attach(): group_leader->nr_siblings++
}

// accessGroupGeneration annotates group_leader->group_generation++ of
// leader l on c (the model keeps no generation: what __perf_read_group_add()
// compares it for is the leader's siblings).
func accessGroupGeneration(c *cpu.CPU, l *Event) {
	if c == nil || !l.k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRMW, "perf_group_attach") // kernel/events/core.c: perf_group_attach(): group_leader->group_generation++
}

// accessHeaderSize annotates perf_event__header_size() of e on c: its
// group_leader, the leader's nr_siblings, and the write of its read_size
// (and header_size, which the model does not keep apart: it differs only
// by read_size, for PERF_SAMPLE_READ).
func accessHeaderSize(c *cpu.CPU, e *Event) {
	if c == nil || !e.k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(e, "event->group_leader", cpu.PlainRead, "perf_event__header_size")        // kernel/events/core.c: perf_event__header_size(): event->group_leader->nr_siblings
	c.AccessMarkedOnly(e.leader, "event->sibling_list", cpu.PlainRead, "perf_event__header_size") // kernel/events/core.c: perf_event__header_size(): __perf_event_read_size(..., event->group_leader->nr_siblings)
	c.AccessMarkedOnly(e, "event->read_size", cpu.PlainWrite, "perf_event__header_size")          // kernel/events/core.c: perf_event__header_size(): event->read_size = ...; __perf_event_header_size(): event->header_size = size
}

// accessSiblingWalk annotates a step of for_each_sibling_event(pos, l) on
// c: the next entry of the leader's list, or its end.
func accessSiblingWalk(c *cpu.CPU, l *Event) {
	if c == nil || !l.k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRead, "perf_group_attach") // kernel/events/core.c: perf_group_attach(): for_each_sibling_event(pos, group_leader)
}

// markGroupAttachReturn marks, at the end of the attach of e on c, the
// return into a caller whose code after add_event_to_ctx() nobody
// annotated for e: a cgroup event's (__perf_install_in_context()'s
// event_filter_match() -> perf_cgroup_match(): the CPU's cgroup; a
// leader's install marks it in its own fragment, where the cgroup's
// perf_cgroup_event_enable() is marked).
func markGroupAttachReturn(c *cpu.CPU, e *Event) {
	if c != nil && e.cgrp != nil && e.k.M.FootprintListening() {
		c.Unaudited("perf_cgroup_match") // kernel/events/core.c: __perf_install_in_context(): event_filter_match(event) -> perf_cgroup_match()
	}
}

// getAuxEventOpen is perf_event_open()'s perf_get_aux_event() of e (an
// aux_output, aux_pause or aux_resume event) to its group leader, on c
// (ctx->mutex held), annotated: the checks read the leader's PMU (which
// does not change) and its state (the model's stand-in for
// atomic_long_inc_not_zero(&group_leader->refcount): a dead leader; the
// model takes no reference), then the link, e's own field. A failure is the
// open's error path (openFail marks it).
// kernel/events/core.c: perf_get_aux_event()
func (k *Kernel) getAuxEventOpen(c *cpu.CPU, e, leader *Event) bool {
	if c != nil && leader != nil {
		c.AccessMarkedOnly(leader, "event->state", cpu.MarkedRead, "perf_get_aux_event") // kernel/events/core.c: perf_get_aux_event(): atomic_long_inc_not_zero(&group_leader->refcount) (the model: the leader's state)
		c.AccessMarkedOnly(e, "event->aux_event", cpu.PlainWrite, "perf_get_aux_event")  // kernel/events/core.c: perf_get_aux_event(): event->aux_event = group_leader
	}
	return perfGetAuxEvent(e, leader)
}

// The footprints of perf_group_detach() of a sibling (group_attach.go),
// declared complete from its two step points up to the context's next.
// list_del_event() and perf_group_detach()'s start (the sibling's
// list_del_init()) run in the fragment of __perf_remove_from_context()
// (accessListDel, footprint_remove.go), as does a leader's whole detach
// (its siblings promoted: no step point), then:
//
//   - "perf_group_detach:list_del": group_leader->nr_siblings--, up to the
//     next step point.
//   - "perf_group_detach:nr_siblings": group_leader->group_generation++ (and
//     the model's event->group_leader of the sibling, which it points at
//     itself), then out: for_each_sibling_event() perf_event__header_size()
//     of each sibling left and of the leader; back in list_del_event(), the
//     state (perf_event_set_state() to OFF annotates itself), and the rest
//     of __perf_remove_from_context() up to its next step point or its
//     return (removeFromContext's own annotations, inline: the pmu_ctx's
//     rotate_necessary, cpuctx->task_ctx, ctx_sched_out()'s step point; its
//     callers' returns annotated or marked as for the event_sched_out
//     fragments that end there, footprint_remove.go), with the context's
//     lists read again (accessGroupDetachOut). The exit's removals of an
//     inherited event (inherit.go: perf_event_exit_event() and its pre-v5.13
//     form) return into code nobody annotated: marked there
//     (markGroupDetachReturn).
//
// Keys and fields are those of the attach (above) and of accessListDel.
// explore's TestWriteAuditGroupDetach checks the writes, pmu's
// TestGroupDetachFootprints pins the footprints.
func init() {
	cpu.DeclareComplete(
		"perf_group_detach:list_del",
		"perf_group_detach:nr_siblings",
	)
}

// accessGroupDetachNr annotates group_leader->nr_siblings-- of leader l on
// c (ctx->lock held, irqs off).
func accessGroupDetachNr(c *cpu.CPU, l *Event) {
	if c == nil || !l.k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRMW, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): event->group_leader->nr_siblings--
}

// accessGroupDetachOut annotates perf_group_detach() of sibling e from
// leader l on c after nr_siblings--, up to its return into list_del_event()
// and __perf_remove_from_context() (the group's accesses before the
// model's writes, in their order): group_generation++, e's group_leader,
// the walk of l's siblings left with perf_event__header_size() of each and
// of l; then e's state (list_del_event(): if (event->state >
// PERF_EVENT_STATE_OFF)) and ctx's lists (__perf_remove_from_context():
// !pmu_ctx->nr_events, the context's last event).
func accessGroupDetachOut(c *cpu.CPU, ctx *Context, e, l *Event) {
	if c == nil || !l.k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRMW, "perf_group_detach")   // kernel/events/core.c: perf_group_detach(): event->group_leader->group_generation++
	c.AccessMarkedOnly(e, "event->group_leader", cpu.PlainWrite, "perf_group_detach") // the model's: the detached sibling its own leader (the kernel leaves event->group_leader; PERF_ATTACH_GROUP cleared)
	for _, s := range l.siblings {
		c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRead, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): out: for_each_sibling_event(tmp, leader)
		accessHeaderSize(c, s)
	}
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRead, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): for_each_sibling_event()'s end
	accessHeaderSize(c, l)
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "list_del_event") // kernel/events/core.c: list_del_event(): if (event->state > PERF_EVENT_STATE_OFF)
	if ctx != nil {
		c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, "__perf_remove_from_context") // kernel/events/core.c: __perf_remove_from_context(): if (!pmu_ctx->nr_events); if (!ctx->nr_events && ctx->is_active)
	}
}

// markGroupDetachReturn marks, after list_del_event() of e on c by a
// caller whose code after it nobody annotated (fn: the exit's removal of
// an inherited event), the fragment a sibling's detach step point starts.
// sibling is whether e was one when the detach began.
func markGroupDetachReturn(c *cpu.CPU, sibling bool, fn string) {
	if c != nil && sibling {
		c.Unaudited(fn)
	}
}
