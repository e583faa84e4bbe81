package pmu

import (
	"testing"

	"perfsim/uapi"
)

var (
	capsSW = PMUCaps{} // perf_swevent: no capabilities
	capsPT = PMUCaps{  // arch/x86/events/intel/pt.c
		Capabilities:   PERF_PMU_CAP_EXCLUSIVE | PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_AUX_PAUSE,
		HasSnapshotAux: true,
	}
	capsETM = PMUCaps{ // drivers/hwtracing/coresight/coresight-etm-perf.c
		Capabilities: PERF_PMU_CAP_EXCLUSIVE | PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_AUX_PAUSE,
	}
	capsCore = PMUCaps{ // arch/x86/events/core.c, PEBS capable core PMU
		Capabilities: PERF_PMU_CAP_EXTENDED_REGS | PERF_PMU_CAP_AUX_OUTPUT,
		CheckPrecise: true, MaxPreciseIP: 2,
	}
	capsUncore = PMUCaps{TaskCtxInvalid: true, Capabilities: PERF_PMU_CAP_NO_EXCLUDE | PERF_PMU_CAP_NO_INTERRUPT}
)

func TestCheckAllocPMU(t *testing.T) {
	tests := []struct {
		name      string
		attr      func(*Attr)
		caps      PMUCaps
		hasTask   bool
		hasCgroup bool
		isChild   bool
		want      error
	}{
		{name: "x86_pmu_hw_config: precise_ip > max_precise", attr: func(a *Attr) { a.PreciseIP = 3 }, caps: capsCore, hasTask: true, want: uapi.EOPNOTSUPP},
		{name: "x86_pmu_hw_config: precise_ip == max_precise", attr: func(a *Attr) { a.PreciseIP = 2 }, caps: capsCore, hasTask: true, want: nil},
		{name: "software PMU ignores precise_ip", attr: func(a *Attr) { a.PreciseIP = 3 }, caps: capsSW, hasTask: true, want: nil},
		{name: "perf_try_init_event: extended regs without CAP_EXTENDED_REGS", attr: func(a *Attr) { a.SampleRegsIntr = 1 << 32 }, caps: capsSW, hasTask: true, want: uapi.EOPNOTSUPP},
		{name: "perf_try_init_event: extended regs with CAP_EXTENDED_REGS", attr: func(a *Attr) { a.SampleRegsUser = 1 << 40 }, caps: capsCore, hasTask: true, want: nil},
		{name: "perf_try_init_event: CAP_NO_EXCLUDE && exclude flag", caps: capsUncore, want: uapi.EINVAL},
		{name: "uncore (perf_invalid_context) && task", attr: func(a *Attr) { a.ExcludeKernel, a.ExcludeHV = false, false }, caps: capsUncore, hasTask: true, want: uapi.EINVAL},
		{name: "uncore (perf_invalid_context) && cgroup", attr: func(a *Attr) { a.ExcludeKernel, a.ExcludeHV = false, false }, caps: capsUncore, hasCgroup: true, want: uapi.EINVAL},
		{name: "aux_output && !CAP_AUX_OUTPUT", attr: func(a *Attr) { a.AuxOutput = true }, caps: capsSW, hasTask: true, want: uapi.EOPNOTSUPP},
		{name: "aux_output && aux_pause", attr: func(a *Attr) { a.AuxOutput, a.AuxPause = true, true }, caps: capsCore, hasTask: true, want: uapi.EOPNOTSUPP},
		{name: "aux_output with CAP_AUX_OUTPUT", attr: func(a *Attr) { a.AuxOutput = true }, caps: capsCore, hasTask: true, want: nil},
		{name: "aux_pause && aux_resume", attr: func(a *Attr) { a.AuxPause, a.AuxResume = true, true }, caps: capsCore, hasTask: true, want: uapi.EINVAL},
		{name: "aux_output checked before aux_pause && aux_resume", attr: func(a *Attr) { a.AuxOutput, a.AuxPause, a.AuxResume = true, true, true }, caps: capsCore, hasTask: true, want: uapi.EOPNOTSUPP},
		{name: "aux_start_paused && !CAP_AUX_PAUSE", attr: func(a *Attr) { a.AuxStartPaused = true }, caps: capsCore, hasTask: true, want: uapi.EOPNOTSUPP},
		{name: "aux_start_paused on intel_pt", attr: func(a *Attr) { a.AuxStartPaused = true }, caps: capsPT, hasTask: true, want: nil},
		{name: "get_callchain_buffers: sample_max_stack > max_stack -> EOVERFLOW", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_CALLCHAIN
			a.SampleMaxStack = 128
		}, caps: capsSW, hasTask: true, want: uapi.EOVERFLOW},
		{name: "get_callchain_buffers: not for inherited children", attr: func(a *Attr) {
			a.SampleType |= uapi.PERF_SAMPLE_CALLCHAIN
			a.SampleMaxStack = 128
		}, caps: capsSW, hasTask: true, isChild: true, want: nil},
		{name: "sample_max_stack without CALLCHAIN is not checked", attr: func(a *Attr) { a.SampleMaxStack = 1000 }, caps: capsSW, hasTask: true, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := okAttr()
			if tt.attr != nil {
				tt.attr(&a)
			}
			if got := CheckAllocPMU(&a, tt.caps, tt.hasTask, tt.hasCgroup, tt.isChild, DefaultSysctl(2)); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCheckSamplingAndClock(t *testing.T) {
	counting := okAttr()
	counting.Freq, counting.SamplePeriod = false, 0
	sampling := okAttr()
	clock := func(id int32) *Attr { a := okAttr(); a.UseClockid, a.Clockid = true, id; return &a }
	tests := []struct {
		name string
		got  error
		want error
	}{
		{"is_sampling_event && CAP_NO_INTERRUPT", CheckSamplingPMU(&sampling, capsUncore), uapi.EOPNOTSUPP},
		{"counting event on CAP_NO_INTERRUPT", CheckSamplingPMU(&counting, capsUncore), nil},
		{"perf_event_set_clock: unknown clockid", CheckClock(clock(3), capsSW), uapi.EINVAL},
		{"perf_event_set_clock: CLOCK_MONOTONIC_RAW is NMI safe", CheckClock(clock(CLOCK_MONOTONIC_RAW), capsCore), nil},
		{"perf_event_set_clock: CLOCK_REALTIME on an NMI PMU", CheckClock(clock(CLOCK_REALTIME), capsCore), uapi.EINVAL},
		{"perf_event_set_clock: CLOCK_TAI on CAP_NO_NMI", CheckClock(clock(CLOCK_TAI), PMUCaps{Capabilities: PERF_PMU_CAP_NO_NMI}), nil},
		{"no use_clockid: clockid ignored", CheckClock(&sampling, capsCore), nil},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestCheckValidateSize(t *testing.T) {
	all := uint64(uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING | uapi.PERF_FORMAT_ID | uapi.PERF_FORMAT_LOST | uapi.PERF_FORMAT_GROUP)
	// ReadSize(all, n) = 8+8+8 + (n+1)*24 : 16384 allows n+1 <= 681.
	sibs := func(n int, rf uint64) []uint64 {
		s := make([]uint64, n)
		for i := range s {
			s[i] = rf
		}
		return s
	}
	tests := []struct {
		name string
		got  error
		want error
	}{
		{"__perf_event_read_size: new leader", CheckValidateSize(all, all, nil, true), nil},
		{"group of 681 with GROUP|ID|LOST|times fits 16k", CheckValidateSize(all, all, sibs(679, 0), false), nil},
		{"group of 682: event read_size > 16k -> E2BIG", CheckValidateSize(all, 0, sibs(680, 0), false), uapi.E2BIG},
		{"leader's read_format is rechecked", CheckValidateSize(0, all, sibs(680, 0), false), uapi.E2BIG},
		{"siblings' read_format are rechecked", CheckValidateSize(0, 0, append(sibs(679, 0), all), false), uapi.E2BIG},
		{"without GROUP the size does not grow", CheckValidateSize(uapi.PERF_FORMAT_ID, uapi.PERF_FORMAT_ID, sibs(5000, uapi.PERF_FORMAT_ID), false), nil},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if got := ReadSize(all, 679); got != 24+680*24 {
		t.Errorf("ReadSize = %d", got)
	}
}

func TestCheckAuxEvent(t *testing.T) {
	pt := &AuxLeader{Capabilities: capsPT.Capabilities, HasSnapshotAux: true, AuxOutputMatch: true}
	etm := &AuxLeader{Capabilities: capsETM.Capabilities}
	noPause := &AuxLeader{HasSnapshotAux: true, AuxOutputMatch: true}
	with := func(f func(*Attr)) *Attr { a := okAttr(); f(&a); return &a }
	tests := []struct {
		name   string
		attr   *Attr
		leader *AuxLeader
		want   error
	}{
		{"no aux need: no leader required", with(func(*Attr) {}), nil, nil},
		{"perf_get_aux_event: !group_leader", with(func(a *Attr) { a.AuxResume = true }), nil, uapi.EINVAL},
		{"aux_output && aux_sample_size", with(func(a *Attr) { a.AuxOutput, a.AuxSampleSize = true, 4096 }), pt, uapi.EINVAL},
		{"aux_output && !perf_aux_output_match", with(func(a *Attr) { a.AuxOutput = true }), etm, uapi.EINVAL},
		{"aux_output matched", with(func(a *Attr) { a.AuxOutput = true }), pt, nil},
		{"aux_pause && leader !CAP_AUX_PAUSE", with(func(a *Attr) { a.AuxPause = true }), noPause, uapi.EINVAL},
		{"aux_resume with intel_pt leader", with(func(a *Attr) { a.AuxResume = true }), pt, nil},
		{"aux_sample_size && leader has no snapshot_aux (CoreSight)", with(func(a *Attr) { a.AuxSampleSize = 8192 }), etm, uapi.EINVAL},
		{"aux_sample_size with intel_pt leader", with(func(a *Attr) { a.AuxSampleSize = 8192 }), pt, nil},
		{"leader refcount already zero", with(func(a *Attr) { a.AuxPause = true }), &AuxLeader{Capabilities: PERF_PMU_CAP_AUX_PAUSE, Dead: true}, uapi.EINVAL},
	}
	for _, tt := range tests {
		if got := CheckAuxEvent(tt.attr, tt.leader); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
