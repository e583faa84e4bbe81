package perftool

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

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
	ro, err := parseArgs(args, uint32(opts.Sysctl.MaxSampleRate))
	if err != nil {
		return nil, err
	}
	r := &Record{Target: ro.target, Overwrite: ro.overwrite, Output: ro.output, Argv: append([]string(nil), args...), Tool: opts.Tool, NrCPUs: opts.NrCPUs}
	// cmd_record(): --buildid-mmap sets rec->no_buildid (the build ids go in
	// MMAP2, not in the header); so does -B.
	r.BuildIDTable = !ro.noBuildID && !ro.buildIDMmapOn(opts.Tool == ToolPerf61)
	r.BuildIDAll = ro.buildIDAll
	r.NoBuildIDCache = ro.noBuildIDCache
	r.AllCgroups = ro.recordCgroup
	r.MmapData = ro.sampleAddress
	r.Verbosity = ro.verbose
	r.Affinity = ro.affinity
	if ro.quiet {
		r.Verbosity = -1 // perf_quiet_option()
	}
	if r.InitialDelay, err = initialDelay(ro); err != nil {
		return nil, err
	}
	for _, m := range ro.messages {
		if !m.Note && !strings.HasPrefix(m.Text, "info: ") {
			r.Warnings = append(r.Warnings, m.Text)
		}
		r.Messages = append(r.Messages, m)
	}
	for _, c := range r.Target.CPUList {
		if c >= opts.NrCPUs {
			// record__mmap_cpu_mask_init(): -ENODEV past the last CPU;
			// perf exits 237 after record__init_thread_masks() says so
			return nil, errf("-C", "Failed to initialize parallel data streaming masks (cpu %d: the machine has %d CPUs)", c, opts.NrCPUs)
		}
	}
	// cmd_record(): "if (rec->opts.target.tid && !rec->opts.no_inherit_set) rec->opts.no_inherit = true;"
	// (before target__validate() copies the pids into tid: -p keeps inherit)
	if r.Target.TID != nil && !ro.noInheritSet {
		ro.noInherit = true
	}
	validateTarget(r)
	if err := checkCgroupTarget(r, ro); err != nil {
		return nil, err
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
	evCount := []int{len(p.evsels)} // the evsels the first i -e options made
	var ends []int                  // the evsels after each -e (for --filter)
	for _, e := range ro.events {
		if err := p.parse(e); err != nil {
			var xe *ExitError
			if errors.As(err, &xe) { // perf gives up: a session that fails, not a refused scenario
				return &Record{Target: r.Target, Output: r.Output, Argv: r.Argv, Tool: r.Tool, NrCPUs: r.NrCPUs, Exit: xe}, nil
			}
			return nil, err
		}
		evCount = append(evCount, len(p.evsels))
		ends = append(ends, len(p.evsels))
	}
	r.Evsels = p.evsels
	if err := applyCgroups(r, ro, evCount); err != nil {
		return nil, err
	}
	if xe := applyCmdFilters(r, ro, ends); xe != nil {
		return &Record{Target: r.Target, Output: r.Output, Argv: r.Argv, Tool: r.Tool, NrCPUs: r.NrCPUs, Exit: xe}, nil
	}

	freq, interval, err := configFreq(r, ro, &opts)
	if err != nil {
		return nil, err
	}

	// mmap sizes
	r.MmapPages = defaultMmapPages(opts.Sysctl)
	if ro.mmapPages > 0 {
		r.MmapPages = ro.mmapPages
	}
	auxArg := ""
	if ro.auxSet {
		auxArg = strconv.Itoa(ro.auxPages) // parsed (and rounded) with -m
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

// configFreq models tools/perf/util/record.c: record_opts__config_freq():
// the sample frequency or period every event gets, with perf's warnings
// about perf_event_max_sample_rate.
func configFreq(r *Record, ro *recordOpts, opts *Options) (freq, interval uint64, err error) {
	freq = 4000 // record.opts.freq
	if ro.userIntervalS && ro.userFreqS {
		return 0, 0, errf("-c/-F", "cannot set frequency and period at the same time")
	}
	if ro.userIntervalS {
		interval = ro.userInterval // opts->default_interval
	}
	if ro.userFreqS {
		freq = uint64(ro.userFreq)
	}
	// User specified count overrides default frequency.
	if interval != 0 {
		freq = 0
	} else if freq == 0 {
		return 0, 0, errf("-c/-F", "frequency and count are zero, aborting")
	}
	maxRate := uint64(uint32(opts.Sysctl.MaxSampleRate))
	if ro.userFreqS && maxRate < freq {
		if ro.strictFreq {
			return 0, 0, errf("-F", "error: Maximum frequency rate (%d Hz) exceeded.\n"+
				"       Please use -F freq option with a lower value or consider\n"+
				"       tweaking /proc/sys/kernel/perf_event_max_sample_rate.", maxRate)
		}
		r.warn("-F", fmt.Sprintf("warning: Maximum frequency rate (%d Hz) exceeded, throttling from %d Hz to %d Hz.\n"+
			"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"+
			"         The kernel will lower it when perf's interrupts take too long.\n"+
			"         Use --strict-freq to disable this throttling, refusing to record.", maxRate, freq, maxRate))
		freq = maxRate
	}
	// Default frequency is over current maximum.
	if maxRate < freq {
		if opts.Tool == ToolPerf61 {
			r.warn("", fmt.Sprintf("Lowering default frequency rate from %d to %d.\n"+
				"Please consider tweaking /proc/sys/kernel/perf_event_max_sample_rate.", freq, maxRate))
		} else {
			r.warn("", fmt.Sprintf("Lowering default frequency rate to %d.\n"+
				"Please consider tweaking /proc/sys/kernel/perf_event_max_sample_rate.", maxRate))
		}
		freq = maxRate
	}
	return freq, interval, nil
}

// sideBandEvsel models tools/perf/util/bpf-event.c: evlist__add_bpf_sb_event():
// a dummy with bpf_event, watermark and wakeup_watermark 1 on every CPU.
func sideBandEvsel(opts *Options) Evsel {
	a := pmu.Attr{
		Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_DUMMY, Size: attrSize(opts.Tool),
		SampleIDAll: true, Watermark: true, BPFEvent: true, WakeupEvents: 1,
	}
	return Evsel{Name: "dummy:u", Attr: a, SystemWide: true, isDummy: true, toolDummy: true, PMU: "software"}
}

// newTrackingDummy models evlist__add_aux_dummy() (today: "dummy:u") or
// evlist__add_dummy() (perf 6.1: no excludes, so evsel__name() gives it
// the :HG that __evsel__add_modifiers() appends when neither guest nor
// host is excluded).
func newTrackingDummy(opts *Options, systemWide bool) Evsel {
	a := pmu.Attr{Type: uapi.PERF_TYPE_SOFTWARE, Config: uapi.PERF_COUNT_SW_DUMMY, Size: attrSize(opts.Tool), SamplePeriod: 1}
	name := "dummy:HG"
	if opts.Tool != ToolPerf61 {
		a.ExcludeKernel, a.ExcludeGuest, a.ExcludeHV = true, true, true
		name = "dummy:u"
	}
	return Evsel{Name: name, Attr: a, SystemWide: systemWide, isDummy: true, toolDummy: true, PMU: "software"}
}

// configTrackingEvents models builtin-record.c: record__config_tracking_events():
// system-wide (or -C) recording moves the side-band tracking onto a dummy
// event; with -C today's tool opens it on all CPUs.
func configTrackingEvents(r *Record, opts *Options) error {
	// "For initial_delay, system wide or a hybrid system, we need to add a
	// dummy event so that we can track PERF_RECORD_MMAP to cover the delay
	// of waiting or event synthesis."
	if !r.Target.HasCPU() && r.InitialDelay == 0 {
		return nil
	}
	// "Enable the dummy event when the process is forked for
	// initial_delay, immediately for system wide."
	onExec := r.InitialDelay != 0 && !r.Target.HasCPU()
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
		if onExec && !r.Evsels[ti].Immediate {
			r.Evsels[ti].enableOnExec = true
		} else {
			r.Evsels[ti].Immediate = true
		}
		return nil
	}
	for i := range r.Evsels {
		r.Evsels[i].Tracking = false
	}
	d := newTrackingDummy(opts, systemWide)
	d.Tracking, d.Immediate, d.enableOnExec, d.Leader = true, !onExec, onExec, len(r.Evsels)
	r.Evsels = append(r.Evsels, d)
	return nil
}

// initialDelay is -D's msecs, as str_to_delay() reads them: the whole
// string a number from -1 (start disabled for good) up to INT_MAX, not 0.
// Anything else is read as time ranges ("-D 10-20,30-40", which the
// simulator does not model: refused as such), or is perf's usage error
// (exit 129: "-D 0", "-D -5", "-D 2x"). The Debian perf 6.1 on this
// machine reads -D so too (its -h names the ranges).
// tools/perf/util/evlist.c: evlist__parse_event_enable_time(), str_to_delay(), parse_event_enable_times()
func initialDelay(ro *recordOpts) (int, error) {
	if ro.delay == nil {
		return 0, nil
	}
	v := *ro.delay
	_, rest := strtoull(v)
	if d := strtol(v); rest == "" && d != 0 && d >= -1 && d <= math.MaxInt32 {
		return int(d), nil
	}
	if delayRanges.MatchString(v) {
		return 0, errf(ro.delayOpt, "%q: -D time ranges (perf's event_enable_timer) are not supported by the simulator; give msecs (-1: start disabled)", v)
	}
	return 0, errf(ro.delayOpt, "%q is not a delay: perf prints its usage and exits 129 (-D takes msecs, 1 or more, or -1 to start disabled, or ranges START-END,...)", v)
}

// delayRanges is the shape parse_event_enable_times() reads: START-END
// pairs of msecs, comma separated.
var delayRanges = regexp.MustCompile(`^[0-9]+-[0-9]+(,[0-9]+-[0-9]+)*$`)
