package pmu

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sched"
)

// The footprints of perf's part in the context switch, declared complete
// (cpu.DeclareComplete) from these step points up to the context's next:
//
//   - "perf_event_task_sched_out": perf_event_switch() (its
//     walk and records: footprint_sideband.go), prev's last CPU, task->perf_event_ctxp of
//     prev and next, the clone check's parent_ctx reads, ctx->lock, the
//     PMUs' disable, perf_cgroup_switch()'s check (marked when a cgroup is
//     active); then the switch's own step (context_switch) or the locked
//     context's (perf_event_context_sched_out:locked, :disabled).
//   - "perf_event_context_sched_out:locked": with both contexts locked, the
//     clone check (context_equiv(): pin_count, parent_ctx, parent_gen and
//     generation of both), then the swap's step, or the slow path's
//     (nr_no_switch_fast, or not clones: the unlock and the lock of ctx
//     alone) up to :disabled, or back to the switch. (The swap itself,
//     :swapped, which moves task->perf_event_ctxp and may sync
//     inherit_stat counts, is not declared.)
//   - "perf_event_context_sched_out:disabled": task_ctx_sched_out() up to
//     ctx_sched_out()'s step, or the enable and unlock back to the switch.
//   - "ctx_sched_out" and "ctx_sched_in": the groups' walk (their states,
//     the PMUs' disable and enable, rotate_necessary, the mux hrtimer) up
//     to the first event's step, and the rest of the caller: the other
//     contexts' sched-in (perf_event_sched_in()), the enable and unlock of
//     the context switch's hooks, and finish_task_switch() (sched's,
//     footprint_switch.go). Every other caller (ctx_resched(), the
//     hotplug, exit and remove paths, rotation, the cgroup switch) is
//     marked where the call returns into it (returnUnaudited).
//   - "event_sched_out" and "event_sched_in": the driver's pmu->del or
//     pmu->add (the hardware counters', the software events' and
//     tracepoints' lists, the breakpoint slots annotated; every other
//     driver marked at its entry), then the rest of the event's state up
//     to the next event's step or the walk's end as above.
//   - "event_sched_out:del": event_sched_out() after pmu->del, the same.
//
// What a cgroup event adds (the cgroups' time, cpuctx->cgrp, the ledger),
// a throttled event's restart and a pinned group's error (the wakeup)
// are marked unaudited (cpu.CPU.Unaudited). The write
// audit (explore's TestWriteAuditPerfSched) checks their writes.
func init() {
	cpu.DeclareComplete(
		"perf_event_task_sched_out",
		"perf_event_context_sched_out:locked",
		"perf_event_context_sched_out:disabled",
		"perf_event_task_sched_in",
		"ctx_sched_out",
		"ctx_sched_in",
		"event_sched_out",
		"event_sched_out:del",
		"event_sched_in",
	)
}

// returnUnaudited marks the return of a context-switch helper (ctx_sched_in,
// ctx_sched_out, event_sched_out, ...) into a caller whose code after the
// call nobody annotated: fn, the caller.
func returnUnaudited(c *cpu.CPU, fn string) { c.Unaudited(fn) }

// lastCPUKey is the model's record of the CPU task t last ran on
// (Kernel.lastCPU, what task->sched_migrated tells upstream): written at
// sched-out, read at sched-in, maybe on another CPU.
type lastCPUKey struct {
	k *Kernel
	t *sched.Task
}

// FootprintKey implements cpu.FootprintKeyer.
func (l lastCPUKey) FootprintKey() string { return l.t.FootprintKey() + "/perf_last_cpu" }

// FootprintExtent is where the model keeps it (explore's write audit).
func (l lastCPUKey) FootprintExtent() []any { return []any{&l.k.lastCPU} }

