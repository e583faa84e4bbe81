package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// Cgroup events (CONFIG_CGROUP_PERF): a CPU-wide event opened with
// PERF_FLAG_PID_CGROUP (pid = an fd of the cgroup's directory) counts only
// while the task running on its CPU is in the cgroup or below it, and its
// enabled time is the cgroup's time on that CPU: how long its tasks ran
// there. cpuctx->cgrp is the cgroup of the task perf last switched to on
// that CPU (set while the CPU context has enabled cgroup events);
// perf_cgroup_switch() reschedules the cgroup events when the next task's
// cgroup differs, from __perf_event_task_sched_out() and from the attach
// path (cgroup_attach_task() -> perf_cgroup_attach() ->
// task_function_call(__perf_cgroup_move)).

// EVENT_CGROUP is enum event_type_t's EVENT_CGROUP: only the PMU contexts
// with cgroup events (perf_skip_pmu_ctx()).
const EVENT_CGROUP = 0x20

// perfCgroupInfo is struct perf_cgroup_info, one per CPU.
type perfCgroupInfo struct {
	time   sim.Duration // info->time.time
	stamp  sim.Time     // info->time.stamp
	active bool         // info->active
}

// perfCgroup is struct perf_cgroup: the perf controller's css of a cgroup.
type perfCgroup struct {
	cg   *sched.Cgroup
	info []perfCgroupInfo // alloc_percpu(struct perf_cgroup_info)
	refs int              // css refcount: 1 while online, one per event (css_get)
	// freed: perf_cgroup_css_free() ran (offline and the last css_put).
	freed   bool
	freedAt lifePoint
}

// parent is css->parent's perf_cgroup.
func (pc *perfCgroup) parent() *perfCgroup {
	if pc.cg.Parent == nil {
		return nil
	}
	return perfCgroupOf(pc.cg.Parent)
}

func perfCgroupOf(cg *sched.Cgroup) *perfCgroup {
	pc, _ := cg.Priv.(*perfCgroup)
	return pc
}

// cgroupState is perf's cgroup bookkeeping on one kernel.
type cgroupState struct {
	switches uint64 // perf_cgroup_switch() calls that rescheduled
	moves    uint64 // __perf_cgroup_move() calls that ran on the task's CPU
	events   uint64 // cgroup events opened
	freed    uint64 // perf_cgroups freed
	ledger   cgroupLedger
}

// perfCPUCgroup is the cgroup part of struct perf_cpu_context.
type perfCPUCgroup struct {
	cgrp      *perfCgroup  // cpuctx->cgrp
	nrCgroups int          // cpuctx->ctx.nr_cgroups
	nrPMU     [maxPMUs]int // pmu_ctx->nr_cgroups, per PMU index
}

// cgroupDanglingKnob selects where the remove path drops a cgroup event
// from the CPU context's cgroup count.
var cgroupDanglingKnob = sim.KnobSpec{
	Name:   "cgroup-remove-disable",
	Values: []string{"today", "pre-3b7a34aebbdf"},
	Help: "__perf_remove_from_context(): today a cgroup event that is not OFF is counted out (perf_cgroup_event_disable()) before its state " +
		"becomes OFF; pre-3b7a34aebbdf the count was dropped in list_del_event() only 'if (event->state > PERF_EVENT_STATE_OFF)', which " +
		"a3c3c6667 made always false (the state is set first): ctx->nr_cgroups leaks and cpuctx->cgrp is never cleared, so it dangles " +
		"once the cgroup is removed, and the next cgroup event enabled on the CPU does not set cpuctx->cgrp",
	Source:  "3b7a34aebbdf perf: Fix dangling cgroup pointer in cpuctx (Yeoreum Yun, v6.16-rc3; Fixes a3c3c6667 perf/core: Fix child_total_time_enabled accounting bug at task exit)",
	Package: "pmu",
}

// CgroupInvariants are the cgroup invariants the pmu judges.
var CgroupInvariants = []struct{ Name, Says, Why string }{
	{"cgroup-time-adds-up",
		"a cgroup event's enabled time equals the time, while it was enabled, that its CPU's perf context time ran with a task of the event's cgroup (or a descendant) current there, the current task's cgroup taken at each context switch, cgroup move and first enable of a cgroup event on the CPU",
		"kernel/events/core.c: perf_cgroup_switch(), perf_cgroup_set_timestamp(), update_cgrp_time_from_cpuctx(): a cgroup event's time is its cgroup's time on the CPU, which runs only while one of its tasks runs there (perf stat -G scales by it)"},
}

