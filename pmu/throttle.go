package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sim"
)

// auxThrottleKnob picks the pmu->stop() flags perf_event_throttle() uses for
// an AUX event (intel_pt, cs_etm: has_aux()).
var auxThrottleKnob = sim.KnobSpec{
	Name:   "aux-throttle",
	Values: []string{"today", "proposed"},
	Help: "perf_event_throttle() since 9734e25fbf5a throttles the whole group with `event->pmu->stop(event, 0)`, the AUX leader included: pt_event_stop() " +
		"ends its AUX transaction only under PERF_EF_UPDATE, so the transaction stays open (the bytes traced before the stop are never in a PERF_RECORD_AUX, " +
		"the sched-out's pt_event_stop(PERF_EF_UPDATE) returns early on PERF_HES_STOPPED, pt_event_add() fails -EBUSY, the AUX pages outlive the munmap); " +
		"proposed: `event->pmu->stop(event, has_aux(event) ? PERF_EF_UPDATE : 0)`, which ends the transaction; the unthrottle's pmu->start(event, 0) " +
		"begins a new one, the pair __perf_event_stop() uses",
	Source: "proposed: docs/upstream/pt-throttle-group.md, against 9734e25fbf5a perf: Fix the throttle logic for a group (v6.16); another approach, " +
		"[PATCH] perf/core: Use AUX pause/resume for throttling (Leo Yan, 2026-05-14), is posted, not merged",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, auxThrottleKnob) }

// perfEventThrottle stops one ACTIVE event until the next tick; only the
// leader logs PERF_RECORD_THROTTLE. An AUX event is stopped with flags 0
// today, leaving its AUX transaction open; knob aux-throttle=proposed stops
// it with PERF_EF_UPDATE. The stop of an AUX event is logged in its buffer's
// invariant log (rb.TraceAuxThrottleStop), so the AUX invariants can name an
// open transaction's cause.
// kernel/events/core.c: perf_event_throttle()
func (k *Kernel) perfEventThrottle(c *cpu.CPU, e *Event) {
	if e.state != StateActive {
		return
	}
	e.hw.interrupts = maxInterrupts
	flags := 0
	if e.pmu.HasAux() && k.KnobIs(auxThrottleKnob.Name, "proposed") {
		flags = PERF_EF_UPDATE // has_aux(event)
	}
	e.pmu.Stop(c, e, flags)
	if e.pmu.HasAux() {
		e.rb.Trace(rb.TraceEvent{Kind: rb.TraceAuxThrottleStop, Pos: e.id, Value: uint64(flags)})
	}
	k.stats.throttles++
	if e.isLeader() {
		k.perfLogThrottle(c, e, false)
	}
}

// perfEventUnthrottle clears the throttle of an ACTIVE event, restarting it
// when start; only the leader logs PERF_RECORD_UNTHROTTLE.
// kernel/events/core.c: perf_event_unthrottle()
func (k *Kernel) perfEventUnthrottle(c *cpu.CPU, e *Event, start bool) {
	if e.state != StateActive {
		return
	}
	e.hw.interrupts = 0
	k.stats.unthrottles++
	if start {
		e.pmu.Start(c, e, 0)
	}
	if e.isLeader() {
		k.perfLogThrottle(c, e, true)
	}
}

// perfEventThrottleGroup throttles the leader, then each sibling.
// kernel/events/core.c: perf_event_throttle_group()
func (k *Kernel) perfEventThrottleGroup(c *cpu.CPU, e *Event) {
	l := e.leader
	k.perfEventThrottle(c, l)
	for _, s := range l.siblings {
		k.perfEventThrottle(c, s)
	}
}

// perfEventUnthrottleGroup unthrottles e's group; with skipStartEvent, e
// itself is not restarted (the freq pass restarts it).
// kernel/events/core.c: perf_event_unthrottle_group()
func (k *Kernel) perfEventUnthrottleGroup(c *cpu.CPU, e *Event, skipStartEvent bool) {
	l := e.leader
	k.perfEventUnthrottle(c, l, !skipStartEvent || l != e)
	for _, s := range l.siblings {
		k.perfEventUnthrottle(c, s, !skipStartEvent || s != e)
	}
}

// perfLogThrottle writes PERF_RECORD_THROTTLE (PERF_RECORD_UNTHROTTLE when
// enable) {header, time, id, stream_id} + sample_id into the event's buffer,
// forward or backward as the event writes (perf_output_begin()).
// kernel/events/core.c: perf_log_throttle()
func (k *Kernel) perfLogThrottle(c *cpu.CPU, e *Event, enable bool) {
	r := &rb.Throttle{Unthrottle: enable,
		Time:     uint64(k.now()), // perf_event_clock(event): the model has one clock
		ID:       e.leaderID(),    // primary_event_id(event)
		StreamID: e.id}            // event->id
	if k.M.FootprintListening() {
		k.accessSBOutput(c, e) // footprint_sideband.go
	}
	_ = rb.PerfOutputSidebandAudited(c, e.rb, e, r, k.sidebandID(c, e), e.Attr.WriteBackward)
	// Back into perf_event_throttle()/perf_event_unthrottle() and their
	// callers (the overflow's throttle, the tick's unthrottle): nobody
	// annotated them.
	k.sidebandReturn(c, e.rb != nil, false, "perf_log_throttle's caller")
}