// pmuDisableKey is CPU N's pmu_disable_count of every PMU
// (this_cpu_ptr(pmu->cpu_pmu_context)->pmu_disable_count): only N's code
// touches it.
type pmuDisableKey struct {
	k   *Kernel
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (p pmuDisableKey) FootprintKey() string { return "pmu_disable_count@cpu" + strconv.Itoa(p.cpu) }

// FootprintExtent implements the write audit's extent.
func (p pmuDisableKey) FootprintExtent() []any { return []any{p.k.pmuDisable.At(p.cpu)} }

// muxKey is CPU N's mux hrtimers (cpc->hrtimer, hrtimer_active), one per
// PMU.
type muxKey struct {
	k   *Kernel
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (m muxKey) FootprintKey() string { return "perf_cpu_pmu_context@cpu" + strconv.Itoa(m.cpu) }

// FootprintExtent implements the write audit's extent: the table, made on
// first use, and its rows.
func (m muxKey) FootprintExtent() []any { return []any{&m.k.mux} }

// bpSlotsKey is CPU N's debug registers (bp_per_reg[]).
type bpSlotsKey struct {
	p   *bpPMU
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (b bpSlotsKey) FootprintKey() string { return "bp_per_reg@cpu" + strconv.Itoa(b.cpu) }

// FootprintExtent implements the write audit's extent.
func (b bpSlotsKey) FootprintExtent() []any { return []any{&b.p.slots[b.cpu]} }

// accessSwitchEvents annotates the read of nr_switch_events (the context
// switch's perf_event_switch(): its walk and records, footprint_sideband.go).
func (k *Kernel) accessSwitchEvents(c *cpu.CPU) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(nrSwitchEvents, "nr_switch_events", cpu.MarkedRead, "perf_event_task_sched_out") // kernel/events/core.c: __perf_event_task_sched_out(): if (atomic_read(&nr_switch_events))
}

// accessLastCPU annotates the model's last CPU of t (task->sched_migrated).
func (k *Kernel) accessLastCPU(c *cpu.CPU, t *sched.Task, op cpu.AccessOp, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(lastCPUKey{k, t}, "p->sched_migrated", op, fn) // kernel/sched/core.c: set_task_cpu() -> perf_event_task_migrate(): p->sched_migrated = 1
	}
}

// accessTaskCtxp annotates the read of t->perf_event_ctxp and of its
// context's task (TASK_TOMBSTONE once the task exited).
func (k *Kernel) accessTaskCtxp(c *cpu.CPU, t *sched.Task, ctx *Context, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(t, "task->perf_event_ctxp", cpu.MarkedRead, fn) // kernel/events/core.c: ctx = rcu_dereference(task->perf_event_ctxp)
	if ctx != nil {
		c.AccessMarkedOnly(ctx, "ctx->task", cpu.MarkedRead, fn) // kernel/events/core.c: perf_event_exit_task_context(): WRITE_ONCE(ctx->task, TASK_TOMBSTONE)
	}
}

// accessCtx annotates an access of ctx's field by c (the context's lock
// held, or ctx->is_active read before it).
func (k *Kernel) accessCtx(c *cpu.CPU, ctx *Context, field string, op cpu.AccessOp, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(ctx, field, op, fn) // kernel/events/core.c: under ctx->lock
	}
}

// accessCPUCtx annotates an access of c's cpuctx field (cpuctx->task_ctx,
// cpuctx->cgrp), which only c's code writes (with irqs off).
func (k *Kernel) accessCPUCtx(c *cpu.CPU, field string, op cpu.AccessOp, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(&k.cpuCtx[c.ID], field, op, fn) // kernel/events/core.c: this_cpu_ptr(&perf_cpu_context)
	}
}

// accessEvent annotates an access of e's field under its context's lock.
func (k *Kernel) accessEvent(c *cpu.CPU, e *Event, field string, op cpu.AccessOp, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(e, field, op, fn) // kernel/events/core.c: under ctx->lock
	}
}

// accessCtxLock annotates a take or a release of ctx->lock (and the
// model's lock word), which another CPU's take reads.
func (k *Kernel) accessCtxLock(c *cpu.CPU, ctx *Context, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(ctx, "ctx->lock", cpu.MarkedWrite, fn) // kernel/events/core.c: raw_spin_lock(&ctx->lock)
	}
}

// accessPMUDisable annotates perf_pmu_disable()/perf_pmu_enable() of p on
// c: this CPU's pmu_disable_count, and the driver's hook, which the
// hardware counters' driver annotates and the other drivers with a hook
// of their own leave to the default (perf_pmu_nop_void).
func (k *Kernel) accessPMUDisable(c *cpu.CPU, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(pmuDisableKey{k, c.ID}, "cpc->pmu_disable_count", cpu.MarkedWrite, fn) // kernel/events/core.c: perf_pmu_disable(): if (!(*count)++) pmu->pmu_disable(pmu)
	}
}

