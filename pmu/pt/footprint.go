package pt

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
)

// FootprintKey implements cpu.FootprintKeyer: "pt@cpuN", the per-CPU
// struct pt (DEFINE_PER_CPU(struct pt, pt_ctx)) with the CPU's RTIT MSRs
// the model keeps in it.
func (pt *ptCtx) FootprintKey() string { return "pt@cpu" + strconv.Itoa(pt.cpu) }

// FootprintKey implements cpu.FootprintKeyer: "ptbuf@RB", the struct
// pt_buffer of the AUX area RB (the hardware's output position in it).
func (b *ptBuffer) FootprintKey() string { return "ptbuf@" + b.buf.FootprintKey() }

// The fragments of pt.c whose footprints are complete (cpu.DeclareComplete):
// each runs from its step point to the next one inside the same function,
// and every access it makes to state another context can see is annotated.
func init() {
	cpu.DeclareComplete(
		// pt_event_start(PERF_EF_RESUME) after resume_allowed was read:
		// rdmsrq(MSR_IA32_RTIT_STATUS), then the status-read step.
		"pt_event_start:resume-allowed",
		// pt_config() after resume_allowed was set: WRITE_ONCE(pt->handle_nmi, 1),
		// then the handle-nmi step.
		"pt_config:resume-allowed",
		// pt_config() after handle_nmi was set: pt_config_start() (the
		// hardware's output since the last look, TraceEn, the PMI timer
		// armed on this CPU), then the started step.
		"pt_config:handle-nmi",
		// pt_event_stop() after handle_nmi was cleared: pause_allowed and
		// resume_allowed cleared, pt_config_stop() (the hardware's output,
		// TraceEn cleared, the PMI timer cancelled), then the
		// config-stopped step.
		"pt_event_stop:handle-nmi-cleared",
	)
	// pt_event_start(PERF_EF_RESUME) after RTIT_STATUS (or, before
	// 08c7454ceb94, event->hw.state) was read: pt_config_start(), then back
	// through __perf_event_aux_pause() to perf_event_aux_pause()'s
	// callback-done step. Without the guard (aux-pause-guard=off) the
	// callback returns into the overflow's caller instead: that fragment
	// ends elsewhere and vouches for nothing.
	cpu.DeclareCompleteUntil("pt_event_start:status-read", "perf_event_aux_pause:callback-done")
	cpu.DeclareCompleteUntil("pt_event_start:hw-state-read", "perf_event_aux_pause:callback-done")
}

// AuxPauseAnnotated implements pmu.AuxPauseAnnotated: pt_event_stop(PERF_EF_PAUSE)
// (READ_ONCE(pt->pause_allowed), pt_config_stop()) and
// pt_event_start(PERF_EF_RESUME) up to its resume-allowed step
// (READ_ONCE(pt->resume_allowed)) annotate their accesses; the old
// ordering's (pt-pause-resume=pre-08c7454ceb94) RESUME, which reads
// event->hw.state, is marked.
func (p *PMU) AuxPauseAnnotated() bool { return true }

// accessConfig annotates pt_config() up to its resume-allowed step, the
// code after pt_event_start()'s PERF_RECORD_ITRACE_START (pmu's
// ItraceStarted writes it with rb.PerfOutputSidebandAudited): the event's
// filters (hw.addr_filters) read and loaded into this CPU's RTIT_ADDRn
// (pt->filters), and WRITE_ONCE(pt->resume_allowed, 1). An event with
// hw.addr_filters goes through perf_event_addr_filters_sync() (annotated;
// its driver sync, when the filters changed, marked).
func (p *PMU) accessConfig(c *cpu.CPU, e *pmu.Event, old bool) {
	pt := &p.cpus[c.ID]
	c.AccessMarkedOnly(e, "event->hw.addr_filters", cpu.MarkedRead, "pt_config_filters") // pt.c: pt_config_filters(): struct pt_filters *filters = event->hw.addr_filters
	if f := p.filters[e]; f != nil {
		e.AccessAddrFiltersSync(c)                                                                    // pt.c: pt_config_filters(): perf_event_addr_filters_sync(event)
		c.AccessMarkedOnly(filtersKey{e, f}, "struct pt_filters", cpu.PlainRead, "pt_config_filters") // pt.c: pt_config_filters(): filters->filter[range].msr_a, msr_b, config; filters->nr_filters
	}
	c.AccessMarkedOnly(pt, "pt->filters", cpu.PlainWrite, "pt_config_filters") // pt.c: pt_config_filters(): pt->filters.filter[range].msr_a = ...; wrmsrq(MSR_IA32_RTIT_ADDRn_A/B)
	if !old {
		c.AccessMarkedOnly(pt, "pt->resume_allowed", cpu.MarkedWrite, "pt_config") // pt.c: pt_config(): WRITE_ONCE(pt->resume_allowed, 1)
	}
}

