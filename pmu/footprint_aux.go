package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
)

// The footprint of perf_event_aux_pause() (kernel/events/core.c), called
// by __perf_event_overflow() for an aux_pause event (before its sample)
// and an aux_resume one (at out:, after it), from the PMI, the cpu-clock
// hrtimer and perf_tp_event()/do_perf_sw_event()'s software overflows:
//
//   - in its caller's fragment, up to the irqs-off step: ring_buffer_get()
//     (event->rb, rb->refcount; accessAuxPauseGet); a call that finds no
//     buffer returns into its caller at once;
//   - "perf_event_aux_pause:irqs-off": READ_ONCE(rb->aux_in_pause_resume);
//     found set, the request is dropped (the model's counts of it are
//     observables), irqs restored, ring_buffer_put() (accessRBPut)
//     and back into __perf_event_overflow() and its caller, whose code is
//     annotated (footprint_overflow.go: the same return as the fragment at
//     perf_output_put_handle:nest-zero, and before the sample the same
//     path as enter:PMI's); found clear, WRITE_ONCE(rb->aux_in_pause_resume,
//     1) and the guard-set step. With aux-pause-guard=off (no guard) the
//     callback runs here and returns into the caller with no step: marked;
//   - "perf_event_aux_pause:guard-set": __perf_event_aux_pause():
//     event->hw.aux_paused read and, if it changes, written, then
//     pmu->stop(PERF_EF_PAUSE) or pmu->start(PERF_EF_RESUME): a PMU that
//     annotates those (AuxPauseAnnotated: intel_pt) ends the fragment at the
//     callback-done step or at its own step points (pmu/pt/footprint.go);
//     any other PMU's callback is marked;
//   - "perf_event_aux_pause:callback-done": WRITE_ONCE(rb->aux_in_pause_resume,
//     0), irqs restored, ring_buffer_put(), then the caller's return as
//     for irqs-off's dropped request.
//
// The write audit (explore's TestWriteAuditAux) checks their writes;
// TestAuxPauseFootprints pins what they annotate.
func init() {
	cpu.DeclareComplete(
		"perf_event_aux_pause:irqs-off",
		"perf_event_aux_pause:guard-set",
		"perf_event_aux_pause:callback-done",
	)
	// perf_aux_output_end() from its nest-zero step: rb_free_aux(),
	// ring_buffer_put(), handle->rb cleared (rb/footprint_aux.go), then
	// the driver's code: marked unless the driver annotates it
	// (rb.AuxHandle.CallerAudited: intel_pt's PMI goes straight to its
	// output-end step, or clears resume_allowed and returns; its
	// pt_event_start() and pt_event_stop() mark their callers).
	cpu.DeclareComplete("perf_aux_output_end:nest-zero")
	// perf_aux_output_begin() from its aux_refcount step to its return
	// (rb/footprint_aux.go), then the driver's code: marked unless the
	// driver annotates it (intel_pt: pt_event_start() to pt_config()'s
	// resume-allowed step or the ITRACE_START record; the PMI to
	// pt_config_start() and the handler's return: pmu/pt/footprint.go).
	cpu.DeclareComplete("perf_aux_output_begin:aux_refcount")
}

// AuxPauseAnnotated is a PMU whose pmu->stop(PERF_EF_PAUSE) and
// pmu->start(PERF_EF_RESUME) annotate every access they make (or mark the
// paths they do not) up to their first step point or their return: the
// fragment at perf_event_aux_pause:guard-set vouches for them. Any other
// PMU's pause/resume callback is marked unaudited.
type AuxPauseAnnotated interface {
	AuxPauseAnnotated() bool
}

// accessAuxPauseGet annotates perf_event_aux_pause()'s ring_buffer_get():
// rcu_dereference(event->rb) and refcount_inc_not_zero(&rb->refcount).
func accessAuxPauseGet(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "ring_buffer_get") // core.c: ring_buffer_get(): rb = rcu_dereference(event->rb)
	if e.rb != nil {
		c.AccessMarkedOnly(e.rb, "rb->refcount", cpu.MarkedWrite, "ring_buffer_get") // core.c: ring_buffer_get(): if (!refcount_inc_not_zero(&rb->refcount))
	}
}

