package pmu

import (
	"cmp"
	"slices"

	"perfsim/cpu"
)

// armUnthrottle arms the tick that unthrottles c's events: the model has no
// periodic tick, so a throttle (perf_throttled_count, tick_dep_set_cpu())
// arms the next one.
func (k *Kernel) armUnthrottle(c *cpu.CPU) {
	if k.unthrottle == nil {
		k.unthrottle = make([]*cpu.Timer, len(k.M.CPUs))
	}
	tm := k.unthrottle[c.ID]
	if tm == nil {
		tm = c.NewHRTimer(cpu.Interrupt{Name: "perf_event_task_tick", Fn: k.perfEventTaskTick})
		k.unthrottle[c.ID] = tm
	}
	tick := k.tickNsec()
	next := (k.now()/tick + 1) * tick
	tm.Arm(next)
}

// perfEventTaskTick unthrottles the CPU context's groups, then current's.
// The tick only fires after a throttle, so "throttled" is always true here.
// kernel/events/core.c: perf_event_task_tick()
func (k *Kernel) perfEventTaskTick(c *cpu.CPU) {
	cc := &k.cpuCtx[c.ID]
	k.perfAdjustFreqUnthrContext(c, &cc.ctx)
	if cc.taskCtx != nil {
		k.perfAdjustFreqUnthrContext(c, cc.taskCtx)
	}
}

// perfAdjustFreqUnthrContext walks ctx per PMU context: skip a PMU with no
// active group or PERF_PMU_CAP_NO_INTERRUPT, then with the PMU disabled walk
// its pinned, then flexible, active groups.
// kernel/events/core.c: perf_adjust_freq_unthr_context()
func (k *Kernel) perfAdjustFreqUnthrContext(c *cpu.CPU, ctx *Context) {
	for _, p := range k.ctxActivePMUs(ctx) {
		if p.Capabilities()&PERF_PMU_CAP_NO_INTERRUPT != 0 {
			continue
		}
		k.perfPMUDisable(c, p)
		k.perfAdjustFreqUnthrEvents(c, ctx.pinned, p)
		k.perfAdjustFreqUnthrEvents(c, ctx.flexible, p)
		k.perfPMUEnable(c, p)
	}
}

// perfAdjustFreqUnthrEvents unthrottles the throttled ACTIVE groups of p in
// one list (the model keeps no active_list: an ACTIVE leader is on it). The
// model has no per-tick frequency pass (nr_freq), so a freq event is
// restarted here too rather than left to that pass (skip_start_event false).
// kernel/events/core.c: perf_adjust_freq_unthr_events()
func (k *Kernel) perfAdjustFreqUnthrEvents(c *cpu.CPU, groups []*Event, p PMU) {
	for _, e := range groups {
		if e.pmu != p || e.state != StateActive || !eventFilterMatch(e, c) {
			continue
		}
		if e.hw.interrupts == maxInterrupts {
			k.perfEventUnthrottleGroup(c, e, false)
		}
	}
}

// ctxActivePMUs lists the PMUs of ctx's groups that have an ACTIVE group
// (perf_pmu_ctx_is_active()), by pmu->type as ctx->pmu_ctx_list is sorted.
func (k *Kernel) ctxActivePMUs(ctx *Context) []PMU {
	var ps []PMU
	for _, l := range [][]*Event{ctx.pinned, ctx.flexible} {
		for _, g := range l {
			if g.state == StateActive && !slices.Contains(ps, g.pmu) {
				ps = append(ps, g.pmu)
			}
		}
	}
	slices.SortStableFunc(ps, func(a, b PMU) int { return cmp.Compare(a.Type(), b.Type()) })
	return ps
}