// The PT PMI (intel_pt_interrupt()), from its entry to perf_aux_output_end()'s
// PERF_RECORD_AUX (or its nest-zero step), and from the output-end step to
// perf_aux_output_begin()'s aux_refcount step (or the handler's return
// when the restart fails or the event is stopped). Annotated: the
// hardware's output since the last look (accrue), handle_nmi and
// handle.event, pt_config_stop(), perf_get_aux(), pt_handle_status() and
// pt_update_head() (RTIT_STATUS, the handle's flags, the buffer's
// positions), and rb's own parts (rb/footprint_aux.go).
func init() {
	cpu.DeclareComplete("enter:intel_pt_interrupt", "intel_pt_interrupt:output-end")
}

// accessInterruptEntry annotates intel_pt_interrupt()'s first tests.
func (p *PMU) accessInterruptEntry(c *cpu.CPU, pt *ptCtx) {
	c.AccessMarkedOnly(pt, "pt->handle_nmi", cpu.MarkedRead, "intel_pt_interrupt") // pt.c: intel_pt_interrupt(): if (!READ_ONCE(pt->handle_nmi)) return
	c.AccessMarkedOnly(pt, "handle->event", cpu.MarkedRead, "intel_pt_interrupt")  // pt.c: intel_pt_interrupt(): struct perf_event *event = pt->handle.event
}

// accessInterruptHead annotates intel_pt_interrupt() from perf_get_aux()
// to perf_aux_output_end(): the handle's buffer, and with one
// pt_read_offset(), pt_handle_status() (RTIT_STATUS, the handle's
// TRUNCATED flag, buf->wrapped) and pt_update_head() (buf->head,
// data_size).
func (p *PMU) accessInterruptHead(c *cpu.CPU, pt *ptCtx, haveBuf bool) {
	c.AccessMarkedOnly(pt, "handle->rb", cpu.MarkedRead, "perf_get_aux") // ring_buffer.c: perf_get_aux(): return handle->event ? handle->rb->aux_priv : NULL
	if !haveBuf {
		return
	}
	buf := rb.GetAux(&pt.handle).(*ptBuffer)
	c.AccessMarkedOnly(buf.buf, rb.FieldAuxSize, cpu.MarkedRead, "perf_get_aux")                  // ... rb->aux_priv, set with the area
	c.AccessMarkedOnly(pt, "MSR_IA32_RTIT_STATUS", cpu.PlainWrite, "pt_handle_status")            // pt.c: pt_handle_status(): rdmsrq(MSR_IA32_RTIT_STATUS); wrmsrq(MSR_IA32_RTIT_STATUS, status) (the model's Stopped bit)
	c.AccessMarkedOnly(pt, "handle->aux_flags", cpu.MarkedWrite, "pt_handle_status")              // pt.c: pt_handle_status(): perf_aux_output_flag(&pt->handle, PERF_AUX_FLAG_TRUNCATED)
	c.AccessMarkedOnly(buf, "pt_buffer (the driver's offsets)", cpu.PlainWrite, "pt_update_head") // pt.c: pt_handle_status(): buf->wrapped; pt_update_head(): local64_set(&buf->head, base), local_add(..., &buf->data_size); local_xchg(&buf->data_size, 0)
}

