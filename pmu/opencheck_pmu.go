package pmu

import "perfsim/uapi"

// PMUCaps is what the PMU-dependent open checks need to know about the PMU an
// event was initialised on (struct pmu fields and driver limits).
type PMUCaps struct {
	Capabilities   uint32 // PERF_PMU_CAP_* (struct pmu::capabilities)
	TaskCtxInvalid bool   // task_ctx_nr == perf_invalid_context (uncore PMUs)
	HasSnapshotAux bool   // pmu->snapshot_aux != NULL (Intel PT yes, CoreSight no)
	// CheckPrecise/MaxPreciseIP model the x86 core PMU's event_init:
	// arch/x86/events/core.c: x86_pmu_hw_config(): precise_ip >
	// x86_pmu_max_precise() -> EOPNOTSUPP. Software PMUs do not check.
	CheckPrecise bool
	MaxPreciseIP uint8
}

// CheckAllocPMU is the part of perf_event_alloc() that needs the PMU: what
// perf_try_init_event() checks after pmu->event_init(), the uncore and AUX
// checks, and get_callchain_buffers()' stack limit. hasCgroup is cgroup_fd != -1
// (PERF_FLAG_PID_CGROUP). isChild is parent_event != NULL (inheritance), for
// which the callchain buffer check is skipped.
//
// kernel/events/core.c: perf_event_alloc() (after perf_init_event())
func CheckAllocPMU(attr *Attr, caps PMUCaps, hasTask, hasCgroup, isChild bool, sys Sysctl) error {
	// arch/x86/events/core.c: x86_pmu_hw_config(): if (event->attr.precise_ip > precise) return -EOPNOTSUPP;
	if caps.CheckPrecise && attr.PreciseIP > caps.MaxPreciseIP {
		return uapi.EOPNOTSUPP
	}
	// perf_try_init_event(): !(caps & PERF_PMU_CAP_EXTENDED_REGS) && has_extended_regs(event) -> -EOPNOTSUPP
	if caps.Capabilities&PERF_PMU_CAP_EXTENDED_REGS == 0 && sys.Arch == ArchX86_64 &&
		(attr.SampleRegsUser&x86ExtendedRegs != 0 || attr.SampleRegsIntr&x86ExtendedRegs != 0) {
		return uapi.EOPNOTSUPP
	}
	// perf_try_init_event(): caps & PERF_PMU_CAP_NO_EXCLUDE && event_has_any_exclude_flag(event) -> -EINVAL
	if caps.Capabilities&PERF_PMU_CAP_NO_EXCLUDE != 0 && hasAnyExcludeFlag(attr) {
		return uapi.EINVAL
	}
	// "Disallow uncore-task events. Similarly, disallow uncore-cgroup events"
	if caps.TaskCtxInvalid && (hasTask || hasCgroup) {
		return uapi.EINVAL
	}
	// aux_output && (!CAP_AUX_OUTPUT || aux_pause || aux_resume) -> -EOPNOTSUPP
	if attr.AuxOutput && (caps.Capabilities&PERF_PMU_CAP_AUX_OUTPUT == 0 || attr.AuxPause || attr.AuxResume) {
		return uapi.EOPNOTSUPP
	}
	// if (event->attr.aux_pause && event->attr.aux_resume) return ERR_PTR(-EINVAL);
	if attr.AuxPause && attr.AuxResume {
		return uapi.EINVAL
	}
	// aux_start_paused && !(pmu->capabilities & PERF_PMU_CAP_AUX_PAUSE) -> -EOPNOTSUPP
	if attr.AuxStartPaused && caps.Capabilities&PERF_PMU_CAP_AUX_PAUSE == 0 {
		return uapi.EOPNOTSUPP
	}
	// kernel/events/callchain.c: get_callchain_buffers(): event_max_stack > sysctl_perf_event_max_stack -> -EOVERFLOW
	if !isChild && attr.SampleType&uapi.PERF_SAMPLE_CALLCHAIN != 0 && int(attr.SampleMaxStack) > sys.MaxStack {
		return uapi.EOVERFLOW
	}
	return nil
}

// hasAnyExcludeFlag models include/linux/perf_event.h: event_has_any_exclude_flag().
func hasAnyExcludeFlag(a *Attr) bool {
	return a.ExcludeIdle || a.ExcludeUser || a.ExcludeKernel || a.ExcludeHV || a.ExcludeGuest || a.ExcludeHost
}

