package pmu

import (
	"slices"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// ctx->is_active bits (enum event_type_t).
const (
	EVENT_FLEXIBLE = 0x01
	EVENT_PINNED   = 0x02
	EVENT_TIME     = 0x04
	EVENT_ALL      = EVENT_FLEXIBLE | EVENT_PINNED
)

// Context is struct perf_event_context: the events of one task, or of one CPU.
type Context struct {
	race cpu.Shadow // its annotated fields' cells, for the data-race oracle (cpu/race_shadow.go)
	k    *Kernel
	task *sched.Task // ctx->task; nil for a CPU context
	cpu  int         // the CPU of a CPU context

	isActive int // ctx->is_active
	// lockCPU is 1 + the CPU holding ctx->lock (0: free); lockDepth counts
	// the model's nested takes on that CPU (context_lock.go).
	lockCPU, lockDepth int
	lockClock          cpu.SyncClock // ctx->lock's for the data-race oracle (cpu/race.go)
	keyTID, keySeq     int           // its key (FootprintKey): its task's TID at allocation (0: a CPU context), how many task contexts the run made before it
	// pinned and flexible are the group leaders (ctx->pinned_groups,
	// flexible_groups), in insertion order (the rb-tree's group_index order).
	pinned, flexible []*Event
	events           []*Event // ctx->event_list, head first: the newest event first
	nrActive         int
	// rotateNecessary is pmu_ctx->rotate_necessary, per PMU index: a
	// flexible group of that PMU could not go on.
	rotateNecessary [maxPMUs]bool

	time      sim.Duration // ctx->time: how long the context was scheduled in
	timestamp sim.Time     // when ctx->time was last updated
	dead      bool         // ctx->task == TASK_TOMBSTONE

	// Cloning (inherit.go): ctx->parent_ctx and ctx->parent_gen of a
	// context inherited at fork, ctx->generation (bumped by every
	// list_add_event(), list_del_event() and unclone_ctx()), pin_count,
	// nr_stat and nr_no_switch_fast.
	parentCtx      *Context
	parentGen      uint64
	generation     uint64
	pinCount       int
	nrStat         int
	nrNoSwitchFast int

	life ctxLife // ctx->refcount and the RCU-deferred free (ctx_life.go)

	pmuCtxList []*PMUContext // ctx->pmu_ctx_list, sorted by pmu->type (epc_life.go)
}

func (ctx *Context) init(k *Kernel, t *sched.Task, cpuID int) {
	ctx.k, ctx.task, ctx.cpu = k, t, cpuID
	ctx.lockClock.SetKey(ctx, "ctx->lock") // its stable key (footprint_key.go)
}

// Task returns the context's task (nil for a CPU context).
func (ctx *Context) Task() *sched.Task { return ctx.task }

// IsActive returns ctx->is_active.
func (ctx *Context) IsActive() int { return ctx.isActive }

// updateContextTime advances ctx->time while the context is scheduled in.
// kernel/events/core.c: __update_context_time()
func (ctx *Context) updateContextTime(adv bool) {
	now := ctx.k.now()
	if adv {
		ctx.time += now - ctx.timestamp
	}
	ctx.timestamp = now
}

// ctxTime is perf_event_time(): the context's time as of now.
func (ctx *Context) ctxTime() sim.Duration {
	if ctx.isActive&EVENT_TIME != 0 {
		return ctx.time + (ctx.k.now() - ctx.timestamp)
	}
	return ctx.time
}

// updateTime folds the time since the last state change into the event's
// enabled/running times, for the kernel function fn (the data-race oracle's
// name for the access: perf_event_update_time() is inlined into its caller).
// Its plain read and write of event->tstamp are annotated: every caller but
// perf_mmap_rb() holds ctx->lock (or runs on the event's CPU with irqs off).
// kernel/events/core.c: perf_event_update_time()
func (e *Event) updateTime(fn string) {
	if e.ctx == nil {
		return
	}
	// One annotation for the read (__perf_update_times(): u64 delta = now -
	// event->tstamp) and the write (event->tstamp = now) that follows it.
	c := e.k.curCPU()
	c.Access(e, "event->tstamp", cpu.PlainRMW, fn) // core.c: perf_event_update_time()
	if e.k.M.FootprintListening() {
		e.k.accessUpdateTime(c, e, fn)
	}
	e.foldTime()
}

// foldTime is updateTime without the annotations: the model's own
// bookkeeping where the kernel only reads the times (calc_timer_values()).
func (e *Event) foldTime() {
	now := e.ctx.ctxTime()
	if e.cgrp != nil {
		now = e.perfCgroupEventTime() // perf_event_time(): is_cgroup_event()
	}
	d := now - e.tstamp
	st := e.effectiveState()
	if st >= StateInactive {
		e.totalTimeEnabled += d
	}
	if st == StateActive {
		e.totalTimeRunning += d
	}
	e.tstamp = now
}

// effectiveState is the state the times count by: a group whose leader is
// OFF (or in error) is off as a whole, whatever its members' states.
// kernel/events/core.c: __perf_effective_state()
func (e *Event) effectiveState() EventState {
	if l := e.leader; l != nil && l.state <= StateOff {
		return l.state
	}
	return e.state
}

// setState is perf_event_set_state(): update the times, then change state.
// kernel/events/core.c: perf_event_set_state()
func (e *Event) setState(s EventState) {
	if e.state == s {
		return
	}
	e.updateTime("perf_event_set_state")
	// "If a group leader gets enabled/disabled all its siblings are affected
	// too." (perf_event_update_sibling_time())
	if (e.state < 0) != (s < 0) {
		for _, sib := range e.siblings {
			sib.updateTime("perf_event_set_state")
		}
	}
	e.k.curCPU().Access(e, "event->state", cpu.MarkedWrite, "perf_event_set_state") // core.c: perf_event_set_state(): WRITE_ONCE(event->state, state)
	e.state = s
}

// groups returns the list a leader belongs to.
func (ctx *Context) groups(e *Event) *[]*Event {
	if e.Attr.Pinned {
		return &ctx.pinned
	}
	return &ctx.flexible
}

// addEventToCtx links the event (and, for a leader, its group) into ctx.
// c is the CPU doing it (nil where no interrupt can see the group yet).
// kernel/events/core.c: add_event_to_ctx() -> list_add_event(), perf_group_attach()
func (ctx *Context) addEventToCtx(c *cpu.CPU, e *Event) {
	e.ctx = ctx
	ctx.k.epcUse(e.pmuCtx, "list_add_event") // event->pmu_ctx->nr_events++
	e.tstamp = ctx.ctxTime()
	if e.cgrp != nil {
		e.tstamp = e.perfCgroupEventTime()
	}
	ctx.events = slices.Insert(ctx.events, 0, e) // list_add_rcu(&event->event_entry, &ctx->event_list): at the head
	ctx.listAddAccount(e)
	if e.state > StateOff {
		ctx.k.perfCgroupEventEnable(e, ctx)
	}
	if e.isLeader() {
		g := ctx.groups(e)
		*g = append(*g, e)
		return
	}
	perfGroupAttach(c, e)
}

// listDelEvent unlinks the event from ctx (c as for addEventToCtx).
// kernel/events/core.c: list_del_event(), perf_group_detach()
func (ctx *Context) listDelEvent(c *cpu.CPU, e *Event) {
	if !slices.Contains(ctx.events, e) {
		return // "if (!(event->attach_state & PERF_ATTACH_CONTEXT)) return;": removed before (CPU hotplug)
	}
	ctx.events = remove(ctx.events, e)
	ctx.k.epcUse(e.pmuCtx, "list_del_event") // event->pmu_ctx->nr_events--
	ctx.listDelAccount(e)
	if e.isLeader() {
		g := ctx.groups(e)
		*g = remove(*g, e)
	}
	perfGroupDetach(c, ctx, e)
	if e.state > StateOff {
		e.setState(StateOff)
	}
}

func remove(l []*Event, e *Event) []*Event {
	for i, x := range l {
		if x == e {
			return append(l[:i:i], l[i+1:]...)
		}
	}
	return l
}

// eventFilterMatch is event_filter_match(): a per-CPU-bound event only runs on
// its CPU.
func eventFilterMatch(e *Event, c *cpu.CPU) bool {
	return (e.cpu == -1 || e.cpu == c.ID) && e.k.cgroupMatch(e, c)
}

// eventSchedOut takes one ACTIVE event off the PMU.
// kernel/events/core.c: event_sched_out()
func (k *Kernel) eventSchedOut(c *cpu.CPU, e *Event) {
	c.Access(e, "event->state", cpu.PlainRead, "event_sched_out") // core.c: event_sched_out(): if (event->state != PERF_EVENT_STATE_ACTIVE) (ctx->lock held)
	if e.state != StateActive {
		return
	}
	c.Step("event_sched_out")
	k.perfPMUDisable(c, e.pmu)
	e.pmu.Del(c, e, 0)
	c.Step("event_sched_out:del")
	c.Access(e, "event->oncpu", cpu.PlainWrite, "event_sched_out") // core.c: event_sched_out(): event->oncpu = -1
	e.oncpu = -1
	st := StateInactive
	c.Access(e, "event->pending_disable", cpu.PlainRead, "event_sched_out") // core.c: event_sched_out(): if (event->pending_disable)
	if e.pendingDisable {
		c.Access(e, "event->pending_disable", cpu.PlainWrite, "event_sched_out") // core.c: event_sched_out(): event->pending_disable = 0
		e.pendingDisable = false
		k.eventCgroupUnaudited(c, e, "perf_cgroup_event_disable")
		k.cgroupEventDisable(e, e.ctx)
		st = StateOff
	}
	e.setState(st)
	k.accessCtx(c, e.ctx, "ctx->nr_active", cpu.MarkedWrite, "event_sched_out") // core.c: event_sched_out(): ctx->nr_active--
	e.ctx.nrActive--
	k.perfPMUEnable(c, e.pmu)
}

// groupSchedOut takes a group off the PMU.
// kernel/events/core.c: group_sched_out()
func (k *Kernel) groupSchedOut(c *cpu.CPU, leader *Event) {
	k.accessEvent(c, leader, "event->state", cpu.MarkedRead, "group_sched_out") // core.c: group_sched_out(): event_sched_out(group_event) reads its state
	if leader.state != StateActive {
		return
	}
	k.eventSchedOut(c, leader)
	k.accessEvent(c, leader, "event->sibling_list", cpu.MarkedRead, "group_sched_out") // core.c: group_sched_out(): for_each_sibling_event(event, group_event)
	for _, s := range leader.siblings {
		k.eventSchedOut(c, s)
	}
}

// eventSchedIn puts one event on the PMU.
// kernel/events/core.c: event_sched_in()
func (k *Kernel) eventSchedIn(c *cpu.CPU, e *Event) error {
	c.Access(e, "event->state", cpu.PlainRead, "event_sched_in") // core.c: event_sched_in(): if (event->state <= PERF_EVENT_STATE_OFF) (ctx->lock held)
	if e.state <= StateOff {
		return nil
	}
	c.Access(e, "event->oncpu", cpu.MarkedWrite, "event_sched_in") // core.c: event_sched_in(): WRITE_ONCE(event->oncpu, smp_processor_id())
	e.oncpu = c.ID
	e.setState(StateActive)
	// "we might have missed several ticks already": pmu->add starts it.
	k.accessEvent(c, e, "event->hw.interrupts", cpu.MarkedRead, "event_sched_in") // core.c: event_sched_in(): if (unlikely(event->hw.interrupts == MAX_INTERRUPTS))
	if e.hw.interrupts == maxInterrupts {
		c.Unaudited("perf_event_unthrottle") // footprint_sched.go
		k.perfEventUnthrottle(c, e, false)
	}
	k.perfPMUDisable(c, e.pmu)
	c.Step("event_sched_in")
	err := e.pmu.Add(c, e, PERF_EF_START)
	if err != nil {
		e.setState(StateInactive)
		c.Access(e, "event->oncpu", cpu.PlainWrite, "event_sched_in") // core.c: event_sched_in(): event->oncpu = -1 (pmu->add failed)
		e.oncpu = -1
	} else {
		k.accessCtx(c, e.ctx, "ctx->nr_active", cpu.MarkedWrite, "event_sched_in") // core.c: event_sched_in(): ctx->nr_active++
		e.ctx.nrActive++
	}
	k.perfPMUEnable(c, e.pmu)
	return err
}

// groupSchedIn puts a whole group on the PMU, or none of it.
// kernel/events/core.c: group_sched_in()
func (k *Kernel) groupSchedIn(c *cpu.CPU, leader *Event) error {
	k.accessEvent(c, leader, "event->state", cpu.MarkedRead, "group_sched_in") // core.c: group_sched_in(): if (group_event->state == PERF_EVENT_STATE_OFF)
	if leader.state == StateOff {
		return nil
	}
	if err := k.eventSchedIn(c, leader); err != nil {
		return err
	}
	k.accessEvent(c, leader, "event->sibling_list", cpu.MarkedRead, "group_sched_in") // core.c: group_sched_in(): for_each_sibling_event(event, group_event)
	for i, s := range leader.siblings {
		if err := k.eventSchedIn(c, s); err != nil {
			// group_error: undo the siblings that went on, then the leader.
			for _, u := range leader.siblings[:i] {
				k.eventSchedOut(c, u)
			}
			k.eventSchedOut(c, leader)
			return err
		}
	}
	return nil
}

// ctxSchedOut schedules out the event types of ctx on c.
// kernel/events/core.c: ctx_sched_out()
func (k *Kernel) ctxSchedOut(c *cpu.CPU, ctx *Context, eventType int) {
	k.accessCtx(c, ctx, "ctx->is_active", cpu.MarkedRead, "ctx_sched_out") // core.c: ctx_sched_out(): if (!ctx->is_active)
	isActive := ctx.isActive
	if isActive == 0 {
		return
	}
	cc := &k.cpuCtx[c.ID]
	if ctx.task != nil {
		k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "ctx_sched_out") // core.c: ctx_sched_out(): WARN_ON_ONCE(cpuctx->task_ctx != ctx)
	}
	if ctx.task != nil && cc.taskCtx != ctx {
		panicCrash("ctx_sched_out: task ctx of %s is not cpu%d's task_ctx", ctx.task, c.ID)
	}
	c.Step("ctx_sched_out")
	if eventType&EVENT_CGROUP != 0 {
		c.Unaudited("perf_cgroup_switch") // footprint_sched.go
	}
	k.cgroupsUnaudited(c, eventType, "update_cgrp_time_from_cpuctx")
	if isActive&EVENT_TIME != 0 {
		k.accessCtx(c, ctx, "ctx->time", cpu.MarkedWrite, "ctx_sched_out") // core.c: ctx_sched_out() -> __ctx_time_update(): ctx->time, ctx->timestamp
		ctx.updateContextTime(true)
		k.updateCgrpTimeFromCPUCtx(k.cpuCtxOf(ctx), ctx.task == nil) // __ctx_time_update(): final for the CPU context
	}
	k.cgroupCtxTimeChange(ctx)
	c.Access(ctx, "ctx->is_active", cpu.PlainRMW, "ctx_sched_out") // core.c: ctx_sched_out(): ctx->is_active &= ~active_type (ctx->lock held)
	ctx.isActive &^= eventType &^ EVENT_CGROUP
	if ctx.isActive&EVENT_ALL == 0 {
		ctx.isActive = 0
	}
	if ctx.task != nil && ctx.isActive&EVENT_ALL == 0 {
		c.Access(cc, "cpuctx->task_ctx", cpu.PlainWrite, "ctx_sched_out") // core.c: ctx_sched_out(): cpuctx->task_ctx = NULL
		cc.taskCtx = nil
	}
	isActive ^= ctx.isActive // what changed
	if isActive&EVENT_PINNED != 0 {
		k.pmuCtxSchedOut(c, ctx, ctx.pinned, eventType)
	}
	if isActive&EVENT_FLEXIBLE != 0 {
		k.pmuCtxSchedOut(c, ctx, ctx.flexible, eventType)
		// __pmu_ctx_sched_out(): the next flexible sched-in sets it again.
		k.accessCtx(c, ctx, "pmu_ctx->rotate_necessary", cpu.MarkedWrite, "__pmu_ctx_sched_out") // core.c: __pmu_ctx_sched_out(): pmu_ctx->rotate_necessary = 0
		for i := range ctx.rotateNecessary {
			if eventType&EVENT_CGROUP == 0 || (ctx.task == nil && k.cpuCtx[ctx.cpu].cg.nrPMU[i] > 0) {
				ctx.rotateNecessary[i] = false
			}
		}
	}
}