// accessPMIHead annotates intel_pt_interrupt() from perf_get_aux() to
// perf_aux_output_end(): the handle's buffer, pt_read_offset() (the
// buffer's hardware position, as pt_event_stop()'s: accessStopHead), then
// pt_handle_status() and pt_update_head() (accessInterruptHead).
func (p *PMU) accessPMIHead(c *cpu.CPU, pt *ptCtx, haveBuf bool) {
	if haveBuf {
		buf := rb.GetAux(&pt.handle).(*ptBuffer)
		c.AccessMarkedOnly(buf, "pt_buffer (the hardware's output position)", cpu.PlainWrite, "pt_read_offset") // pt.c: intel_pt_interrupt(): pt_read_offset(buf): rdmsrq(MSR_IA32_RTIT_OUTPUT_MASK); buf->output_off, buf->cur_idx, buf->cur
	}
	p.accessInterruptHead(c, pt, haveBuf)
}

// accessRestartBegin annotates intel_pt_interrupt() after its
// perf_aux_output_end(): event->hw.state, and for a running event the
// output event's rb (ring_buffer_get() in perf_aux_output_begin()).
func accessRestartBegin(c *cpu.CPU, e *pmu.Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedRead, "intel_pt_interrupt") // pt.c: intel_pt_interrupt(): if (!event->hw.state)
	if e.HWState() == 0 {
		c.AccessMarkedOnly(e.OutputEvent(), "event->rb", cpu.MarkedRead, "ring_buffer_get") // ring_buffer.c: perf_aux_output_begin(): rb = ring_buffer_get(output_event)
	}
}

// accessRestartFailed annotates intel_pt_interrupt() when
// perf_aux_output_begin() found no room: the event stopped, resume
// disallowed.
func accessRestartFailed(c *cpu.CPU, pt *ptCtx, e *pmu.Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "intel_pt_interrupt") // pt.c: intel_pt_interrupt(): event->hw.state = PERF_HES_STOPPED
	c.AccessMarkedOnly(pt, "pt->resume_allowed", cpu.MarkedWrite, "intel_pt_interrupt")     // pt.c: intel_pt_interrupt(): WRITE_ONCE(pt->resume_allowed, 0)
}

// accessTxnStart annotates pt_event_start() (start: true) or
// intel_pt_interrupt() after a perf_aux_output_begin() that opened the
// transaction: pt_buffer_reset_offsets() and pt_buffer_reset_markers()
// (the buffer's offsets and markers from the handle's head, size and
// wakeup; a failure's TRUNCATED flag), pt_config_buffer() (RTIT_OUTPUT_BASE),
// and in pt_event_start() hw.state = 0.
func accessTxnStart(c *cpu.CPU, pt *ptCtx, buf *ptBuffer, e *pmu.Event, start bool) {
	const fn = "pt_buffer_reset_offsets"
	c.AccessMarkedOnly(pt, "handle->head", cpu.MarkedRead, fn)                                             // pt.c: pt_event_start(): pt_buffer_reset_offsets(buf, pt->handle.head); pt_buffer_reset_markers(buf, &pt->handle): handle->size, handle->wakeup
	c.AccessMarkedOnly(buf, "pt_buffer (the hardware's output position)", cpu.PlainWrite, fn)              // pt.c: pt_buffer_reset_offsets(): buf->cur, cur_idx, output_off (the model's hardware position)
	c.AccessMarkedOnly(buf, "pt_buffer (the driver's offsets)", cpu.PlainWrite, fn)                        // pt.c: pt_buffer_reset_offsets(): local64_set(&buf->head, head); local_set(&buf->data_size, 0); pt_buffer_reset_markers(): stop_pos, intr_pos
	c.AccessMarkedOnly(pt, "handle->aux_flags", cpu.MarkedWrite, "pt_buffer_reset_markers")                // pt.c: pt_buffer_reset_markers(): perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED)
	c.AccessMarkedOnly(pt, "RTIT_OUTPUT_BASE (the hardware's buffer)", cpu.PlainWrite, "pt_config_buffer") // pt.c: pt_config_buffer(): wrmsrq(MSR_IA32_RTIT_OUTPUT_BASE, reg); wrmsrq(MSR_IA32_RTIT_OUTPUT_MASK, reg)
	if start {
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "pt_event_start") // pt.c: pt_event_start(): hwc->state = 0 (or PERF_HES_STOPPED on failure)
	}
}
