package pmu

import "perfsim/cpu"

// The footprint of __perf_remove_from_context() (read.go: removeFromContext),
// declared complete from its step point up to the context's next: the
// context's time brought up to date (ctx->is_active, ctx->time, the CPU
// context whose cgroup time goes with it: a cgroup's marked), the event's
// state and CPU, then for an ACTIVE event event_sched_out()'s step point
// (its fragments declared in footprint_sched.go); else the cgroup's
// disable (marked), list_del_event() (the context's lists and counts, the
// event's state to OFF through perf_event_set_state(), annotated there) and
// perf_group_detach(): a sibling's removal from its leader's list up to
// the step point that follows it; a leader's siblings promoted to
// singleton groups and every read_size recomputed; then
// pmu_ctx->rotate_necessary, the check for the context's last event and
// ctx_sched_out()'s step point, or the return: into event_function() and
// the IPI's handler's end (footprint_funccall.go) for the close's removal
// on the CPU where the context is active; into a caller nobody annotated
// everywhere else, marked there (__perfRemoveFromContext,
// __perfRemoveFromContextClose run in a task).
func init() {
	cpu.DeclareComplete("__perf_remove_from_context")
}

// accessCtxTimeUpdate annotates ctx_time_update() under ctx->lock: the
// context's is_active read and, while it runs, its time advanced, with the
// time of the cgroup of the CPU context it is scheduled in on (the model
// finds that CPU by each one's cpuctx->task_ctx; a cgroup's time is marked).
// kernel/events/core.c: ctx_time_update() -> __ctx_time_update()
func (k *Kernel) accessCtxTimeUpdate(c *cpu.CPU, ctx *Context, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->is_active", cpu.PlainRead, fn) // kernel/events/core.c: ctx_time_update(): if (ctx->is_active & EVENT_TIME)
	if ctx.isActive&EVENT_TIME == 0 {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->time", cpu.MarkedWrite, fn) // kernel/events/core.c: __ctx_time_update() -> __update_context_time(ctx, true)
	if ctx.task != nil {
		for i := range k.cpuCtx {
			c.AccessMarkedOnly(&k.cpuCtx[i], "cpuctx->task_ctx", cpu.MarkedRead, fn) // the model's this_cpu_ptr(&perf_cpu_context): the CPU whose task_ctx ctx is
		}
	}
	if n := k.cpuCtxOf(ctx); n >= 0 {
		c.AccessMarkedOnly(&k.cpuCtx[n], "cpuctx->cgrp", cpu.MarkedRead, fn) // kernel/events/core.c: __ctx_time_update() -> update_cgrp_time_from_cpuctx(): cpuctx->cgrp
		if k.cpuCtx[n].cg.cgrp != nil {
			c.Unaudited("update_cgrp_time_from_cpuctx")
		}
	}
}

// accessListDel annotates list_del_event() and perf_group_detach() of e
// from ctx, up to the group's first step point: the context's event and
// group lists and their counts (generation, nr_stat, nr_no_switch_fast),
// and the group: a sibling's leader's list (the step point follows), or a
// leader's siblings made leaders of their own, its own list emptied, and
// the read_size of each recomputed.
// kernel/events/core.c: list_del_event(), perf_group_detach()
func (k *Kernel) accessListDel(c *cpu.CPU, e *Event, ctx *Context, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedWrite, fn)                         // kernel/events/core.c: list_del_event(): list_del_rcu(&event->event_entry); del_event_from_groups()
	c.AccessMarkedOnly(ctx, "ctx->generation (pin_count, parent_gen)", cpu.MarkedWrite, fn) // kernel/events/core.c: list_del_event(): ctx->generation++
	if e.Attr.InheritStat {
		c.AccessMarkedOnly(ctx, "ctx->nr_stat", cpu.MarkedWrite, fn) // kernel/events/core.c: list_del_event(): ctx->nr_stat--
	}
	if hasInheritAndSampleRead(&e.Attr) {
		c.AccessMarkedOnly(ctx, "ctx->nr_no_switch_fast", cpu.MarkedWrite, fn) // kernel/events/core.c: list_del_event(): local_dec(&ctx->nr_no_switch_fast)
	}
	c.AccessMarkedOnly(e, "event->group_leader", cpu.PlainRead, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): struct perf_event *leader = event->group_leader
	if l := e.leader; l != e {
		c.AccessMarkedOnly(l, "event->sibling_list", cpu.MarkedWrite, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): list_del_init(&event->sibling_list)
		return                                                                             // the step point perf_group_detach:list_del next
	}
	c.AccessMarkedOnly(e, "event->sibling_list", cpu.MarkedWrite, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): list_for_each_entry_safe(sibling, tmp, &event->sibling_list, sibling_list)
	c.AccessMarkedOnly(e, "event->read_size", cpu.PlainWrite, "perf_group_detach")     // kernel/events/core.c: perf_group_detach() -> perf_event__header_size(leader)
	for _, s := range e.siblings {
		c.AccessMarkedOnly(s, "event->group_leader", cpu.PlainWrite, "perf_group_detach") // kernel/events/core.c: perf_group_detach(): sibling->group_leader = sibling
		c.AccessMarkedOnly(s, "event->read_size", cpu.PlainWrite, "perf_group_detach")    // kernel/events/core.c: perf_group_detach() -> perf_event__header_size(tmp)
	}
}