// accessCtxEvents annotates the read of ctx's event and group lists
// (perf_ctx_disable()'s pmu_ctx_list walk, ctx_sched_in()'s
// nr_events check, the groups' walk), which list_add_event() and
// list_del_event() write under ctx->lock.
func (k *Kernel) accessCtxEvents(c *cpu.CPU, ctx *Context, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(ctx, "ctx->event_list", cpu.MarkedRead, fn) // kernel/events/core.c: list_for_each_entry(pmu_ctx, &ctx->pmu_ctx_list, pmu_ctx_entry)
	}
}

// cgroupsUnaudited marks what a cgroup event adds to the context switch's
// time keeping (update_cgrp_time_from_cpuctx(), perf_cgroup_set_timestamp(),
// the ledger): nobody annotated it. It reads every CPU's cpuctx->cgrp (the
// model looks the CPU up by the context), which only code marked or
// undeclared writes.
func (k *Kernel) cgroupsUnaudited(c *cpu.CPU, eventType int, fn string) {
	if !k.M.FootprintListening() {
		return
	}
	if eventType&EVENT_CGROUP != 0 || k.cgs.ledger.by != nil {
		c.Unaudited(fn)
		return
	}
	for i := range k.cpuCtx {
		c.AccessMarkedOnly(&k.cpuCtx[i], "cpuctx->cgrp", cpu.MarkedRead, fn) // kernel/events/core.c: perf_cgroup_switch()/update_cgrp_time_from_cpuctx(): cpuctx->cgrp
		if k.cpuCtx[i].cg.cgrp != nil {
			c.Unaudited(fn)
			return
		}
	}
}

// eventCgroupUnaudited marks a cgroup event's match and disable (its
// cgroup's time, cpuctx->cgrp): nobody annotated them.
func (k *Kernel) eventCgroupUnaudited(c *cpu.CPU, e *Event, fn string) {
	if e.cgrp != nil {
		c.Unaudited(fn)
	}
}

// accessUpdateTime annotates what perf_event_update_time() reads besides
// event->tstamp: the context's time (perf_event_time()) and the leader's
// state (__perf_effective_state()); a cgroup event's time is marked.
func (k *Kernel) accessUpdateTime(c *cpu.CPU, e *Event, fn string) {
	c.AccessMarkedOnly(e.ctx, "ctx->time", cpu.MarkedRead, fn)      // kernel/events/core.c: perf_event_time(): ctx->time + (now - ctx->timestamp) while ctx->is_active & EVENT_TIME
	c.AccessMarkedOnly(e.ctx, "ctx->is_active", cpu.MarkedRead, fn) // kernel/events/core.c: perf_event_time_now(): if (!(__load_acquire(&ctx->is_active) & EVENT_TIME))
	if l := e.leader; l != nil && l != e {
		c.AccessMarkedOnly(l, "event->state", cpu.MarkedRead, fn) // kernel/events/core.c: __perf_effective_state(): leader->state
	}
	if len(e.siblings) > 0 {
		c.AccessMarkedOnly(e, "event->sibling_list", cpu.MarkedRead, fn) // kernel/events/core.c: perf_event_set_state() -> perf_event_update_sibling_time()
	}
	if e.cgrp != nil {
		c.Unaudited("perf_cgroup_event_time")
	}
}

// accessMux annotates perf_mux_hrtimer_restart() on c: its per-CPU
// hrtimer state (the timer is armed on c: a post the timer reports).
func (k *Kernel) accessMux(c *cpu.CPU, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(muxKey{k, c.ID}, "cpc->hrtimer_active", cpu.MarkedWrite, fn) // kernel/events/core.c: perf_mux_hrtimer_restart(): cpc->hrtimer_active = 1
	}
}

// accessEventHW annotates a software driver's write of e's hw state
// (hwc->state, the period) on its add: only the CPU it goes on reads it.
func (k *Kernel) accessEventHW(c *cpu.CPU, e *Event, fn string) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, fn) // kernel/events/core.c: perf_swevent_add(): hwc->state, perf_swevent_set_period()
	}
}

// accessSlots annotates the breakpoint driver's add or del of e on c: its
// debug registers (bp_per_reg[]) and e's hw state.
func (p *bpPMU) accessSlots(c *cpu.CPU, e *Event, fn string) {
	if p.k.M.FootprintListening() {
		c.AccessMarkedOnly(bpSlotsKey{p, c.ID}, "bp_per_reg", cpu.MarkedWrite, fn) // arch/x86/kernel/hw_breakpoint.c: this_cpu_ptr(&bp_per_reg[i])
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, fn)      // kernel/events/hw_breakpoint.c: hw_breakpoint_add(): bp->hw.state
	}
}

