package pmu

import (
	"perfsim/cpu"
	"perfsim/uapi"
)

// The footprint of perf_output_read() (sample_read.go: perfOutputRead), the
// PERF_SAMPLE_READ part of a sample, annotated where perf_prepare_sample()
// begins (accessPrepareSample) in the overflow's fragment, which reaches
// no step point before it:
//
//   - calc_timer_values() with TOTAL_TIME_ENABLED or _RUNNING: the context's
//     is_active and time (the model folds the time in: a write of ctx->time
//     and of the event's times, where the kernel only computes them), the
//     leader's state (__perf_effective_state()); a cgroup event's time is
//     marked;
//   - perf_output_read_one(): the event's count (and child_count, but for
//     an inherit + PERF_SAMPLE_READ event, whose samples count the task's
//     own), its lost_samples, the exited children's times with the times;
//   - perf_output_read_group(): event->group_leader, the leader's
//     nr_siblings and sibling_list (one field, as perf_group_attach() and
//     perf_group_detach() write them: footprint_group.go), and for the
//     leader and each sibling its state and CPU, its pmu->read() when it is
//     ACTIVE here and not the sampled event (accessPMURead: the hardware
//     counters' and the clocks' annotated, every other driver marked), its
//     count and lost_samples;
//   - the cached read_size the record was sized with (event->header_size:
//     perf_prepare_sample()'s caller's perf_sample_data_size()), which the
//     group's attach and detach rewrite.
//
// The ids and the read format do not change after the open.

// accessOutputRead annotates perf_output_read() of a sample of e on c.
func (k *Kernel) accessOutputRead(c *cpu.CPU, e *Event) {
	rf := e.Attr.ReadFormat
	c.AccessMarkedOnly(e, "event->read_size", cpu.PlainRead, "perf_prepare_sample") // kernel/events/core.c: perf_prepare_sample(): data->dyn_size / event->header_size (perf_event__header_size(): read_size)
	if rf&(uapi.PERF_FORMAT_TOTAL_TIME_ENABLED|uapi.PERF_FORMAT_TOTAL_TIME_RUNNING) != 0 && e.ctx != nil {
		c.AccessMarkedOnly(e.ctx, "ctx->is_active", cpu.MarkedRead, "calc_timer_values") // kernel/events/core.c: calc_timer_values() -> perf_event_time_now(): __load_acquire(&ctx->is_active) & EVENT_TIME
		c.AccessMarkedOnly(e.ctx, "ctx->time", cpu.MarkedWrite, "calc_timer_values")     // the model's fold of the context's time (the kernel: ctx->timeoffset + now, read)
		c.AccessMarkedOnly(e, "event->tstamp", cpu.MarkedWrite, "calc_timer_values")     // the model's fold of the event's times (the kernel: __perf_update_times(event, ctx_time, ...), read)
		if l := e.leader; l != nil && l != e {
			c.AccessMarkedOnly(l, "event->state", cpu.MarkedRead, "calc_timer_values") // kernel/events/core.c: __perf_update_times() -> __perf_effective_state(): leader->state
		}
		if e.cgrp != nil {
			c.Unaudited("perf_cgroup_event_time") // a cgroup event's time: its cgroup's
		}
	}
	self := hasInheritAndSampleRead(&e.Attr)
	if rf&uapi.PERF_FORMAT_GROUP == 0 {
		accessOutputReadValue(c, e, rf, self) // kernel/events/core.c: perf_output_read_one()
		if rf&(uapi.PERF_FORMAT_TOTAL_TIME_ENABLED|uapi.PERF_FORMAT_TOTAL_TIME_RUNNING) != 0 {
			c.AccessMarkedOnly(e, "event->child_total_time", cpu.MarkedRead, "perf_output_read_one") // kernel/events/core.c: perf_output_read_one(): enabled + atomic64_read(&event->child_total_time_enabled), running + ..._running
		}
		return
	}
	c.AccessMarkedOnly(e, "event->group_leader", cpu.PlainRead, "perf_output_read_group") // kernel/events/core.c: perf_output_read_group(): struct perf_event *leader = event->group_leader
	l := e.leader
	c.AccessMarkedOnly(l, "event->sibling_list", cpu.PlainRead, "perf_output_read_group") // kernel/events/core.c: perf_output_read_group(): values[n++] = 1 + leader->nr_siblings; for_each_sibling_event(sub, leader)
	for i := -1; i < len(l.siblings); i++ {
		m := l
		if i >= 0 {
			m = l.siblings[i]
		}
		c.AccessMarkedOnly(m, "event->state", cpu.MarkedRead, "perf_output_read_group") // kernel/events/core.c: perf_output_read_group(): (sub->state == PERF_EVENT_STATE_ACTIVE)
		c.AccessMarkedOnly(m, "event->oncpu", cpu.MarkedRead, "perf_output_read_group") // the model's check that the member counts on this CPU
		if m != e && m.state == StateActive && m.oncpu == c.ID {
			k.accessPMURead(c, m) // kernel/events/core.c: perf_output_read_group(): sub->pmu->read(sub)
		}
		accessOutputReadValue(c, m, rf, self)
	}
}

// accessOutputReadValue annotates one event's values in a sample's read
// part: perf_event_count() (child_count unless the sampled event is
// inherit + PERF_SAMPLE_READ: self) and, with PERF_FORMAT_LOST, lost_samples.
func accessOutputReadValue(c *cpu.CPU, m *Event, rf uint64, self bool) {
	c.AccessMarkedOnly(m, "event->count", cpu.MarkedRead, "perf_output_read") // kernel/events/core.c: perf_event_count(): local64_read(&event->count)
	if !self {
		c.AccessMarkedOnly(m, "event->child_count", cpu.MarkedRead, "perf_output_read") // kernel/events/core.c: perf_event_count(): + atomic64_read(&event->child_count)
	}
	if rf&uapi.PERF_FORMAT_LOST != 0 {
		c.AccessMarkedOnly(m, "event->lost_samples", cpu.MarkedRead, "perf_output_read") // kernel/events/core.c: atomic64_read(&event->lost_samples)
	}
}
