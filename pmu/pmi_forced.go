package pmu

import "perfsim/cpu"

// PerfEventNMIHandler is perf's NMI handler, perf_event_nmi_handler(), for an
// NMI a scenario raises on c: every registered PMU that implements
// NMIHandler is called, then the x86 core PMU's x86_pmu_handle_irq(), which
// handles every ACTIVE sampling counter of c that has overflowed (the PMU's
// status register: here, a counter whose period_left reached 0) and re-arms
// the others.
//
// forced is a scenario's "nmi cpuN at LABEL": the NMI stands for the PMI of a
// counter overflowing right there, so every sampling counter in c's
// active_mask is treated as having overflowed now (its period_left is set
// to 0 before the handler looks at it; the sample's period is the full
// sample_period and the counter is reloaded with a full one). A counter not
// in active_mask (stopped by pmu->del or throttled) is ignored, as the real
// handler ignores it, so a forced NMI never samples an event that is not
// ACTIVE on c. A timed NMI (forced false) handles only counters that really
// overflowed, so it is usually a no-op for perf.
// arch/x86/events/core.c: perf_event_nmi_handler() -> x86_pmu_handle_irq()
func (k *Kernel) PerfEventNMIHandler(c *cpu.CPU, forced bool) {
	k.timedPMI(c, func(c *cpu.CPU) { k.perfEventNMIHandler(c, forced) })
}

func (k *Kernel) perfEventNMIHandler(c *cpu.CPU, forced bool) {
	for _, p := range k.pmus {
		if h, ok := p.(NMIHandler); ok {
			h.HandleNMI(c, forced)
		}
	}
	p := k.hwPMU
	if forced {
		cc := &p.cpuc[c.ID]
		for idx, e := range cc.events {
			if e == nil || !cc.active[idx] || !e.isSampling() {
				continue
			}
			p.update(c, e)
			if e.hw.periodLeft > 0 {
				e.hw.periodLeft = 0
			}
		}
	}
	p.handleIRQ(c)
}