// accessAuxInPauseResume annotates an access to rb->aux_in_pause_resume
// (READ_ONCE/WRITE_ONCE in perf_event_aux_pause()).
func accessAuxInPauseResume(c *cpu.CPU, buf *rb.Buffer, op cpu.AccessOp) {
	c.AccessMarkedOnly(buf, "rb->aux_in_pause_resume", op, "perf_event_aux_pause") // core.c: perf_event_aux_pause(): READ_ONCE(rb->aux_in_pause_resume) / WRITE_ONCE(rb->aux_in_pause_resume, 0|1)
}

// accessAuxPaused annotates __perf_event_aux_pause()'s plain access to
// event->hw.aux_paused (pt_config_start() reads it READ_ONCE).
func accessAuxPaused(c *cpu.CPU, e *Event, op cpu.AccessOp) {
	c.AccessMarkedOnly(e, "event->hw.aux_paused", op, "__perf_event_aux_pause") // core.c: __perf_event_aux_pause(): if (!event->hw.aux_paused) { event->hw.aux_paused = 1; ...
}

// auxPauseCallbackUnaudited marks a pause/resume callback of a PMU that
// does not annotate it (AuxPauseAnnotated).
func auxPauseCallbackUnaudited(c *cpu.CPU, e *Event, flag int) {
	if a, ok := e.pmu.(AuxPauseAnnotated); ok && a.AuxPauseAnnotated() {
		return
	}
	if flag == PERF_EF_PAUSE {
		c.Unaudited("pmu->stop(PERF_EF_PAUSE)") // core.c: __perf_event_aux_pause(): event->pmu->stop(event, PERF_EF_PAUSE)
	} else {
		c.Unaudited("pmu->start(PERF_EF_RESUME)") // core.c: __perf_event_aux_pause(): event->pmu->start(event, PERF_EF_RESUME)
	}
}

// AddrFiltersSyncAnnotated is a PMU whose pmu->addr_filters_sync()
// annotates its own writes (AccessAddrFiltersSyncDriver, called on the
// CPU that runs it before it runs): perf_event_addr_filters_sync() does
// not mark it, and annotates the core's side (the filter list and the
// event's ranges it reads, hw.addr_filters_gen). Any other PMU's callback
// is marked.
type AddrFiltersSyncAnnotated interface {
	AccessAddrFiltersSyncDriver(c *cpu.CPU, e *Event)
}

// AccessAddrFiltersSync annotates perf_event_addr_filters_sync() for e on
// c, as a driver's pmu->start calls it (intel_pt's pt_config_filters()):
// the filters head's lock (the parent's for an inherited event) and
// event->addr_filters_gen against hw.addr_filters_gen; a generation that
// moved makes it call pmu->addr_filters_sync(), which reads the filter
// list (ifh->list, under ifh->lock) and the event's ranges
// (event->addr_filter_ranges) and writes its hardware copy (the driver's:
// AddrFiltersSyncAnnotated, else marked), then
// event->hw.addr_filters_gen.
// kernel/events/core.c: perf_event_addr_filters_sync()
func (e *Event) AccessAddrFiltersSync(c *cpu.CPU) {
	if !hasAddrFilter(e) { // if (!has_addr_filter(event)) return;
		return
	}
	ifh := e
	if e.parent != nil {
		ifh = e.parent // perf_event_addr_filters(): the parent's
	}
	c.AccessMarkedOnly(ifh, "ifh->lock", cpu.MarkedWrite, "perf_event_addr_filters_sync")            // core.c: perf_event_addr_filters_sync(): raw_spin_lock(&ifh->lock)
	c.AccessMarkedOnly(e, "event->addr_filters_gen", cpu.MarkedRead, "perf_event_addr_filters_sync") // core.c: perf_event_addr_filters_sync(): if (event->addr_filters_gen != event->hw.addr_filters_gen)
	c.AccessMarkedOnly(e, "event->hw.addr_filters_gen", cpu.PlainRead, "perf_event_addr_filters_sync")
	if e.af.gen == e.af.hwGen {
		return
	}
	d, ok := e.pmu.(AddrFiltersSyncAnnotated)
	if !ok {
		c.Unaudited("pmu->addr_filters_sync") // core.c: perf_event_addr_filters_sync(): event->pmu->addr_filters_sync(event): the driver's
		return
	}
	c.AccessMarkedOnly(ifh, "ifh->list", cpu.PlainRead, "pmu->addr_filters_sync")                       // pt.c: pt_event_addr_filters_sync(): list_for_each_entry(filter, &head->list, entry) (ifh->lock held)
	c.AccessMarkedOnly(e, "event->addr_filter_ranges", cpu.PlainRead, "pmu->addr_filters_sync")         // pt.c: pt_event_addr_filters_sync(): fr[range].start, fr[range].size (ifh->lock held)
	d.AccessAddrFiltersSyncDriver(c, e)                                                                 // the driver's own writes
	c.AccessMarkedOnly(e, "event->hw.addr_filters_gen", cpu.PlainWrite, "perf_event_addr_filters_sync") // core.c: perf_event_addr_filters_sync(): event->hw.addr_filters_gen = event->addr_filters_gen
}