func init() {
	KnobSpecs = append(KnobSpecs, cgroupDanglingKnob)
	RegisterStepHelp(map[string]string{
		"perf_cgroup_switch:locked":    "kernel/events/core.c: perf_cgroup_switch(): the next task's cgroup differs from cpuctx->cgrp; the CPU context is locked and re-checked, its cgroup events go out next",
		"perf_cgroup_switch:out":       "kernel/events/core.c: perf_cgroup_switch(): between ctx_sched_out(EVENT_ALL|EVENT_CGROUP) and cpuctx->cgrp = cgrp: the old cgroup's time stopped, the cgroup events of the CPU are off",
		"perf_cgroup_switch:in":        "kernel/events/core.c: perf_cgroup_switch(): cpuctx->cgrp is the new cgroup; ctx_sched_in(EVENT_ALL|EVENT_CGROUP) starts its time and puts its events on next",
		"cgroup_migrate_execute:moved": "kernel/cgroup/cgroup.c: cgroup_migrate_execute(): the task's css_set is the new cgroup's (task_css() sees it); the controllers' attach callbacks (perf_cgroup_attach()) run next",
		"perf_cgroup_attach:call":      "kernel/events/core.c: perf_cgroup_attach(): task_function_call(task, __perf_cgroup_move) is about to cross-call the moved task's CPU",
		"__perf_cgroup_move":           "kernel/events/core.c: __perf_cgroup_move(): on the moved task's CPU with irqs off, the task is current there: perf_cgroup_switch(task) next",
	})
	RegisterObservable("cgroup.switches", "perf_cgroup_switch() calls that switched cpuctx->cgrp (context switches and cgroup moves)",
		func(k *Kernel) int64 { return int64(k.cgs.switches) })
	RegisterObservable("cgroup.moves", "__perf_cgroup_move() calls that found the moved task running on its CPU",
		func(k *Kernel) int64 { return int64(k.cgs.moves) })
	RegisterObservable("cgroup.events", "cgroup events opened (PERF_FLAG_PID_CGROUP)",
		func(k *Kernel) int64 { return int64(k.cgs.events) })
	RegisterObservable("cgroup.nr-cgroups", "enabled cgroup events counted in the CPU contexts (ctx->nr_cgroups summed over CPUs)",
		func(k *Kernel) int64 {
			var n int64
			for i := range k.cpuCtx {
				n += int64(k.cpuCtx[i].cg.nrCgroups)
			}
			return n
		})
	RegisterObservable("cgroup.cpuctx-set", "CPU contexts whose cpuctx->cgrp is set",
		func(k *Kernel) int64 {
			var n int64
			for i := range k.cpuCtx {
				if k.cpuCtx[i].cg.cgrp != nil {
					n++
				}
			}
			return n
		})
	RegisterObservable("cgroup.freed", "perf_cgroups freed (perf_cgroup_css_free(): the cgroup removed and its last css reference dropped)",
		func(k *Kernel) int64 { return int64(k.cgs.freed) })
}

// initCgroups registers perf's cgroup controller.
// kernel/events/core.c: perf_event_cgrp_subsys
func (k *Kernel) initCgroups() { k.S.AddCgroupHook(cgroupHook{k}) }

type cgroupHook struct{ k *Kernel }

// CgroupOnline is perf_cgroup_css_alloc() + perf_cgroup_css_online().
func (h cgroupHook) CgroupOnline(cg *sched.Cgroup) {
	cg.Priv = &perfCgroup{cg: cg, info: make([]perfCgroupInfo, len(h.k.M.CPUs)), refs: 1}
	h.k.perfEventCgroup(cg)
}

// perfEventCgroup writes PERF_RECORD_CGROUP {id, path} for a cgroup that
// came online to every event with attr.cgroup that hears the side band of
// the CPU the mkdir runs on.
// kernel/events/core.c: perf_event_cgroup() -> perf_event_cgroup_output()
func (k *Kernel) perfEventCgroup(cg *sched.Cgroup) {
	if c := k.curCPU(); c != nil && k.M.FootprintListening() {
		c.AccessMarkedOnly(nrCgroupEvents, "nr_cgroup_events", cpu.MarkedRead, "perf_event_cgroup") // kernel/events/core.c: perf_event_cgroup(): if (!atomic_read(&nr_cgroup_events)) return
	}
	if k.nrCgroupEvents == 0 { // "if (!atomic_read(&nr_cgroup_events)) return;"
		return
	}
	c := k.curCPU()
	if c == nil {
		return // a cgroup made before anything runs: no event exists yet
	}
	r := &rb.Cgroup{ID: cg.ID, Path: cg.String()} // cgroup_path()
	fp := k.M.FootprintListening()
	wrote := false
	k.perfIterateSB(c, nil, func(e *Event) {
		if fp {
			k.accessSBOutput(c, e.outputEvent()) // footprint_sideband.go
		}
		if oe := e.outputEvent(); e.Attr.Cgroup && oe.rb != nil { // perf_event_cgroup_match()
			wrote = true
			_ = rb.PerfOutputSidebandAudited(c, oe.rb, oe, r, k.sidebandID(c, e), e.Attr.WriteBackward)
		}
	})
	// Back into the cgroup's mkdir (perf_cgroup_css_online()'s caller):
	// nobody annotated it.
	k.sidebandReturn(c, wrote, false, "perf_event_cgroup's caller")
}

