package runner

import (
	"fmt"

	"perfsim/scenarios"
	"perfsim/sched"
)

// hotplugVerbs are the CPU hotplug actions:
//
//	at TIME cpu-offline cpuN     echo 0 > /sys/devices/system/cpu/cpuN/online
//	at TIME cpu-online cpuN      echo 1 > /sys/devices/system/cpu/cpuN/online
//
// The action's timer fires on cpu0, the boot CPU (which x86 cannot take
// offline), whose handler starts a task there that makes the write: the
// hotplug runs from that task's kernel context (cpu_device_down() ->
// _cpu_down(), cpu_device_up() -> _cpu_up(), package sched), which takes
// cpu_hotplug_lock for write, has the CPU's cpuhp/N run the AP states'
// callbacks there (perf_event_exit_cpu() / perf_event_init_cpu()) and,
// going down, stop_machine run take_cpu_down(); it runs the BP states'
// callbacks itself.
func hotplugVerbs() map[string]Verb {
	spec := scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgCPU}, MinArgs: 1}
	return map[string]Verb{
		"cpu-offline": {Spec: spec, BootCPU: true,
			Help: "take the CPU offline (a write of 0 to its online file): tasks pushed off it, perf_event_exit_cpu() removes the events of its context (they stay OFF), cpuctx->online = 0; cpu0 cannot go (-ENOENT)",
			Do:   func(a *ActionCtx) { hotplugWrite(a, false) }},
		"cpu-online": {Spec: spec, BootCPU: true,
			Help: "bring the CPU back online (a write of 1 to its online file): perf_event_init_cpu() sets cpuctx->online = 1, the scheduler places tasks there again",
			Do:   func(a *ActionCtx) { hotplugWrite(a, true) }},
	}
}

// hotplugWrite starts the task that writes the CPU's online file.
func hotplugWrite(a *ActionCtx, up bool) {
	n, _ := scenarios.ParseCPUNumber(a.Arg(0))
	startHotplugWrite(a.Run, n, up)
}

// startHotplugWrite starts, on cpu0, the task that writes cpuN's online file
// (resched_curr() on cpu0: it runs at cpu0's next preemption point).
func startHotplugWrite(r *Run, n int, up bool) {
	what := "cpu-offline"
	if up {
		what = "cpu-online"
	}
	st := r.S.Spawn(fmt.Sprintf("hotplug-cpu%d", n), sched.MaskOf(0), sched.Call(func(t *sched.Task) {
		r.S.Syscall(t, "write", func(t *sched.Task) {
			var err error
			if up {
				err = r.S.CPUUp(t, n)
			} else {
				err = r.S.CPUDown(t, n)
			}
			if err != nil {
				r.note(t.CPUID(), "hotplug", fmt.Sprintf("%s cpu%d: %v", what, n, err))
			}
		})
	}))
	st.StandIn = true // its exit costs nothing (sched.Task.StandIn)
}
