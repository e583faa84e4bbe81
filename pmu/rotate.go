package pmu

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// Event multiplexing: when a flexible group cannot get on the PMU,
// merge_sched_in() marks its pmu context rotate_necessary and starts the
// per-CPU, per-PMU mux hrtimer; each expiry rotates the flexible groups one
// step so that every group gets a share of the counters, and
// time_enabled/time_running tell user space how to scale the counts.

func init() { RegisterStepPoints("perf_rotate_context") }

// perfCPUHrtimer is PERF_CPU_HRTIMER (1000 / HZ ms, an integer division:
// 3 ms at HZ=300): the default perf_event_mux_interval_ms, about one tick.
func (k *Kernel) perfCPUHrtimer() sim.Duration {
	return sim.Duration(1000/k.S.Cfg.HZ) * sim.Millisecond
}

// muxHrtimer is the multiplexing part of struct perf_cpu_pmu_context: its
// hrtimer, hrtimer_active and the timer's expiry (hrtimer_forward_now()
// advances it on the grid of intervals it started on).
type muxHrtimer struct {
	timer   *cpu.Timer
	active  bool     // cpc->hrtimer_active
	expires sim.Time // hrtimer_get_expires(): 0 until first armed, as hrtimer_setup() leaves it
}

// muxInterval is cpc->hrtimer_interval: "check default is sane, if not set
// then force to default interval (1/tick)".
// kernel/events/core.c: __perf_mux_hrtimer_init()
func (k *Kernel) muxInterval() sim.Duration {
	if k.Opts.MuxInterval < 1 {
		return k.perfCPUHrtimer()
	}
	return k.Opts.MuxInterval
}

// cpc returns the mux state of PMU p on CPU c (this_cpc(pmu)).
func (k *Kernel) cpc(c *cpu.CPU, p PMU) *muxHrtimer {
	if k.mux == nil {
		k.mux = make([][maxPMUs]muxHrtimer, len(k.M.CPUs))
	}
	return &k.mux[c.ID][p.base().index]
}

// hrtimerForwardNow moves the expiry past now by whole intervals.
// kernel/time/hrtimer.c: hrtimer_forward()
func hrtimerForwardNow(expires, now sim.Time, interval sim.Duration) sim.Time {
	if now < expires {
		return expires
	}
	return expires + ((now-expires)/interval+1)*interval
}

// perfMuxHrtimerRestart starts the mux hrtimer of p on c unless it runs.
// kernel/events/core.c: perf_mux_hrtimer_restart()
func (k *Kernel) perfMuxHrtimerRestart(c *cpu.CPU, p PMU) {
	m := k.cpc(c, p)
	if m.active {
		return
	}
	m.active = true
	if m.timer == nil {
		// HRTIMER_MODE_ABS_PINNED_HARD: hard irq context on this CPU, not an NMI.
		m.timer = c.NewHRTimer(cpu.Interrupt{Name: "perf_mux_hrtimer_handler",
			Fn: func(c *cpu.CPU) { k.perfMuxHrtimerHandler(c, p) }})
	}
	m.expires = hrtimerForwardNow(m.expires, k.now(), k.muxInterval())
	m.timer.Arm(m.expires)
}

// perfMuxHrtimerHandler rotates, and keeps the timer going for as long as a
// rotation was needed (so it stops one interval after the last one).
// kernel/events/core.c: perf_mux_hrtimer_handler()
func (k *Kernel) perfMuxHrtimerHandler(c *cpu.CPU, p PMU) {
	rotations := k.perfRotateContext(c, p)
	m := k.cpc(c, p)
	if rotations {
		m.expires = hrtimerForwardNow(m.expires, k.now(), k.muxInterval())
		m.timer.Arm(m.expires)
	} else {
		m.active = false
	}
}

// taskEpc is cpc->task_epc: the scheduled-in task context when it has
// events of p (__link_epc() links it at sched-in; it is unlinked when the
// context goes out or its last event of p is removed).
func (k *Kernel) taskEpc(c *cpu.CPU, p PMU) *Context {
	ctx := k.cpuCtx[c.ID].taskCtx
	if ctx == nil || !ctxHasPMU(ctx, p) {
		return nil
	}
	return ctx
}

