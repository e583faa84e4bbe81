package pmu

// include/uapi/linux/perf_event.h: enum perf_type_id.
const (
	PERF_TYPE_HARDWARE   = 0
	PERF_TYPE_SOFTWARE   = 1
	PERF_TYPE_TRACEPOINT = 2
	PERF_TYPE_HW_CACHE   = 3
	PERF_TYPE_RAW        = 4
	PERF_TYPE_BREAKPOINT = 5
	PERF_TYPE_MAX        = 6 // non-ABI: first dynamic PMU type
)

// include/uapi/linux/perf_event.h: PERF_PMU_TYPE_SHIFT, PERF_HW_EVENT_MASK.
const (
	PERF_PMU_TYPE_SHIFT = 32
	PERF_HW_EVENT_MASK  = 0xffffffff
)

// include/uapi/linux/perf_event.h: enum perf_hw_id.
const (
	PERF_COUNT_HW_CPU_CYCLES              = 0
	PERF_COUNT_HW_INSTRUCTIONS            = 1
	PERF_COUNT_HW_CACHE_REFERENCES        = 2
	PERF_COUNT_HW_CACHE_MISSES            = 3
	PERF_COUNT_HW_BRANCH_INSTRUCTIONS     = 4
	PERF_COUNT_HW_BRANCH_MISSES           = 5
	PERF_COUNT_HW_BUS_CYCLES              = 6
	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND = 7
	PERF_COUNT_HW_STALLED_CYCLES_BACKEND  = 8
	PERF_COUNT_HW_REF_CPU_CYCLES          = 9
	PERF_COUNT_HW_MAX                     = 10
)

// include/uapi/linux/perf_event.h: enum perf_sw_ids.
const (
	PERF_COUNT_SW_CPU_CLOCK        = 0
	PERF_COUNT_SW_TASK_CLOCK       = 1
	PERF_COUNT_SW_PAGE_FAULTS      = 2
	PERF_COUNT_SW_CONTEXT_SWITCHES = 3
	PERF_COUNT_SW_CPU_MIGRATIONS   = 4
	PERF_COUNT_SW_PAGE_FAULTS_MIN  = 5
	PERF_COUNT_SW_PAGE_FAULTS_MAJ  = 6
	PERF_COUNT_SW_ALIGNMENT_FAULTS = 7
	PERF_COUNT_SW_EMULATION_FAULTS = 8
	PERF_COUNT_SW_DUMMY            = 9
	PERF_COUNT_SW_BPF_OUTPUT       = 10
	PERF_COUNT_SW_CGROUP_SWITCHES  = 11
	PERF_COUNT_SW_MAX              = 12
)

// include/uapi/linux/perf_event.h: enum perf_event_sample_format.
const (
	PERF_SAMPLE_IP             = 1 << 0
	PERF_SAMPLE_TID            = 1 << 1
	PERF_SAMPLE_TIME           = 1 << 2
	PERF_SAMPLE_ADDR           = 1 << 3
	PERF_SAMPLE_READ           = 1 << 4
	PERF_SAMPLE_CALLCHAIN      = 1 << 5
	PERF_SAMPLE_ID             = 1 << 6
	PERF_SAMPLE_CPU            = 1 << 7
	PERF_SAMPLE_PERIOD         = 1 << 8
	PERF_SAMPLE_STREAM_ID      = 1 << 9
	PERF_SAMPLE_RAW            = 1 << 10
	PERF_SAMPLE_BRANCH_STACK   = 1 << 11
	PERF_SAMPLE_REGS_USER      = 1 << 12
	PERF_SAMPLE_STACK_USER     = 1 << 13
	PERF_SAMPLE_WEIGHT         = 1 << 14
	PERF_SAMPLE_DATA_SRC       = 1 << 15
	PERF_SAMPLE_IDENTIFIER     = 1 << 16
	PERF_SAMPLE_TRANSACTION    = 1 << 17
	PERF_SAMPLE_REGS_INTR      = 1 << 18
	PERF_SAMPLE_PHYS_ADDR      = 1 << 19
	PERF_SAMPLE_AUX            = 1 << 20
	PERF_SAMPLE_CGROUP         = 1 << 21
	PERF_SAMPLE_DATA_PAGE_SIZE = 1 << 22
	PERF_SAMPLE_CODE_PAGE_SIZE = 1 << 23
	PERF_SAMPLE_WEIGHT_STRUCT  = 1 << 24
	PERF_SAMPLE_MAX            = 1 << 25 // non-ABI

	PERF_SAMPLE_WEIGHT_TYPE = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT
)

