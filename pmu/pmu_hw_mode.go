package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The counters count only in the privilege levels their event allows: the
// USR and OS bits of IA32_PERFEVTSELx, from attr exclude_user and
// exclude_kernel (arch/x86/events/intel/core.c: intel_pmu_hw_config() ->
// x86_setup_perfctr(): ARCH_PERFMON_EVENTSEL_USR/OS). The model switches a
// CPU's mode where its task crosses the boundary (sched.ModeHook). Interrupt
// handlers run in the kernel too, but take no time in the model, except the
// exit-to-user work after one, which the scheduler reports as kernel.

// counts reports whether e's counter advances in the given mode.
func counts(e *Event, user bool) bool {
	if user {
		return !e.Attr.ExcludeUser
	}
	return !e.Attr.ExcludeKernel
}

// setMode folds what each running counter of c counted in the old mode, then
// restarts or stops its overflow timer for the new one.
func (p *hwPMU) setMode(c *cpu.CPU, user bool) {
	cc := &p.cpuc[c.ID]
	if cc.user == user {
		return
	}
	for _, e := range cc.events {
		if e != nil && e.hw.running {
			p.freeze(c, e)
			p.update(c, e)
		}
	}
	cc.user = user
	for _, e := range cc.events {
		if e != nil && e.hw.running {
			p.arm(c, e)
		}
	}
}

// hwModeHook tells the hardware PMU the mode of each CPU (sched.ModeHook).
type hwModeHook struct{ p *hwPMU }

// ModeSwitch implements sched.ModeHook.
func (h hwModeHook) ModeSwitch(t *sched.Task, user bool) { h.p.setMode(t.CPU(), user) }