// pmuCtxSchedOut schedules out the active groups of a list, each PMU disabled
// around its groups.
// kernel/events/core.c: __pmu_ctx_sched_out()
func (k *Kernel) pmuCtxSchedOut(c *cpu.CPU, ctx *Context, groups []*Event, eventType int) {
	k.accessCtxEvents(c, ctx, "__pmu_ctx_sched_out")
	for _, g := range groups {
		k.accessEvent(c, g, "event->state", cpu.MarkedRead, "__pmu_ctx_sched_out") // core.c: __pmu_ctx_sched_out(): group_sched_out() of each group (event_sched_out() reads its state)
		if g.state != StateActive || k.skipCgroupGroup(ctx, g, eventType) {
			continue
		}
		k.perfPMUDisable(c, g.pmu)
		k.groupSchedOut(c, g)
		k.perfPMUEnable(c, g.pmu)
	}
}

// ctxSchedIn schedules in the event types of ctx on c.
// kernel/events/core.c: ctx_sched_in()
func (k *Kernel) ctxSchedIn(c *cpu.CPU, ctx *Context, eventType int) {
	k.accessCtxEvents(c, ctx, "ctx_sched_in") // core.c: ctx_sched_in(): if (!ctx->nr_events) return
	if len(ctx.events) == 0 {
		return
	}
	k.accessCtx(c, ctx, "ctx->is_active", cpu.MarkedRead, "ctx_sched_in") // core.c: ctx_sched_in(): active_type = ctx->is_active (written below, annotated)
	isActive := ctx.isActive
	k.cgroupsUnaudited(c, eventType, "perf_cgroup_set_timestamp")
	k.cgroupCtxTimeChange(ctx)
	if isActive&EVENT_TIME == 0 {
		// start ctx time
		k.accessCtx(c, ctx, "ctx->time", cpu.MarkedWrite, "ctx_sched_in") // core.c: ctx_sched_in() -> __update_context_time(ctx, false): ctx->timestamp
		ctx.updateContextTime(false)
		k.perfCgroupSetTimestamp(k.cpuCtxOf(ctx))
	}
	c.Access(ctx, "ctx->is_active", cpu.PlainRMW, "ctx_sched_in") // core.c: ctx_sched_in(): ctx->is_active |= active_type | EVENT_TIME (ctx->lock held)
	ctx.isActive |= eventType&^EVENT_CGROUP | EVENT_TIME
	if ctx.task != nil {
		cc := &k.cpuCtx[c.ID]
		if isActive&EVENT_ALL == 0 {
			c.Access(cc, "cpuctx->task_ctx", cpu.PlainWrite, "ctx_sched_in") // core.c: ctx_sched_in(): cpuctx->task_ctx = ctx
			cc.taskCtx = ctx
		} else if k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "ctx_sched_in"); cc.taskCtx != ctx { // core.c: ctx_sched_in(): WARN_ON_ONCE(cpuctx->task_ctx != ctx)
			panicCrash("ctx_sched_in: task ctx of %s is not cpu%d's task_ctx", ctx.task, c.ID)
		}
	}
	c.Step("ctx_sched_in")
	if eventType&EVENT_CGROUP != 0 {
		c.Unaudited("perf_cgroup_switch") // footprint_sched.go
	}
	isActive ^= ctx.isActive
	if isActive&EVENT_PINNED != 0 {
		k.pmuCtxSchedIn(c, ctx, ctx.pinned, true, eventType)
	}
	if isActive&EVENT_FLEXIBLE != 0 {
		k.pmuCtxSchedIn(c, ctx, ctx.flexible, false, eventType)
	}
}