// include/uapi/linux/perf_event.h: enum perf_branch_sample_type.
const (
	PERF_SAMPLE_BRANCH_USER       = 1 << 0
	PERF_SAMPLE_BRANCH_KERNEL     = 1 << 1
	PERF_SAMPLE_BRANCH_HV         = 1 << 2
	PERF_SAMPLE_BRANCH_ANY        = 1 << 3
	PERF_SAMPLE_BRANCH_ANY_CALL   = 1 << 4
	PERF_SAMPLE_BRANCH_ANY_RETURN = 1 << 5
	PERF_SAMPLE_BRANCH_IND_CALL   = 1 << 6
	PERF_SAMPLE_BRANCH_ABORT_TX   = 1 << 7
	PERF_SAMPLE_BRANCH_IN_TX      = 1 << 8
	PERF_SAMPLE_BRANCH_NO_TX      = 1 << 9
	PERF_SAMPLE_BRANCH_COND       = 1 << 10
	PERF_SAMPLE_BRANCH_CALL_STACK = 1 << 11
	PERF_SAMPLE_BRANCH_IND_JUMP   = 1 << 12
	PERF_SAMPLE_BRANCH_CALL       = 1 << 13
	PERF_SAMPLE_BRANCH_NO_FLAGS   = 1 << 14
	PERF_SAMPLE_BRANCH_NO_CYCLES  = 1 << 15
	PERF_SAMPLE_BRANCH_TYPE_SAVE  = 1 << 16
	PERF_SAMPLE_BRANCH_HW_INDEX   = 1 << 17
	PERF_SAMPLE_BRANCH_PRIV_SAVE  = 1 << 18
	PERF_SAMPLE_BRANCH_COUNTERS   = 1 << 19
	PERF_SAMPLE_BRANCH_MAX        = 1 << 20 // non-ABI

	PERF_SAMPLE_BRANCH_PLM_ALL = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV
	// kernel/events/core.c: PERF_SAMPLE_BRANCH_PERM_PLM (priv levels that need permission checks).
	PERF_SAMPLE_BRANCH_PERM_PLM = PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV
)

// include/uapi/linux/perf_event.h: enum perf_event_read_format.
const (
	PERF_FORMAT_TOTAL_TIME_ENABLED = 1 << 0
	PERF_FORMAT_TOTAL_TIME_RUNNING = 1 << 1
	PERF_FORMAT_ID                 = 1 << 2
	PERF_FORMAT_GROUP              = 1 << 3
	PERF_FORMAT_LOST               = 1 << 4
	PERF_FORMAT_MAX                = 1 << 5 // non-ABI
)

// include/uapi/linux/perf_event.h: perf_event_open() flags.
const (
	PERF_FLAG_FD_NO_GROUP = 1 << 0
	PERF_FLAG_FD_OUTPUT   = 1 << 1
	PERF_FLAG_PID_CGROUP  = 1 << 2 // pid=cgroup id, per-cpu mode only
	PERF_FLAG_FD_CLOEXEC  = 1 << 3 // O_CLOEXEC
	// kernel/events/core.c: PERF_FLAG_ALL.
	PERF_FLAG_ALL = PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC
)

// include/uapi/linux/perf_event.h: PERF_ATTR_SIZE_VER*.
const (
	PERF_ATTR_SIZE_VER0 = 64  // first published struct
	PERF_ATTR_SIZE_VER1 = 72  // add: config2
	PERF_ATTR_SIZE_VER2 = 80  // add: branch_sample_type
	PERF_ATTR_SIZE_VER3 = 96  // add: sample_regs_user, sample_stack_user
	PERF_ATTR_SIZE_VER4 = 104 // add: sample_regs_intr
	PERF_ATTR_SIZE_VER5 = 112 // add: aux_watermark
	PERF_ATTR_SIZE_VER6 = 120 // add: aux_sample_size
	PERF_ATTR_SIZE_VER7 = 128 // add: sig_data
	PERF_ATTR_SIZE_VER8 = 136 // add: config3

	// AttrSize is sizeof(struct perf_event_attr) in today's kernel.
	AttrSize = PERF_ATTR_SIZE_VER8
	// PageSize is the simulated PAGE_SIZE (perf_copy_attr's upper size bound).
	PageSize = 4096
)

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

// PERF_SAMPLE_REGS_ABI_64 is enum perf_sample_regs_abi's 64-bit ABI.
const PERF_SAMPLE_REGS_ABI_64 = 2

// PERF_MEM_NA is union perf_mem_data_src with every part "not available":
// OP, LVL, SNOOP, LOCK, TLB and LVLNUM NA.
const PERF_MEM_NA = 0x01<<0 | 0x01<<5 | 0x01<<19 | 0x01<<24 | 0x01<<26 | 0x0f<<33
