package pmu

// include/linux/perf_event.h: PERF_PMU_CAP_* (struct pmu::capabilities).
const (
	PERF_PMU_CAP_NO_INTERRUPT     = 0x0001
	PERF_PMU_CAP_NO_NMI           = 0x0002
	PERF_PMU_CAP_AUX_NO_SG        = 0x0004
	PERF_PMU_CAP_EXTENDED_REGS    = 0x0008
	PERF_PMU_CAP_EXCLUSIVE        = 0x0010
	PERF_PMU_CAP_ITRACE           = 0x0020
	PERF_PMU_CAP_NO_EXCLUDE       = 0x0040
	PERF_PMU_CAP_AUX_OUTPUT       = 0x0080
	PERF_PMU_CAP_EXTENDED_HW_TYPE = 0x0100
	PERF_PMU_CAP_AUX_PAUSE        = 0x0200
	PERF_PMU_CAP_AUX_PREFER_LARGE = 0x0400
)

// PageSize is the simulated PAGE_SIZE (perf_copy_attr's upper size bound).
const PageSize = 4096
