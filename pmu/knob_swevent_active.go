package pmu

import "perfsim/sim"

// sweventActiveKnob picks whether perf_swevent_event() samples only an
// ACTIVE event.
var sweventActiveKnob = sim.KnobSpec{
	Name:   "swevent-active-check",
	Values: []string{"today", "pre-64a6eb7e1051"},
	Help: "perf_swevent_event() after counting a software or tracepoint record: today it takes guard(irqsave)() and returns before the overflow " +
		"when the event is not ACTIVE (serialized against perf_remove_from_context()'s IPI), so a __perf_task() tracepoint delivered to a sleeping " +
		"task's own events (perf_tp_event_target_task()) is counted and never sampled; pre-64a6eb7e1051: no such test, every delivery that " +
		"reaches the period is a sample (what e6dab5ffab59 added __perf_task for), and an event being removed on another CPU can still be sampled",
	Source:  "64a6eb7e1051 perf: Fix __perf_event_overflow() vs perf_remove_from_context() race (Peter Zijlstra, 2026); target-task delivery: e6dab5ffab59 perf/trace: Add ability to set a target task for events",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, sweventActiveKnob) }

// sweventSamplesInactive reports swevent-active-check=pre-64a6eb7e1051:
// perf_swevent_event() goes on to the overflow whatever the event's state.
func (k *Kernel) sweventSamplesInactive() bool {
	return k.KnobIs(sweventActiveKnob.Name, "pre-64a6eb7e1051")
}
