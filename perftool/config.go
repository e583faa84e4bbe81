package perftool

import (
	"strconv"

	"perfsim/pmu"
	"perfsim/uapi"
)

// Parse turns a `perf record` argument vector (without the leading "perf
// record") into what perf opens and maps.
//
// tools/perf/builtin-record.c: cmd_record() -> record__open() -> evlist__config()
func Parse(args []string, opts Options) (*Record, error) {
	if opts.NrCPUs <= 0 {
		opts.NrCPUs = 1
	}
	if opts.Sysctl.MaxSampleRate == 0 {
		opts.Sysctl = pmu.DefaultSysctl(opts.NrCPUs)
	}
	ro, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	r := &Record{Target: ro.target, Overwrite: ro.overwrite, Output: ro.output}
	for _, c := range r.Target.CPUList {
		if c >= opts.NrCPUs {
			return nil, errf("-C", "cpu %d is not online (%d CPUs)", c, opts.NrCPUs)
		}
	}
	// target__validate(): THREAD and SYSTEM/CPU are mutually exclusive (a warning).
	if r.Target.PerThread && r.Target.HasCPU() {
		r.Target.PerThread = false
		r.Warnings = append(r.Warnings, "SYSTEM/CPU switch overriding PER-THREAD")
	}
	if r.Target.None() && len(r.Target.Workload) == 0 {
		return nil, errf("<command>", "no workload and no -a/-C target")
	}
	if ro.callgraph != nil && ro.callgraph.deferred && opts.Tool == ToolPerf61 {
		ro.callgraph.deferred = false // perf 6.1: strtoul("defer") is 0: ignored
	}

	p := &eventParser{opts: &opts}
	if len(ro.events) == 0 {
		// evlist__add_default(): "cycles:P"
		if err := p.parse("cycles:P"); err != nil {
			return nil, err
		}
	}
	for _, e := range ro.events {
		if err := p.parse(e); err != nil {
			return nil, err
		}
	}
	r.Evsels = p.evsels

	// record_opts__config_freq()
	freq, interval := uint64(4000), uint64(0)
	if ro.userIntervalS && ro.userFreqS {
		return nil, errf("-c/-F", "cannot set frequency and period at the same time")
	}
	if ro.userIntervalS {
		interval = ro.userInterval
	}
	if ro.userFreqS {
		freq = ro.userFreq
		if ro.freqMax {
			freq = uint64(opts.Sysctl.MaxSampleRate)
		}
	}
	if interval != 0 {
		freq = 0
	} else if freq == 0 {
		return nil, errf("-c/-F", "frequency and count are zero, aborting")
	}
	if maxRate := uint64(opts.Sysctl.MaxSampleRate); freq > maxRate {
		if ro.userFreqS && ro.strictFreq {
			return nil, &Error{Option: "-F", Reason: "Maximum frequency rate (" + strconv.FormatUint(maxRate, 10) + " Hz) exceeded", Errno: uapi.EINVAL}
		}
		r.Warnings = append(r.Warnings, "Maximum frequency rate exceeded, throttling to "+strconv.FormatUint(maxRate, 10)+" Hz")
		freq = maxRate
	}

	// mmap sizes
	r.MmapPages = defaultMmapPages(opts.Sysctl)
	auxArg := ""
	if ro.mmapSet {
		data, aux, _ := cut(ro.mmapArg, ',')
		auxArg = aux
		if data != "" {
			n, warn, err := parsePages(data)
			if err != nil {
				return nil, err
			}
			if warn != "" {
				r.Warnings = append(r.Warnings, warn)
			}
			r.MmapPages = n
		}
	}

	ac := &auxConfig{opts: &opts, ro: ro, r: r}
	if err := ac.recordingOptions(auxArg, freq, interval); err != nil {
		return nil, err
	}
	if err := ac.applyAuxTerms(); err != nil {
		return nil, err
	}
	if err := configTrackingEvents(r, &opts); err != nil {
		return nil, err
	}
	if err := evlistConfig(r, ro, &opts, freq, interval, ac.fullAuxtrace); err != nil {
		return nil, err
	}
	if !ro.noBPFEvent {
		r.SideBand = []Evsel{sideBandEvsel(&opts)}
		r.sideBandPages = defaultMmapPages(opts.Sysctl)
	}
	return r, nil
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// sideBandEvsel models tools/perf/util/bpf-event.c: evlist__add_bpf_sb_event():
// a dummy with bpf_event, watermark and wakeup_watermark 1 on every CPU.
func sideBandEvsel(opts *Options) Evsel {
	a := pmu.Attr{
		Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_DUMMY, Size: attrSize(opts.Tool),
		SampleIDAll: true, Watermark: true, BPFEvent: true, WakeupEvents: 1,
	}
	return Evsel{Name: "dummy:u", Attr: a, SystemWide: true, isDummy: true, PMU: "software"}
}

// newTrackingDummy models evlist__add_aux_dummy() (today: "dummy:u") or
// evlist__add_dummy() (perf 6.1: no excludes).
func newTrackingDummy(opts *Options, systemWide bool) Evsel {
	a := pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_DUMMY, Size: attrSize(opts.Tool), SamplePeriod: 1}
	name := "dummy"
	if opts.Tool != ToolPerf61 {
		a.ExcludeKernel, a.ExcludeGuest, a.ExcludeHV = true, true, true
		name = "dummy:u"
	}
	return Evsel{Name: name, Attr: a, SystemWide: systemWide, isDummy: true, PMU: "software"}
}

// configTrackingEvents models builtin-record.c: record__config_tracking_events():
// system-wide (or -C) recording moves the side-band tracking onto a dummy
// event; with -C today's tool opens it on all CPUs.
func configTrackingEvents(r *Record, opts *Options) error {
	if !r.Target.HasCPU() {
		return nil
	}
	systemWide := false
	if r.Target.CPUList != nil && opts.Tool != ToolPerf61 {
		// record__tracking_system_wide(): any non-dummy evsel
		for i := range r.Evsels {
			if !r.Evsels[i].isDummy {
				systemWide = true
			}
		}
	}
	ti := -1
	for i := range r.Evsels {
		if r.Evsels[i].Tracking {
			ti = i
		}
	}
	if ti >= 0 && r.Evsels[ti].isDummy {
		r.Evsels[ti].SystemWide = r.Evsels[ti].SystemWide || systemWide
		r.Evsels[ti].Immediate = true
		return nil
	}
	for i := range r.Evsels {
		r.Evsels[i].Tracking = false
	}
	d := newTrackingDummy(opts, systemWide)
	d.Tracking, d.Immediate, d.Leader = true, true, len(r.Evsels)
	r.Evsels = append(r.Evsels, d)
	return nil
}
