package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The counters count only in the privilege levels their event allows: the
// USR and OS bits of IA32_PERFEVTSELx, from attr exclude_user and
// exclude_kernel (arch/x86/events/intel/core.c: intel_pmu_hw_config() ->
// x86_setup_perfctr(): ARCH_PERFMON_EVENTSEL_USR/OS). The model switches a
// CPU's mode where the task crosses the boundary: syscall entry and the
// context switch go to the kernel, the return to user mode goes back.

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

// hwModeHooks are the scheduler's hooks that tell the hardware PMU the mode.
type hwModeHooks struct{ p *hwPMU }

// SysEnter implements sched.SyscallHook.
func (h hwModeHooks) SysEnter(t *sched.Task, _ string) { h.p.setMode(t.CPU(), false) }

// SysExit implements sched.SyscallHook.
func (h hwModeHooks) SysExit(*sched.Task, string) {}

// ExitToUser implements sched.UserReturnHook.
func (h hwModeHooks) ExitToUser(t *sched.Task) { h.p.setMode(t.CPU(), true) }

// SchedOut implements sched.SwitchHook: schedule() runs in the kernel, also
// when an interrupt preempted user mode.
func (h hwModeHooks) SchedOut(c *cpu.CPU, _, _ *sched.Task) { h.p.setMode(c, false) }

// SchedIn implements sched.SwitchHook.
func (h hwModeHooks) SchedIn(*cpu.CPU, *sched.Task, *sched.Task) {}