// accessCounter annotates x86_pmu_add()/x86_pmu_del() of e on c: the CPU's
// counters (cpuc->events, active_mask, the PEBS enable) and e's counter,
// count and overflow timer (armed or cancelled on c: a post the timer
// reports).
func (p *hwPMU) accessCounter(c *cpu.CPU, e *Event, fn string) {
	if p.k.M.FootprintListening() {
		c.AccessMarkedOnly(&p.cpuc[c.ID], "cpuc->events", cpu.MarkedWrite, fn) // arch/x86/events/core.c: x86_pmu_add()/x86_pmu_del(): cpuc->event_list[], active_mask
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, fn)  // arch/x86/events/core.c: hwc->idx, hwc->state, prev_count, period_left
		c.AccessMarkedOnly(e, "event->count", cpu.MarkedWrite, fn)             // arch/x86/events/core.c: x86_pmu_stop(PERF_EF_UPDATE) -> x86_perf_event_update(): local64_add(delta, &event->count)
	}
}

// accessCounters annotates x86_pmu_disable()/x86_pmu_enable() on c: the
// global enable, and every counter there folded and re-armed.
func (p *hwPMU) accessCounters(c *cpu.CPU, fn string) {
	if !p.k.M.FootprintListening() {
		return
	}
	cc := &p.cpuc[c.ID]
	c.AccessMarkedOnly(cc, "cpuc->enabled", cpu.MarkedWrite, fn) // arch/x86/events/core.c: x86_pmu_disable(): cpuc->enabled = 0
	c.AccessMarkedOnly(cc, "cpuc->events", cpu.MarkedRead, fn)   // arch/x86/events/core.c: x86_pmu_enable(): the counters assigned
	for _, e := range cc.events {
		if e != nil && e.hw.running {
			c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, fn) // the model folds the counter at the global disable and re-arms its overflow at the enable
		}
	}
}

// accessCloneCheck annotates context_equiv()'s reads of two contexts
// locked together: their pin_count, parent_ctx, parent_gen and generation,
// which list_add_event(), list_del_event(), unclone_ctx() and the pinning
// write under ctx->lock.
func (k *Kernel) accessCloneCheck(c *cpu.CPU, ctx, nextCtx *Context) {
	if !k.M.FootprintListening() {
		return
	}
	for _, x := range [...]*Context{ctx, nextCtx} {
		c.AccessMarkedOnly(x, "ctx->parent_ctx", cpu.MarkedRead, "context_equiv")                         // kernel/events/core.c: context_equiv(): ctx1->parent_ctx == ctx2 ...
		c.AccessMarkedOnly(x, "ctx->generation (pin_count, parent_gen)", cpu.MarkedRead, "context_equiv") // kernel/events/core.c: context_equiv(): if (ctx1->pin_count || ctx2->pin_count) ... ctx1->parent_gen == ctx2->generation
	}
}

// accessClock annotates cpu_clock_event_add()/del() (and task_clock's) of
// e on c: its hw state (the running clock, the period left, its hrtimer,
// armed on c: a post the timer reports) and, at del, its count.
func (p *clockPMU) accessClock(c *cpu.CPU, e *Event, fn string) {
	if p.k.M.FootprintListening() {
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, fn) // kernel/events/core.c: cpu_clock_event_start()/stop(): hwc->state, prev_count, perf_swevent_start_hrtimer()
		c.AccessMarkedOnly(e, "event->count", cpu.MarkedWrite, fn)            // kernel/events/core.c: cpu_clock_event_update(): local64_add(delta, &event->count)
	}
}

// accessOldTimer marks the cancel of an event's hrtimer still armed on
// another CPU (a throttled clock event's, which its stop left to its
// callback): the model takes it off that CPU's queue and drops the timer
// for a new one on this CPU, code nobody annotated. (cpu.Timer.Cancel's post
// tells the walks of the cancel itself.)
func (p *clockPMU) accessOldTimer(c *cpu.CPU, tm *cpu.Timer) {
	if armed, _ := tm.Armed(); armed && tm.CPU() != c {
		c.Unaudited("hrtimer_cancel (another CPU's)")
	}
}