// CgroupOffline drops the css's online reference (css_kill()).
func (h cgroupHook) CgroupOffline(cg *sched.Cgroup) { h.k.cssPut(perfCgroupOf(cg)) }

// CgroupAttach is perf_cgroup_attach(): each moved task's CPU is cross-called
// to switch its cgroup events now if the task runs there.
// kernel/events/core.c: perf_cgroup_attach()
func (h cgroupHook) CgroupAttach(t *sched.Task, moved []*sched.Task) {
	k := h.k
	for _, p := range moved {
		t.Step("perf_cgroup_attach:call")
		_ = k.taskFunctionCall(t, p, func(c *cpu.CPU) error {
			c.Step("__perf_cgroup_move")
			k.cgs.moves++
			k.perfCgroupSwitch(c, p)
			return nil
		})
	}
}

// cssPut drops a reference; the last one frees the perf_cgroup.
// kernel/events/core.c: perf_cgroup_css_free()
func (k *Kernel) cssPut(pc *perfCgroup) {
	if pc == nil {
		return
	}
	pc.refs--
	if pc.refs == 0 {
		pc.freed = true
		pc.freedAt = k.here("perf_cgroup_css_free")
		k.cgs.freed++
	}
}

// cgrpUse is KASAN on a perf_cgroup: reading a freed one is an oops.
func (k *Kernel) cgrpUse(pc *perfCgroup, where string) {
	if pc != nil && pc.freed {
		use := k.here(where)
		k.lifeOops(fmt.Sprintf("BUG: KASAN: slab-use-after-free in %s: perf_cgroup of %s freed by perf_cgroup_css_free() at %s; read through cpuctx->cgrp by %s",
			where, pc.cg, pc.freedAt, use))
	}
}

// perfCgroupConnect resolves the cgroup fd of a PERF_FLAG_PID_CGROUP open
// and takes a css reference: EBADF for an fd that is not open or not a
// cgroup directory, ENOENT for a removed cgroup, EINVAL when the group
// leader watches another cgroup.
// kernel/events/core.c: perf_cgroup_connect()
func (k *Kernel) perfCgroupConnect(t *sched.Task, fd int, e, leader *Event) error {
	if t.Files == nil {
		return uapi.EBADF
	}
	f := t.Files.Get(int64(fd))
	if f == nil {
		return uapi.EBADF // fd_empty(f)
	}
	cg := k.S.CgroupByDir(f.Path)
	if cg == nil {
		// css_tryget_online_from_dir(): not in cgroupfs (-EBADF) or offline (-ENOENT).
		if len(f.Path) >= len(sched.CgroupFS) && f.Path[:len(sched.CgroupFS)] == sched.CgroupFS {
			return uapi.ENOENT
		}
		return uapi.EBADF
	}
	pc := perfCgroupOf(cg)
	pc.refs++ // css_tryget_online
	e.cgrp = pc
	if leader != nil && leader.cgrp != pc {
		k.perfDetachCgroup(e)
		return uapi.EINVAL
	}
	k.cgs.events++
	return nil
}

// perfDetachCgroup is perf_detach_cgroup(): css_put, event->cgrp = NULL.
func (k *Kernel) perfDetachCgroup(e *Event) {
	if e.cgrp == nil {
		return
	}
	k.cssPut(e.cgrp)
	e.cgrp = nil
}

// cgroupMatch is perf_cgroup_match(): an event without a cgroup always
// matches; a cgroup event matches when cpuctx->cgrp is its cgroup or below.
// kernel/events/core.c: perf_cgroup_match()
func (k *Kernel) cgroupMatch(e *Event, c *cpu.CPU) bool {
	if e.cgrp == nil {
		return true
	}
	cc := k.cpuCtx[c.ID].cg.cgrp
	if cc == nil {
		return false
	}
	k.cgrpUse(cc, "perf_cgroup_match")
	return cc.cg.IsDescendant(e.cgrp.cg)
}

