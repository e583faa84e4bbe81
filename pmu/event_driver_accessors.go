package pmu

// Accessors of struct perf_event fields that AUX drivers outside this package
// (pmu/coresight) read.

// CtxIsActive is event->ctx->is_active (0 when the event has no context).
// ctx_sched_out() clears it before the context's events are scheduled out, so
// a driver's pmu::stop sees 0 on a sched-out and non-zero on an ioctl disable
// of a running event. include/linux/perf_event.h: struct perf_event_context
func (e *Event) CtxIsActive() int {
	if e.ctx == nil {
		return 0
	}
	return e.ctx.isActive
}

// AttrConfig is attr.config, the PMU-specific configuration a driver reads.
func (e *Event) AttrConfig() uint64 { return e.Attr.Config }

// OwnerPID is task_pid_nr(event->owner): the pid of the task that opened the
// event (the perf tool), -1 when it has none.
// kernel/events/core.c: perf_event_alloc() / perf_install_in_context() owner
func (e *Event) OwnerPID() int {
	if e.ownerTask == nil {
		return -1
	}
	return e.ownerTask.PID
}