// perfRotateContext rotates the flexible groups of p in the CPU context
// and/or the task context that need it. With both, the task's flexible
// groups come off first and go back on last, keeping ctx_resched()'s order
// (CPU flexible before task flexible); a CPU rotation alone also reschedules
// the task's groups for that reason.
// kernel/events/core.c: perf_rotate_context()
func (k *Kernel) perfRotateContext(c *cpu.CPU, p PMU) bool {
	idx := p.base().index
	cpuCtx := &k.cpuCtx[c.ID].ctx
	taskCtx := k.taskEpc(c, p)
	cpuRotate := cpuCtx.rotateNecessary[idx]
	taskRotate := taskCtx != nil && taskCtx.rotateNecessary[idx]
	if !cpuRotate && !taskRotate {
		return false
	}
	c.Step("perf_rotate_context")
	k.perfPMUDisable(c, p)
	var cpuEvent, taskEvent *Event
	if taskRotate {
		taskEvent = ctxEventToRotate(c, taskCtx, p)
	}
	if cpuRotate {
		cpuEvent = ctxEventToRotate(c, cpuCtx, p)
	}
	taskResched := taskEvent != nil || (taskCtx != nil && cpuEvent != nil)
	if taskResched {
		taskCtx.updateTimeIfActive()
		k.pmuCtxSchedOutFlexible(c, taskCtx, p)
	}
	if cpuEvent != nil {
		cpuCtx.updateTimeIfActive()
		k.pmuCtxSchedOutFlexible(c, cpuCtx, p)
		cpuCtx.rotateCtx(cpuEvent)
		k.pmuCtxSchedInFlexible(c, cpuCtx, p)
	}
	if taskEvent != nil {
		taskCtx.rotateCtx(taskEvent)
	}
	if taskResched {
		k.pmuCtxSchedInFlexible(c, taskCtx, p)
	}
	k.perfPMUEnable(c, p)
	return true
}

// updateTimeIfActive is update_context_time() for a context whose time runs
// (the model's ctx.time would otherwise count time the context was out).
func (ctx *Context) updateTimeIfActive() {
	if ctx.isActive&EVENT_TIME != 0 {
		ctx.updateContextTime(true)
	}
}

// ctxEventToRotate picks the group to move to the tail: the first ACTIVE
// flexible group of p (the head of pmu_ctx->flexible_active, which lists
// them in group_index order, as ctx.flexible does), else the first flexible
// group of p that could run here (a task context's any-CPU groups before its
// groups bound to this CPU), whatever its state. rotate_necessary is cleared
// unconditionally: the sched-in that follows sets it again if still needed.
// kernel/events/core.c: ctx_event_to_rotate()
func ctxEventToRotate(c *cpu.CPU, ctx *Context, p PMU) *Event {
	defer func() { ctx.rotateNecessary[p.base().index] = false }()
	for _, g := range ctx.flexible {
		if g.groupPMU() == p && g.state == StateActive {
			return g
		}
	}
	first := func(cpuID int) *Event {
		for _, g := range ctx.flexible {
			if g.groupPMU() == p && g.cpu == cpuID {
				return g
			}
		}
		return nil
	}
	if ctx.task == nil {
		return first(c.ID)
	}
	if e := first(-1); e != nil {
		return e
	}
	return first(c.ID)
}

// rotateCtx moves the group to the tail of the flexible groups: delete and
// re-insert gives it the next group_index. (ctx->rotate_disable, set by the
// inheritance code, is not modelled: no fork.)
// kernel/events/core.c: rotate_ctx()
func (ctx *Context) rotateCtx(e *Event) {
	ctx.flexible = append(remove(ctx.flexible, e), e)
}

// pmuCtxSchedOutFlexible schedules out the ACTIVE flexible groups of p in
// ctx and clears rotate_necessary ("it will be reset by
// ctx_flexible_sched_in() when needed").
// kernel/events/core.c: __pmu_ctx_sched_out(pmu_ctx, EVENT_FLEXIBLE)
func (k *Kernel) pmuCtxSchedOutFlexible(c *cpu.CPU, ctx *Context, p PMU) {
	k.perfPMUDisable(c, p)
	for _, g := range ctx.flexible {
		if g.groupPMU() == p && g.state == StateActive {
			k.groupSchedOut(c, g)
			returnUnaudited(c, "perf_rotate_context")
		}
	}
	ctx.rotateNecessary[p.base().index] = false
	k.perfPMUEnable(c, p)
}

// pmuCtxSchedInFlexible schedules in the flexible groups of p in ctx.
// kernel/events/core.c: __pmu_ctx_sched_in(pmu_ctx, EVENT_FLEXIBLE)
func (k *Kernel) pmuCtxSchedInFlexible(c *cpu.CPU, ctx *Context, p PMU) {
	var gs []*Event
	for _, g := range ctx.flexible {
		if g.groupPMU() == p {
			gs = append(gs, g)
		}
	}
	k.pmuCtxSchedIn(c, ctx, gs, false, 0)
	returnUnaudited(c, "perf_rotate_context")
}

// MuxHrtimerActive reports cpc->hrtimer_active of the named PMU on CPU i:
// whether its mux hrtimer is running.
func (k *Kernel) MuxHrtimerActive(name string, i int) bool {
	for _, p := range k.pmus {
		if p.Name() == name && k.mux != nil {
			return k.mux[i][p.base().index].active
		}
	}
	return false
}
