package pmu

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// pebsDisableOrderKnob is the order of the two steps of
// intel_pmu_disable_event() for a precise (PEBS) event: today the counter is
// disabled first and the PEBS bit cleared after; before 6f55967ad9d9 the PEBS
// bit went first, leaving a window in which the counter still counts, without
// PEBS, while cpuc->active_mask still has it (3966c3feca3f made x86_pmu_stop()
// clear active_mask only after x86_pmu.disable()).
var pebsDisableOrderKnob = sim.KnobSpec{
	Name:    "pebs-disable-order",
	Values:  []string{"today", "pre-6f55967ad9d9"},
	Implies: map[string][]string{"pre-6f55967ad9d9": closeFputPreV66}, // v5.2
	Help: "intel_pmu_disable_event() of a precise_ip event (x86_pmu_stop() <- x86_pmu_del() <- event_sched_out()): today " +
		"`x86_pmu_disable_event(event); if (unlikely(event->attr.precise_ip)) intel_pmu_pebs_disable(event);`; pre-6f55967ad9d9: " +
		"`if (unlikely(event->attr.precise_ip)) intel_pmu_pebs_disable(event); ... x86_pmu_disable_event(event);`: a counter overflow " +
		"PMI in between finds the bit still in active_mask, takes the non-PEBS path (handle_pmi_common -> perf_event_overflow) for an " +
		"event with __PERF_SAMPLE_CALLCHAIN_EARLY, and perf_prepare_sample() dereferences the NULL data->callchain",
	Source: "6f55967ad9d9 perf/x86/intel: Fix race in intel_pmu_disable_event() (Jiri Olsa, 2019-05-04; Fixes: 3966c3feca3f " +
		"x86/perf/amd: Remove need to check \"running\" bit in NMI handler)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, pebsDisableOrderKnob)
	RegisterStepPoints("intel_pmu_disable_event")
}

// disableEvent is x86_pmu.disable for the model's Intel core PMU: stop the
// counter (x86_pmu_disable_event) and, for a precise event, clear its
// MSR_IA32_PEBS_ENABLE bit (intel_pmu_pebs_disable), in the order the
// pebs-disable-order knob says. A non-precise event has no step in between.
// arch/x86/events/intel/core.c: intel_pmu_disable_event()
func (p *hwPMU) disableEvent(c *cpu.CPU, e *Event) {
	cc := &p.cpuc[c.ID]
	idx := e.hw.idx
	if e.Attr.PreciseIP == 0 {
		p.counterOff(c, e)
		return
	}
	if p.k.KnobIs(pebsDisableOrderKnob.Name, "pre-6f55967ad9d9") {
		cc.pebs[idx] = false // intel_pmu_pebs_disable(event)
		c.Step("intel_pmu_disable_event")
		p.counterOff(c, e) // x86_pmu_disable_event(event)
		return
	}
	p.counterOff(c, e) // x86_pmu_disable_event(event)
	// "Needs to be called after x86_pmu_disable_event, so we don't trigger
	// the event without PEBS bit set."
	c.Step("intel_pmu_disable_event")
	cc.pebs[idx] = false // intel_pmu_pebs_disable(event)
}

// counterOff is x86_pmu_disable_event(): clear the enable bit, so the counter
// stops (the model folds the elapsed ticks and cancels the overflow timer).
func (p *hwPMU) counterOff(c *cpu.CPU, e *Event) {
	p.freeze(c, e)
	e.hw.running = false
	if e.hw.timer != nil {
		e.hw.timer.Cancel()
	}
}
