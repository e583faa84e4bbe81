package pt

import (
	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
)

// The footprints of pt_event_add() and pt_event_del() (arch/x86/events/intel/pt.c),
// perf's pmu->add and pmu->del, which event_sched_in() and event_sched_out()
// call from their declared steps (pmu/footprint_sched.go):
//
//   - pt_event_add(): its test of pt->handle.event (-EBUSY back
//     into event_sched_in()'s error path, annotated there), then
//     pt_event_start(event, 0): the hardware's output since the last look
//     (accrue), ring_buffer_get(output_event) (event->rb), and
//     perf_aux_output_begin() up to its aux_refcount step (rb's own
//     annotation); its failures set hwc->state and return into
//     pt_event_add() (startFailed; into any other caller: marked). Without PERF_EF_START,
//     hwc->state = PERF_HES_STOPPED.
//   - pt_event_del(): pt_event_stop(event, PERF_EF_UPDATE) up to its
//     handle-nmi-cleared step: WRITE_ONCE(pt->handle_nmi, 0).
//   - "pt_config:started": WRITE_ONCE(pt->pause_allowed, 1), the return
//     through pt_event_start() into pt_event_add() (hwc->state read) and
//     event_sched_in()'s rest (annotated there); any other pmu->start
//     caller is marked where pt_event_start() returns into it.
//   - "pt_event_stop:config-stopped": event->hw.state read and set,
//     perf_get_aux(), the WARN's pt->handle.event, pt_read_offset() (the
//     buffer's hardware position),
//     pt_handle_status() and pt_update_head() (as the PMI's), then
//     perf_aux_output_end() up to its record or nest-zero step (rb's own
//     annotation); every return into a caller other than pt_event_del()
//     (which returns at once into event_sched_out()'s del step) is marked,
//     and so is a snapshot buffer's handle.head exchange.
func init() {
	cpu.DeclareComplete("pt_config:started", "pt_event_stop:config-stopped")
}

// accessAdd annotates pt_event_add()'s first test.
func accessAdd(c *cpu.CPU, pt *ptCtx) {
	c.AccessMarkedOnly(pt, "handle->event", cpu.MarkedRead, "pt_event_add") // pt.c: pt_event_add(): if (pt->handle.event) goto fail
}

// accessAddStarted annotates pt_event_add() after pt_event_start().
func accessAddStarted(c *cpu.CPU, e *pmu.Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedRead, "pt_event_add") // pt.c: pt_event_add(): if (hwc->state == PERF_HES_STOPPED) goto fail
}

// accessHWStateWrite annotates a write of event->hw.state by fn.
func accessHWStateWrite(c *cpu.CPU, e *pmu.Event, fn string) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, fn) // pt.c: hwc->state = PERF_HES_STOPPED
}

// accessStartBegin annotates pt_event_start() from its PERF_EF_RESUME
// test to perf_aux_output_begin()'s own annotation: the output event's
// buffer (rb's side names the rest, rb/footprint_aux.go).
func accessStartBegin(c *cpu.CPU, e *pmu.Event) {
	c.AccessMarkedOnly(e.OutputEvent(), "event->rb", cpu.MarkedRead, "ring_buffer_get") // ring_buffer.c: perf_aux_output_begin(): rb = ring_buffer_get(output_event)
}

// accessStopState annotates pt_event_stop() after pt_config_stop():
// event->hw.state read, and set when it was not stopped.
func accessStopState(c *cpu.CPU, e *pmu.Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedRead, "pt_event_stop") // pt.c: pt_event_stop(): if (event->hw.state == PERF_HES_STOPPED) return
	if e.HWState() != pmu.PERF_HES_STOPPED {
		accessHWStateWrite(c, e, "pt_event_stop") // pt.c: pt_event_stop(): event->hw.state = PERF_HES_STOPPED
	}
}

// accessStopHead annotates pt_event_stop(PERF_EF_UPDATE) from
// perf_get_aux() to perf_aux_output_end(): the PMI's (accessInterruptHead)
// and the WARN's pt->handle.event.
func (p *PMU) accessStopHead(c *cpu.CPU, pt *ptCtx, haveBuf bool) {
	if haveBuf {
		buf := rb.GetAux(&pt.handle).(*ptBuffer)
		c.AccessMarkedOnly(pt, "handle->event", cpu.MarkedRead, "pt_event_stop")                                // pt.c: pt_event_stop(): if (WARN_ON_ONCE(pt->handle.event != event)) return
		c.AccessMarkedOnly(buf, "pt_buffer (the hardware's output position)", cpu.PlainWrite, "pt_read_offset") // pt.c: pt_read_offset(): rdmsrq(MSR_IA32_RTIT_OUTPUT_MASK); buf->output_off, buf->cur_idx, buf->cur
	}
	p.accessInterruptHead(c, pt, haveBuf)
}

// stopReturn marks pt_event_stop()'s return into a caller other than
// pt_event_del().
func stopReturn(c *cpu.CPU, fp, fromDel bool) {
	if fp && !fromDel {
		c.Unaudited("pt_event_stop's caller") // pt.c: pt_event_stop() returns into pmu->stop's caller, nobody annotated
	}
}

// startFailed annotates pt_event_start()'s failure (fail_stop, or
// fail_end_stop after its perf_aux_output_end()): hwc->state =
// PERF_HES_STOPPED, then the return into pt_event_add() (fromAdd: its
// hwc->state test and event_sched_in()'s error path, annotated there);
// the return into any other pmu->start caller is marked.
func startFailed(c *cpu.CPU, e *pmu.Event, fromAdd bool) {
	if !fromAdd {
		c.Unaudited("pt_event_start's caller") // pt.c: pt_event_start(): fail_stop: hwc->state = PERF_HES_STOPPED, then pmu->start's caller
		return
	}
	accessHWStateWrite(c, e, "pt_event_start") // pt.c: pt_event_start(): fail_stop: hwc->state = PERF_HES_STOPPED
}