// pmuCtxSchedIn schedules in the groups of a list that match this CPU, a PMU
// that refused a group taking no more flexible groups.
// kernel/events/core.c: __pmu_ctx_sched_in() -> visit_groups_merge(merge_sched_in)
func (k *Kernel) pmuCtxSchedIn(c *cpu.CPU, ctx *Context, groups []*Event, pinned bool, eventType int) {
	var full [8]bool // can_add_hw == 0, per PMU
	k.accessCtxEvents(c, ctx, "__pmu_ctx_sched_in")
	for _, g := range groups {
		k.accessEvent(c, g, "event->state", cpu.MarkedRead, "merge_sched_in") // core.c: merge_sched_in(): if (event->state <= PERF_EVENT_STATE_OFF)
		k.eventCgroupUnaudited(c, g, "perf_cgroup_match")
		if g.state <= StateOff || !eventFilterMatch(g, c) || k.skipCgroupGroup(ctx, g, eventType) {
			continue
		}
		gp := g.groupPMU()
		idx := gp.base().index
		soft := g.allSoftware() // group_can_go_on(): PERF_EV_CAP_SOFTWARE always goes on
		if !full[idx] || soft {
			k.perfPMUDisable(c, g.pmu)
			_ = k.groupSchedIn(c, g)
			k.perfPMUEnable(c, g.pmu)
		}
		k.accessEvent(c, g, "event->state", cpu.MarkedRead, "merge_sched_in") // core.c: merge_sched_in(): if (event->state == PERF_EVENT_STATE_INACTIVE)
		if g.state == StateInactive && !soft {
			full[idx] = true
			if pinned {
				c.Unaudited("merge_sched_in:pinned-error") // the wakeup of a pinned group in error (footprint_sched.go)
				// A pinned group that cannot go on is in error.
				k.cgroupEventDisable(g, g.ctx)
				g.setState(StateError)
				if g.fasyncFile() != nil {
					g.pendingKill = pollErr
				}
				k.perfEventWakeup(g)
			} else {
				// A flexible one waits for its turn: rotation. (The model's
				// user page has no times, so no group_update_userpage().)
				k.accessCtx(c, g.ctx, "pmu_ctx->rotate_necessary", cpu.MarkedWrite, "merge_sched_in") // core.c: merge_sched_in(): event->pmu_ctx->rotate_necessary = 1
				g.ctx.rotateNecessary[idx] = true
				k.accessMux(c, "merge_sched_in")
				k.perfMuxHrtimerRestart(c, gp)
			}
		}
	}
}