// perfCgroupEventTime is perf_cgroup_event_time(): the cgroup's time on the
// event's CPU.
func (e *Event) perfCgroupEventTime() sim.Duration { return e.cgrp.info[e.cpu].time }

// cpuCtxOf returns the CPU whose context ctx is, or the CPU where the task
// context ctx is scheduled in (this_cpu_ptr(&perf_cpu_context)), or -1.
func (k *Kernel) cpuCtxOf(ctx *Context) int {
	if ctx.task == nil {
		return ctx.cpu
	}
	for i := range k.cpuCtx {
		if k.cpuCtx[i].taskCtx == ctx {
			return i
		}
	}
	return -1
}

// updateCgrpTimeFromCPUCtx advances the time of cpuctx->cgrp and its
// ancestors on this CPU; final also marks them inactive.
// kernel/events/core.c: update_cgrp_time_from_cpuctx()
func (k *Kernel) updateCgrpTimeFromCPUCtx(n int, final bool) {
	if n < 0 {
		return
	}
	pc := k.cpuCtx[n].cg.cgrp
	if pc == nil {
		return
	}
	k.cgrpUse(pc, "update_cgrp_time_from_cpuctx")
	now := k.now()
	for ; pc != nil; pc = pc.parent() {
		info := &pc.info[n]
		info.time += now - info.stamp // update_cgrp_time()
		info.stamp = now
		if final {
			info.active = false
		}
	}
	if final {
		k.cgs.ledger.timeStop(k, n)
	}
}

// updateCgrpTimeFromEvent advances the event's cgroup time on this CPU if
// that cgroup is active here.
// kernel/events/core.c: update_cgrp_time_from_event()
func (k *Kernel) updateCgrpTimeFromEvent(c *cpu.CPU, e *Event) {
	if e.cgrp == nil {
		return
	}
	info := &e.cgrp.info[c.ID]
	if info.active {
		now := k.now()
		info.time += now - info.stamp
		info.stamp = now
	}
}

// perfCgroupSetTimestamp starts the time of cpuctx->cgrp and its ancestors
// at the CPU context's timestamp.
// kernel/events/core.c: perf_cgroup_set_timestamp()
func (k *Kernel) perfCgroupSetTimestamp(n int) {
	if n < 0 {
		return
	}
	cc := &k.cpuCtx[n]
	pc := cc.cg.cgrp
	if pc == nil {
		return
	}
	k.cgrpUse(pc, "perf_cgroup_set_timestamp")
	for ; pc != nil; pc = pc.parent() {
		info := &pc.info[n]
		info.stamp = cc.ctx.timestamp
		info.active = true
	}
	k.cgs.ledger.timeStart(k, n)
}

// perfCgroupEventEnable counts an enabled cgroup event in its CPU context;
// the first sets cpuctx->cgrp to current's cgroup.
// kernel/events/core.c: perf_cgroup_event_enable()
func (k *Kernel) perfCgroupEventEnable(e *Event, ctx *Context) {
	if e.cgrp == nil || ctx.task != nil {
		return
	}
	cc := &k.cpuCtx[ctx.cpu]
	k.cgs.ledger.enable(k, e, ctx.cpu)
	cc.cg.nrPMU[e.groupLeaderPMUIndex()]++
	cc.cg.nrCgroups++
	if cc.cg.nrCgroups > 1 {
		return
	}
	cc.cg.cgrp = perfCgroupOf(k.S.CgroupOf(sched.TaskOf(k.M.CPUs[ctx.cpu].Curr())))
}

// perfCgroupEventDisable counts it out; the last clears cpuctx->cgrp.
// kernel/events/core.c: perf_cgroup_event_disable()
func (k *Kernel) perfCgroupEventDisable(e *Event, ctx *Context) {
	if e.cgrp == nil || ctx.task != nil {
		return
	}
	cc := &k.cpuCtx[ctx.cpu]
	cc.cg.nrPMU[e.groupLeaderPMUIndex()]--
	cc.cg.nrCgroups--
	if cc.cg.nrCgroups > 0 {
		return
	}
	cc.cg.cgrp = nil
}

// groupLeaderPMUIndex is the index of event->pmu_ctx->pmu.
func (e *Event) groupLeaderPMUIndex() int { return e.leader.groupPMU().base().index }