// CheckSamplingPMU is step 17: a sampling event on a PMU that cannot interrupt.
//
// kernel/events/core.c: sys_perf_event_open(): is_sampling_event() && PERF_PMU_CAP_NO_INTERRUPT
func CheckSamplingPMU(attr *Attr, caps PMUCaps) error {
	if attr.IsSampling() && caps.Capabilities&PERF_PMU_CAP_NO_INTERRUPT != 0 {
		return uapi.EOPNOTSUPP
	}
	return nil
}

// Clock ids perf_event_set_clock() knows (include/uapi/linux/time.h).
const (
	CLOCK_REALTIME      = 0
	CLOCK_MONOTONIC     = 1
	CLOCK_MONOTONIC_RAW = 4
	CLOCK_BOOTTIME      = 7
	CLOCK_TAI           = 11
)

// CheckClock is step 18: an unknown clockid, or a clock that is not NMI safe
// on a PMU that can raise NMIs, is EINVAL.
//
// kernel/events/core.c: perf_event_set_clock()
func CheckClock(attr *Attr, caps PMUCaps) error {
	if !attr.UseClockid {
		return nil
	}
	var nmiSafe bool
	switch attr.Clockid {
	case CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW:
		nmiSafe = true
	case CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_TAI:
	default:
		return uapi.EINVAL
	}
	if !nmiSafe && caps.Capabilities&PERF_PMU_CAP_NO_NMI == 0 {
		return uapi.EINVAL
	}
	return nil
}

// ReadSize is the size of a read() of an event with this read_format in a
// group of nrSiblings+1 events.
//
// kernel/events/core.c: __perf_event_read_size()
func ReadSize(readFormat uint64, nrSiblings int) int {
	entry, size, nr := 8, 0, 1
	if readFormat&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
		size += 8
	}
	if readFormat&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
		size += 8
	}
	if readFormat&uapi.PERF_FORMAT_ID != 0 {
		entry += 8
	}
	if readFormat&uapi.PERF_FORMAT_LOST != 0 {
		entry += 8
	}
	if readFormat&uapi.PERF_FORMAT_GROUP != 0 {
		nr += nrSiblings
		size += 8
	}
	return size + nr*entry
}

// CheckValidateSize is step 24: adding the event to its group must keep every
// member's read size within 16 KiB. For a new group leader pass leader ==
// event's read_format and no siblings; otherwise the leader's read_format and
// those of its current siblings.
//
// kernel/events/core.c: perf_event_validate_size()
func CheckValidateSize(eventRF, leaderRF uint64, siblingRFs []uint64, newLeader bool) error {
	n := len(siblingRFs) + 1 // group_leader->nr_siblings + 1
	if newLeader {
		n = 1
	}
	if ReadSize(eventRF, n) > 16*1024 || ReadSize(leaderRF, n) > 16*1024 {
		return uapi.E2BIG
	}
	if newLeader {
		return nil
	}
	for _, rf := range siblingRFs {
		if ReadSize(rf, n) > 16*1024 {
			return uapi.E2BIG
		}
	}
	return nil
}

// AuxLeader describes the group leader for perf_get_aux_event().
type AuxLeader struct {
	Capabilities   uint32 // leader PMU's PERF_PMU_CAP_*
	HasSnapshotAux bool   // leader PMU's ->snapshot_aux
	// AuxOutputMatch is perf_aux_output_match(event, leader): the leader has
	// an AUX PMU and the event's PMU's ->aux_output_match() accepts it.
	AuxOutputMatch bool
	Dead           bool // atomic_long_inc_not_zero(&leader->refcount) fails
}

// CheckAuxEvent is step 25: an event that needs an AUX event (aux_output,
// aux_sample_size, aux_pause, aux_resume) must be in a group whose leader can
// serve it. leader is nil for an event opened without a group leader
// (including PERF_FLAG_FD_NO_GROUP).
//
// kernel/events/core.c: perf_need_aux_event() && !perf_get_aux_event() -> -EINVAL
func CheckAuxEvent(attr *Attr, leader *AuxLeader) error {
	if !attr.NeedAuxEvent() {
		return nil
	}
	switch {
	case leader == nil: // "Our group leader must be an aux event"
	case attr.AuxOutput && attr.AuxSampleSize != 0: // mutually exclusive
	case attr.AuxOutput && !leader.AuxOutputMatch:
	case (attr.AuxPause || attr.AuxResume) && leader.Capabilities&PERF_PMU_CAP_AUX_PAUSE == 0:
	case attr.AuxSampleSize != 0 && !leader.HasSnapshotAux:
	case leader.Dead:
	default:
		return nil
	}
	return uapi.EINVAL
}
