package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
)

// perfEventThrottle stops one ACTIVE event until the next tick; only the
// leader logs PERF_RECORD_THROTTLE.
// kernel/events/core.c: perf_event_throttle()
func (k *Kernel) perfEventThrottle(c *cpu.CPU, e *Event) {
	if e.state != StateActive {
		return
	}
	e.hw.interrupts = maxInterrupts
	e.pmu.Stop(c, e, 0)
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
	_ = rb.PerfOutputSideband(c, e.rb, e, r, k.sidebandID(c, e), e.Attr.WriteBackward)
}
