// Package uapi is the perf ABI as include/uapi/linux/perf_event.h states it:
// the attr types and bits, the sample, read and record formats, the ioctl
// numbers, and the kernel's errno values. It is defined here once; the kernel
// model (pmu, rb, the drivers) and the tool model (perftool) both use it, and
// neither redefines any of it.
package uapi

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
)

// PERF_SAMPLE_REGS_ABI_64 is enum perf_sample_regs_abi's 64-bit ABI.
const PERF_SAMPLE_REGS_ABI_64 = 2

// PERF_MEM_NA is union perf_mem_data_src with every part "not available":
// OP, LVL, SNOOP, LOCK, TLB and LVLNUM NA.
const PERF_MEM_NA = 0x01<<0 | 0x01<<5 | 0x01<<19 | 0x01<<24 | 0x01<<26 | 0x0f<<33

// PERF_EVENT_IOC_* (include/uapi/linux/perf_event.h), with their _IO/_IOR/_IOW
// encodings on x86_64.
const (
	PERF_EVENT_IOC_ENABLE            = 0x2400     // _IO ('$', 0)
	PERF_EVENT_IOC_DISABLE           = 0x2401     // _IO ('$', 1)
	PERF_EVENT_IOC_REFRESH           = 0x2402     // _IO ('$', 2)
	PERF_EVENT_IOC_RESET             = 0x2403     // _IO ('$', 3)
	PERF_EVENT_IOC_PERIOD            = 0x40082404 // _IOW('$', 4, __u64)
	PERF_EVENT_IOC_SET_OUTPUT        = 0x2405     // _IO ('$', 5)
	PERF_EVENT_IOC_SET_FILTER        = 0x40082406 // _IOW('$', 6, char *)
	PERF_EVENT_IOC_ID                = 0x80082407 // _IOR('$', 7, __u64 *)
	PERF_EVENT_IOC_SET_BPF           = 0x40042408 // _IOW('$', 8, __u32)
	PERF_EVENT_IOC_PAUSE_OUTPUT      = 0x40042409 // _IOW('$', 9, __u32)
	PERF_EVENT_IOC_QUERY_BPF         = 0xc008240a // _IOWR('$', 10, struct perf_event_query_bpf *)
	PERF_EVENT_IOC_MODIFY_ATTRIBUTES = 0x4008240b // _IOW('$', 11, struct perf_event_attr *)

	PERF_IOC_FLAG_GROUP = 1 << 0
)

// include/uapi/linux/perf_event.h: enum perf_event_type, the record types.
const (
	PERF_RECORD_MMAP               = 1
	PERF_RECORD_LOST               = 2
	PERF_RECORD_COMM               = 3
	PERF_RECORD_EXIT               = 4
	PERF_RECORD_THROTTLE           = 5
	PERF_RECORD_UNTHROTTLE         = 6
	PERF_RECORD_FORK               = 7
	PERF_RECORD_READ               = 8
	PERF_RECORD_SAMPLE             = 9
	PERF_RECORD_MMAP2              = 10
	PERF_RECORD_AUX                = 11
	PERF_RECORD_ITRACE_START       = 12
	PERF_RECORD_LOST_SAMPLES       = 13
	PERF_RECORD_SWITCH             = 14
	PERF_RECORD_SWITCH_CPU_WIDE    = 15
	PERF_RECORD_NAMESPACES         = 16
	PERF_RECORD_KSYMBOL            = 17
	PERF_RECORD_BPF_EVENT          = 18
	PERF_RECORD_CGROUP             = 19
	PERF_RECORD_TEXT_POKE          = 20
	PERF_RECORD_AUX_OUTPUT_HW_ID   = 21
	PERF_RECORD_CALLCHAIN_DEFERRED = 22
	PERF_RECORD_MAX                = 23 // non-ABI
)

// include/uapi/linux/perf_event.h: perf_event_header.misc bits used here.
const (
	PERF_RECORD_MISC_CPUMODE_MASK       = 7 << 0
	PERF_RECORD_MISC_KERNEL             = 1 << 0
	PERF_RECORD_MISC_USER               = 1 << 1
	PERF_RECORD_MISC_HYPERVISOR         = 3 << 0
	PERF_RECORD_MISC_COMM_EXEC          = 1 << 13 // COMM
	PERF_RECORD_MISC_MMAP_DATA          = 1 << 13 // MMAP*
	PERF_RECORD_MISC_MMAP_BUILD_ID      = 1 << 14 // MMAP2
	PERF_RECORD_MISC_SWITCH_OUT         = 1 << 13 // SWITCH*
	PERF_RECORD_MISC_EXACT_IP           = 1 << 14 // SAMPLE
	PERF_RECORD_MISC_SWITCH_OUT_PREEMPT = 1 << 14 // SWITCH*
)

// include/uapi/linux/perf_event.h: PERF_AUX_FLAG_*, the flags of PERF_RECORD_AUX.
const (
	PERF_AUX_FLAG_TRUNCATED = 0x01 // record was truncated to fit
	PERF_AUX_FLAG_OVERWRITE = 0x02 // snapshot from overwrite mode
	PERF_AUX_FLAG_PARTIAL   = 0x04 // record contains gaps
	PERF_AUX_FLAG_COLLISION = 0x08 // sample collided with another
	// PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW: the trace is raw (a TRBE), not in
	// CoreSight formatter frames (PERF_AUX_FLAG_PMU_FORMAT_TYPE_MASK 0xff00).
	PERF_AUX_FLAG_CORESIGHT_FORMAT_RAW = 0x0100
)

// include/uapi/linux/perf_event.h: enum perf_callchain_context, the markers
// between the parts of a callchain.
const (
	PERF_CONTEXT_HV            = ^uint64(32) + 1   // (u64)-32
	PERF_CONTEXT_KERNEL        = ^uint64(128) + 1  // (u64)-128
	PERF_CONTEXT_USER          = ^uint64(512) + 1  // (u64)-512
	PERF_CONTEXT_USER_DEFERRED = ^uint64(640) + 1  // (u64)-640 (v6.19): the user part comes later in a PERF_RECORD_CALLCHAIN_DEFERRED; the next word is its cookie
	PERF_CONTEXT_GUEST         = ^uint64(2048) + 1 // (u64)-2048
	PERF_CONTEXT_MAX           = ^uint64(4095) + 1 // (u64)-4095
)
