package pt

import (
	"strconv"

	"perfsim/cpu"
)

// FootprintKey implements cpu.FootprintKeyer: "pt@cpuN", the per-CPU
// struct pt (DEFINE_PER_CPU(struct pt, pt_ctx)) with the CPU's RTIT MSRs
// the model keeps in it.
func (pt *ptCtx) FootprintKey() string { return "pt@cpu" + strconv.Itoa(pt.cpu) }

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
	)
}
