package pmu

import "perfsim/rb"

// Attr mirrors struct perf_event_attr from include/uapi/linux/perf_event.h as of
// today's upstream (PERF_ATTR_SIZE_VER8, 136 bytes, plus the v6.19
// defer_callchain/defer_output bits). Field order is the C order; the bitfield
// word at offset 40 is split into one Go field per C bitfield. Unions are one Go
// field named after the member perf uses most, with the other names in the
// comment. Marshal/UnmarshalAttr convert to and from the exact uapi bytes.
type Attr struct {
	Type   uint32 // major type: PERF_TYPE_* or a dynamic PMU type
	Size   uint32 // sizeof the struct as the caller knows it (PERF_ATTR_SIZE_VER*)
	Config uint64 // type specific configuration

	SamplePeriod uint64 // union { sample_period; sample_freq (when Freq) }
	SampleType   uint64 // PERF_SAMPLE_* bits
	ReadFormat   uint64 // PERF_FORMAT_* bits

	// The bitfield word at offset 40, bit numbers as in the kernel's
	// little-endian bitfield layout (see attrFlagBits).
	Disabled               bool   // bit 0: off by default
	Inherit                bool   // bit 1: children inherit it
	Pinned                 bool   // bit 2: must always be on PMU
	Exclusive              bool   // bit 3: only group on PMU
	ExcludeUser            bool   // bit 4: don't count user
	ExcludeKernel          bool   // bit 5: ditto kernel
	ExcludeHV              bool   // bit 6: ditto hypervisor
	ExcludeIdle            bool   // bit 7: don't count when idle
	Mmap                   bool   // bit 8: include mmap data
	Comm                   bool   // bit 9: include comm data
	Freq                   bool   // bit 10: use freq, not period
	InheritStat            bool   // bit 11: per task counts
	EnableOnExec           bool   // bit 12: next exec enables
	Task                   bool   // bit 13: trace fork/exit
	Watermark              bool   // bit 14: wakeup_watermark
	PreciseIP              uint8  // bits 15-16: skid constraint (2 bits; 0..3)
	MmapData               bool   // bit 17: non-exec mmap data
	SampleIDAll            bool   // bit 18: sample_type all events
	ExcludeHost            bool   // bit 19: don't count in host
	ExcludeGuest           bool   // bit 20: don't count in guest
	ExcludeCallchainKernel bool   // bit 21: exclude kernel callchains
	ExcludeCallchainUser   bool   // bit 22: exclude user callchains
	Mmap2                  bool   // bit 23: include mmap with inode data
	CommExec               bool   // bit 24: flag comm events that are due to an exec
	UseClockid             bool   // bit 25: use @clockid for time fields
	ContextSwitch          bool   // bit 26: context switch data
	WriteBackward          bool   // bit 27: write ring buffer from end to beginning
	Namespaces             bool   // bit 28: include namespaces data
	Ksymbol                bool   // bit 29: include ksymbol events
	BPFEvent               bool   // bit 30: include BPF events
	AuxOutput              bool   // bit 31: generate AUX records instead of events
	Cgroup                 bool   // bit 32: include cgroup events
	TextPoke               bool   // bit 33: include text poke events
	BuildID                bool   // bit 34: use build ID in mmap2 events
	InheritThread          bool   // bit 35: children only inherit if cloned with CLONE_THREAD
	RemoveOnExec           bool   // bit 36: event is removed from task on exec
	Sigtrap                bool   // bit 37: send synchronous SIGTRAP on event
	DeferCallchain         bool   // bit 38: request PERF_RECORD_CALLCHAIN_DEFERRED records (v6.19)
	DeferOutput            bool   // bit 39: output PERF_RECORD_CALLCHAIN_DEFERRED records (v6.19)
	Reserved1              uint32 // __reserved_1: bits 40-63 of the word (24 bits); must be 0

	WakeupEvents uint32 // union { wakeup_events; wakeup_watermark (when Watermark) }
	BPType       uint32
	Config1      uint64 // union { bp_addr; kprobe_func; uprobe_path; config1 }
	Config2      uint64 // union { bp_len; kprobe_addr; probe_offset; config2 } (VER1)

	BranchSampleType uint64 // PERF_SAMPLE_BRANCH_* (VER2)
	SampleRegsUser   uint64 // (VER3)
	SampleStackUser  uint32 // (VER3)
	Clockid          int32
	SampleRegsIntr   uint64 // (VER4)
	AuxWatermark     uint32 // (VER5)
	SampleMaxStack   uint16
	Reserved2        uint16 // __reserved_2; must be 0
	AuxSampleSize    uint32 // (VER6)

	// union { __u32 aux_action; struct { aux_start_paused:1, aux_pause:1, aux_resume:1, __reserved_3:29 } }
	AuxStartPaused bool   // aux_action bit 0: start AUX area tracing paused
	AuxPause       bool   // aux_action bit 1: on overflow, pause AUX area tracing
	AuxResume      bool   // aux_action bit 2: on overflow, resume AUX area tracing
	Reserved3      uint32 // __reserved_3: aux_action bits 3-31 (29 bits); must be 0

	SigData uint64 // (VER7) user data passed back in siginfo_t::si_perf_data
	Config3 uint64 // (VER8) extension of config2
}

// SampleLayout is what lays out a sample of this attr: sample_type and the
// fields that size its parts (read_format, sample_regs_user,
// branch_sample_type).
func (a *Attr) SampleLayout() rb.SampleLayout {
	return rb.SampleLayout{SampleType: a.SampleType, ReadFormat: a.ReadFormat, SampleRegsUser: a.SampleRegsUser, BranchSampleType: a.BranchSampleType}
}

// SampleFreq reads the sample_freq member of the sample_period union.
func (a *Attr) SampleFreq() uint64 { return a.SamplePeriod }

// SetSampleFreq sets freq=1 and sample_freq=hz.
func (a *Attr) SetSampleFreq(hz uint64) { a.Freq, a.SamplePeriod = true, hz }

// AuxAction returns the aux_action union as the u32 the kernel tests
// (perf_event_create_kernel_counter: "attr->aux_output || attr->aux_action").
func (a *Attr) AuxAction() uint32 {
	v := a.Reserved3 << 3
	if a.AuxStartPaused {
		v |= 1
	}
	if a.AuxPause {
		v |= 2
	}
	if a.AuxResume {
		v |= 4
	}
	return v
}

// SetAuxAction stores the aux_action union from its u32 value.
func (a *Attr) SetAuxAction(v uint32) {
	a.AuxStartPaused = v&1 != 0
	a.AuxPause = v&2 != 0
	a.AuxResume = v&4 != 0
	a.Reserved3 = v >> 3
}

// HasAuxAction models include/linux/perf_event.h: has_aux_action() (the
// attr half: aux_sample_size || aux_pause || aux_resume).
func (a *Attr) HasAuxAction() bool {
	return a.AuxSampleSize != 0 || a.AuxPause || a.AuxResume
}

// NeedAuxEvent models kernel/events/core.c: perf_need_aux_event().
func (a *Attr) NeedAuxEvent() bool { return a.AuxOutput || a.HasAuxAction() }

// IsSampling models include/linux/perf_event.h: is_sampling_event() on the attr.
func (a *Attr) IsSampling() bool { return a.SamplePeriod != 0 }