// perfCgroupSwitch reschedules the CPU context's cgroup events when task's
// cgroup is not cpuctx->cgrp: out with the old cgroup's time stopped, in
// with the new one's started.
// kernel/events/core.c: perf_cgroup_switch()
func (k *Kernel) perfCgroupSwitch(c *cpu.CPU, task *sched.Task) {
	cc := &k.cpuCtx[c.ID]
	k.accessCPUCtx(c, "cpuctx->cgrp", cpu.MarkedRead, "perf_cgroup_switch") // core.c: perf_cgroup_switch(): if (READ_ONCE(cpuctx->cgrp) == NULL) return
	if cc.cg.cgrp == nil {
		return
	}
	c.Unaudited("perf_cgroup_switch") // footprint_sched.go
	k.cgs.ledger.current(k, c.ID, task)
	pc := perfCgroupOf(k.S.CgroupOf(task))
	if cc.cg.cgrp == pc {
		return
	}
	k.ctxLock(c, &cc.ctx) // guard(perf_ctx_lock)(cpuctx, cpuctx->task_ctx)
	if cc.taskCtx != nil {
		k.ctxLockNested(c, cc.taskCtx, 1)
	}
	c.Step("perf_cgroup_switch:locked")
	if cc.cg.cgrp != nil { // "Re-check, could've raced vs perf_remove_from_context()."
		k.cgs.switches++
		k.perfCtxDisableCgroup(c)
		k.ctxSchedOut(c, &cc.ctx, EVENT_ALL|EVENT_CGROUP)
		c.Step("perf_cgroup_switch:out")
		cc.cg.cgrp = pc
		c.Step("perf_cgroup_switch:in")
		k.ctxSchedIn(c, &cc.ctx, EVENT_ALL|EVENT_CGROUP)
		returnUnaudited(c, "perf_cgroup_switch")
		k.perfCtxEnableCgroup(c)
	}
	if cc.taskCtx != nil {
		k.ctxUnlock(c, cc.taskCtx)
	}
	k.ctxUnlock(c, &cc.ctx)
}

// perfCtxDisableCgroup is perf_ctx_disable(&cpuctx->ctx, EVENT_CGROUP).
func (k *Kernel) perfCtxDisableCgroup(c *cpu.CPU) {
	cc := &k.cpuCtx[c.ID]
	for _, p := range k.pmus {
		if cc.cg.nrPMU[p.base().index] > 0 {
			k.perfPMUDisable(c, p)
		}
	}
}

// perfCtxEnableCgroup is perf_ctx_enable(&cpuctx->ctx, EVENT_CGROUP).
func (k *Kernel) perfCtxEnableCgroup(c *cpu.CPU) {
	cc := &k.cpuCtx[c.ID]
	for _, p := range k.pmus {
		if cc.cg.nrPMU[p.base().index] > 0 {
			k.perfPMUEnable(c, p)
		}
	}
}

// skipCgroupGroup is perf_skip_pmu_ctx() for EVENT_CGROUP: the group's
// PMU context has no cgroup events.
func (k *Kernel) skipCgroupGroup(ctx *Context, g *Event, eventType int) bool {
	if eventType&EVENT_CGROUP == 0 || ctx.task != nil {
		return false
	}
	return k.cpuCtx[ctx.cpu].cg.nrPMU[g.groupPMU().base().index] == 0
}

// cgroupRemoveDisable is the remove path's perf_cgroup_event_disable():
// today before the state becomes OFF; with the knob's old code never (see
// cgroupDanglingKnob).
// kernel/events/core.c: __perf_remove_from_context()
func (k *Kernel) cgroupRemoveDisable(e *Event, ctx *Context) {
	if e.cgrp == nil || e.state <= StateOff {
		return
	}
	k.cgs.ledger.disable(k, e)
	if k.KnobIs(cgroupDanglingKnob.Name, "pre-3b7a34aebbdf") {
		// a3c3c6667: perf_event_set_state(event, min(event->state, state))
		// ran first; list_del_event()'s "if (event->state >
		// PERF_EVENT_STATE_OFF) perf_cgroup_event_disable()" never fires.
		return
	}
	k.perfCgroupEventDisable(e, ctx)
}

// cgroupEventDisable is perf_cgroup_event_disable() on the paths that turn
// an event OFF or ERROR (disable, pending disable, a pinned group that
// cannot go on), with the ledger told.
func (k *Kernel) cgroupEventDisable(e *Event, ctx *Context) {
	if e.cgrp == nil {
		return
	}
	k.cgs.ledger.disable(k, e)
	k.perfCgroupEventDisable(e, ctx)
}
