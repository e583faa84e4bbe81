package pt

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/pmu"
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
	if p.filters[e] != nil {
		e.AccessAddrFiltersSync(c) // pt.c: pt_config_filters(): perf_event_addr_filters_sync(event)
	}
	c.AccessMarkedOnly(pt, "pt->filters", cpu.PlainWrite, "pt_config_filters") // pt.c: pt_config_filters(): pt->filters.filter[range].msr_a = ...; wrmsrq(MSR_IA32_RTIT_ADDRn_A/B)
	if !old {
		c.AccessMarkedOnly(pt, "pt->resume_allowed", cpu.MarkedWrite, "pt_config") // pt.c: pt_config(): WRITE_ONCE(pt->resume_allowed, 1)
	}
}