// perfEventSchedIn is the priority order cpu pinned, task pinned, cpu
// flexible, task flexible.
// kernel/events/core.c: perf_event_sched_in()
func (k *Kernel) perfEventSchedIn(c *cpu.CPU, taskCtx *Context) {
	cc := &k.cpuCtx[c.ID]
	k.ctxSchedIn(c, &cc.ctx, EVENT_PINNED)
	if taskCtx != nil {
		k.ctxSchedIn(c, taskCtx, EVENT_PINNED)
	}
	k.ctxSchedIn(c, &cc.ctx, EVENT_FLEXIBLE)
	if taskCtx != nil {
		k.ctxSchedIn(c, taskCtx, EVENT_FLEXIBLE)
	}
}

// ctxResched reschedules c's contexts after an event was added or enabled, so
// that the priority order (cpu pinned, task pinned, cpu flexible, task
// flexible) holds: a CPU event reschedules the CPU groups of its type, a
// pinned task event pushes out the CPU's flexible groups. It is
// perf_event_enable_on_exec()'s (EnableOnExec): within an exec the code
// after it is annotated (footprint_exec_resched.go); from anywhere else its
// return is marked.
// kernel/events/core.c: ctx_resched()
func (k *Kernel) ctxResched(c *cpu.CPU, taskCtx *Context, eventType int, cpuEvent bool) {
	k.ctxReschedThen(c, taskCtx, eventType, cpuEvent)
	if k.M.FootprintListening() && !k.execReschedAudited(c) {
		returnUnaudited(c, "ctx_resched") // its callers' code after it (footprint_sched.go)
	}
}