// accessAuxRecord annotates perf_event_aux_event() up to its
// perf_output_begin(): the sample_id's interrupted task (perf_event_header__init_id():
// the pid and tid of current) and event->rb.
func accessAuxRecord(c *cpu.CPU, e *Event) {
	e.k.accessInterruptedRegs(c)                                               // core.c: perf_event_header__init_id(): perf_event_pid(event, current), perf_event_tid()
	c.AccessMarkedOnly(e, "event->rb", cpu.MarkedRead, "perf_event_aux_event") // core.c: perf_event_aux_event(): perf_output_begin(&handle, &sample, event, rec.header.size): rcu_dereference(event->rb)
}

// accessItraceStarted annotates perf_event_itrace_started() and
// perf_log_itrace_start() up to the record's perf_output_begin(): the
// output event's PERF_ATTACH_ITRACE and event->rb read; the first start's
// set of the flag on the event itself (WRITE_ONCE: a marked write of
// event->attach_state, which list_add_event() and the readers of the word
// touch too; the model keeps the flag in its table: itraceStartedKey).
func accessItraceStarted(c *cpu.CPU, e, oe *Event) {
	c.AccessMarkedOnly(oe, "event->attach_state", cpu.MarkedRead, "perf_log_itrace_start") // core.c: perf_log_itrace_start(): if (event->attach_state & PERF_ATTACH_ITRACE) return
	if !e.k.aux.itraceStarted[e] {
		c.AccessMarkedOnly(e, "event->attach_state", cpu.MarkedWrite, "perf_event_itrace_started")                       // core.c: perf_event_itrace_started(): WRITE_ONCE(event->attach_state, event->attach_state | PERF_ATTACH_ITRACE)
		c.AccessMarkedOnly(itraceStartedKey{e.k, e}, "PERF_ATTACH_ITRACE", cpu.MarkedWrite, "perf_event_itrace_started") // the model's table of the flag: e's entry made
	}
	c.AccessMarkedOnly(oe, "event->rb", cpu.MarkedRead, "perf_log_itrace_start") // core.c: perf_log_itrace_start(): perf_output_begin(&handle, &sample, event, ...): rcu_dereference(event->rb)
	e.k.accessInterruptedRegs(c)                                                 // core.c: perf_log_itrace_start(): perf_event_pid(event, current), perf_event_header__init_id(): current, the interrupted regs
}

// itraceStartedKey is e's PERF_ATTACH_ITRACE as the model keeps it: an
// entry of the kernel's table of the events that started
// (kernelAux.itraceStarted) rather than a bit of e's attach_state. Its key
// is e's flag (read through event->attach_state, which the same write
// annotates on e); its extent the table, whose entry the first start makes.
type itraceStartedKey struct {
	k *Kernel
	e *Event
}

// FootprintKey implements cpu.FootprintKeyer.
func (i itraceStartedKey) FootprintKey() string {
	return i.e.FootprintKey() + "/attach_state (the model's PERF_ATTACH_ITRACE table)"
}

// FootprintExtent implements the write audit's extent.
func (i itraceStartedKey) FootprintExtent() []any { return []any{&i.k.aux.itraceStarted} }