// ctxReschedThen is ctx_resched() for a caller that annotates its code
// after the call up to its context's next step point
// (__perf_install_in_context(): footprint_open.go): its return is not
// marked.
// kernel/events/core.c: ctx_resched()
func (k *Kernel) ctxReschedThen(c *cpu.CPU, taskCtx *Context, eventType int, cpuEvent bool) {
	cc := &k.cpuCtx[c.ID]
	eventType &= EVENT_ALL
	if taskCtx != nil {
		k.ctxSchedOut(c, taskCtx, eventType)
	}
	if cpuEvent {
		k.ctxSchedOut(c, &cc.ctx, eventType)
	} else if eventType&EVENT_PINNED != 0 {
		k.ctxSchedOut(c, &cc.ctx, EVENT_FLEXIBLE)
	}
	k.perfEventSchedIn(c, taskCtx)
}

// getEventType is get_event_type().
func getEventType(e *Event) int {
	if e.leader.Attr.Pinned {
		return EVENT_PINNED
	}
	return EVENT_FLEXIBLE
}

// groupPMU is the PMU whose context holds the group (pmu_ctx->pmu): the
// leader's, unless a software leader took a hardware sibling, which moved the
// group to that sibling's PMU (perf_event_open(): move_group).
func (l *Event) groupPMU() PMU {
	if l.pmu.base().isSoftware {
		for _, s := range l.siblings {
			if !s.pmu.base().isSoftware {
				return s.pmu
			}
		}
	}
	return l.pmu
}

// allSoftware is group_caps & PERF_EV_CAP_SOFTWARE: every member is software.
func (l *Event) allSoftware() bool {
	if !l.pmu.base().isSoftware {
		return false
	}
	for _, s := range l.siblings {
		if !s.pmu.base().isSoftware {
			return false
		}
	}
	return true
}
