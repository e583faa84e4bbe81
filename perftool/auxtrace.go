package perftool

import (
	"strconv"
	"strings"

	"perfsim/pmu"
	"perfsim/uapi"
)

// auxConfig applies the AUX area tracing recording options of the Intel PT
// and CoreSight ETM tool drivers.
type auxConfig struct {
	opts         *Options
	ro           *recordOpts
	r            *Record
	fullAuxtrace bool
}

func isAuxEvsel(e *Evsel) bool { return e.PMU == intelPT.name || e.PMU == csETM.name }

// recordingOptions models tools/perf/arch/x86/util/intel-pt.c:
// intel_pt_recording_options() and arch/arm/util/cs-etm.c: cs_etm_recording_options()
// (the parts that shape attrs and buffers), plus auxtrace_parse_snapshot_options()
// and auxtrace_parse_sample_options().
func (c *auxConfig) recordingOptions(auxArg string, freq, interval uint64) error {
	r, ro := c.r, c.ro
	aux := -1
	for i := range r.Evsels {
		if isAuxEvsel(&r.Evsels[i]) {
			if aux >= 0 && r.Evsels[aux].PMU != r.Evsels[i].PMU {
				return errf("-e", "too many AUX area tracing PMUs")
			}
			if aux >= 0 {
				return errf("-e", "there may be only one %s event", r.Evsels[i].PMU)
			}
			aux = i
		}
	}
	if aux < 0 {
		if ro.snapshot != nil {
			return errf("-S", "No AUX area tracing to snapshot")
		}
		if ro.auxSample != nil {
			return errf("--aux-sample", "No AUX area event to sample")
		}
		return nil
	}
	if ro.snapshot != nil && ro.auxSample != nil {
		return errf("--aux-sample", "AUX area sampling and snapshot mode are mutually exclusive")
	}
	if ro.overwrite {
		// evsel__config() makes every event write_backward; the AUX event
		// would then need a backward data buffer shared with its PERF_RECORD_AUX.
		return errf("--overwrite", "cannot be used with AUX area tracing (%s)", r.Evsels[aux].PMU)
	}
	if ro.snapshot != nil {
		s := &Snapshot{}
		str := *ro.snapshot
		// auxtrace_parse_snapshot_options(): the PMU-agnostic 'e' first
		if strings.HasPrefix(str, "e") {
			s.OnExit, str = true, str[1:]
		}
		if str != "" {
			n, err := strconv.ParseUint(str, 0, 64)
			if err != nil {
				return errf("-S", "invalid snapshot size '%s'", *ro.snapshot)
			}
			s.Size = n
		}
		r.Snapshot = s
	}
	a := &r.Evsels[aux].Attr
	perCPU := !r.Target.PerThread
	// auxtrace_parse_sample_options() runs before the PMU's recording_options
	// (record__auxtrace_init()): the sample sizes are known here.
	if ro.auxSample != nil {
		if err := c.auxSampleOptions(aux); err != nil {
			return err
		}
	}
	maxSample, _ := auxSampleMaxMin(r) // non-zero: opts->auxtrace_sample_mode
	// Every AUX evsel sets opts->full_auxtrace, sample mode or not.
	c.fullAuxtrace = true
	a.Freq, a.SamplePeriod = false, 1
	// AUX buffer size: "-m ,N", in intel_pt sample mode the largest sample
	// (auxtrace_sample.go), or the driver default (4 MiB privileged, 128 KiB otherwise).
	if auxArg != "" {
		n, _, err := parsePages(auxArg)
		if err != nil {
			return err
		}
		r.AuxPages = n
	}
	if maxSample != 0 && r.Evsels[aux].PMU == intelPT.name {
		if err := c.ptSampleModeOptions(aux, auxArg != ""); err != nil {
			return err
		}
	} else if auxArg == "" {
		if c.opts.Privileged {
			r.AuxPages = (4 << 20) / pmu.PageSize
		} else {
			r.AuxPages = (128 << 10) / pmu.PageSize
		}
	}
	if r.Evsels[aux].PMU == intelPT.name && ro.snapshot == nil && maxSample == 0 {
		// intel_pt_recording_options(): wake the reader at a quarter of the AUX area
		a.AuxWatermark = uint32(uint64(r.AuxPages) * pmu.PageSize / 4)
	}
	if r.Evsels[aux].PMU == csETM.name && perCPU && c.fullAuxtrace {
		// cs_etm_recording_options(): timestamps and contextid for per-cpu tracing
		_ = setFormat(a, csETM.formats["timestamp"], 1)
		_ = setFormat(a, csETM.formats["contextid"], 1)
	}
	// "To obtain the auxtrace buffer file descriptor, the auxtrace event must come first."
	c.toFront(aux)
	if perCPU {
		r.Evsels[0].Attr.SampleType |= uapi.PERF_SAMPLE_CPU
	}
	// "Add dummy event to keep tracking"
	needSystemWide := r.Target.CPUList != nil && !r.Evsels[0].Attr.ExcludeUser
	d := newTrackingDummy(c.opts, needSystemWide)
	d.Name = "dummy:u"
	d.Attr.ExcludeKernel, d.Attr.ExcludeGuest, d.Attr.ExcludeHV = true, true, true
	if perCPU {
		d.Attr.SampleType |= uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CPU
	}
	if r.Target.HasCPU() {
		d.Immediate = true
	}
	for i := range r.Evsels {
		r.Evsels[i].Tracking = false
	}
	d.Tracking, d.Leader = true, len(r.Evsels)
	r.Evsels = append(r.Evsels, d)
	return nil
}

// toFront models tools/perf/util/evlist.c: evlist__to_front() for the AUX
// event's group.
func (c *auxConfig) toFront(aux int) {
	r := c.r
	leader := r.Evsels[aux].Leader
	var front, rest []Evsel
	var frontIdx, restIdx []int
	for i := range r.Evsels {
		if r.Evsels[i].Leader == leader {
			front, frontIdx = append(front, r.Evsels[i]), append(frontIdx, i)
		} else {
			rest, restIdx = append(rest, r.Evsels[i]), append(restIdx, i)
		}
	}
	newIdx := map[int]int{}
	for n, old := range append(frontIdx, restIdx...) {
		newIdx[old] = n
	}
	all := append(front, rest...)
	for i := range all {
		all[i].Leader = newIdx[all[i].Leader]
	}
	r.Evsels = all
}

// auxSampleOptions models tools/perf/util/auxtrace.c: auxtrace_parse_sample_options()
// and auxtrace_validate_aux_sample_size(): every non-AUX member of the AUX
// event's group samples sz bytes of AUX data, unless its own aux-sample-size
// term says otherwise ("Override with aux_sample_size from config term").
func (c *auxConfig) auxSampleOptions(aux int) error {
	r := c.r
	sz := uint64(4096) // DEFAULT_AUX_SAMPLE_SIZE
	if *c.ro.auxSample != "" {
		n, err := strconv.ParseUint(*c.ro.auxSample, 0, 64)
		if err != nil {
			return errf("--aux-sample", "bad AUX area sampling option: '%s'", *c.ro.auxSample)
		}
		sz = n
	}
	if sz > 60<<10 { // MAX_AUX_SAMPLE_SIZE
		return errf("--aux-sample", "AUX area sample size %d too big, max. 61440", sz)
	}
	found := false
	for i := range r.Evsels {
		e := &r.Evsels[i]
		if e.Leader == r.Evsels[aux].Leader && i != aux && r.Evsels[aux].Leader == aux {
			if !e.hasTerm("aux-sample-size") {
				e.auxSample = uint32(sz)
			}
			found = found || e.auxSample != 0
		}
	}
	if !found {
		return errf("--aux-sample", "AUX area sampling requires an AUX area event group leader plus other events to sample")
	}
	return nil
}

// applyAuxTerms sets aux-action and aux-sample-size before evsel__config()
// (the tool applies them in auxtrace, and evsel__apply_config_terms() skips
// them). An event carrying one of them that is not in an AUX group is moved
// into the group of the last AUX event before it, as the tool does for
// `-e intel_pt// -e instructions/aux-action=resume/`.
//
// tools/perf/util/auxtrace.c: auxtrace_parse_aux_action(), auxtrace_validate_aux_sample_size()
func (c *auxConfig) applyAuxTerms() error {
	r := c.r
	lastAux := -1
	for i := range r.Evsels {
		e := &r.Evsels[i]
		if isAuxEvsel(e) {
			lastAux = i
		}
		// An event with aux-action or aux-sample-size outside an AUX group
		// joins the group of the last AUX area event before it.
		if (e.auxAction == "pause" || e.auxAction == "resume" || e.auxSample != 0) &&
			!isAuxEvsel(e) && !isAuxEvsel(&r.Evsels[e.Leader]) && lastAux >= 0 &&
			e.Leader == i && groupSize(r, i) == 1 {
			e.Leader = r.Evsels[lastAux].Leader
		}
		leaderAux := isAuxEvsel(&r.Evsels[e.Leader])
		switch e.auxAction {
		case "start-paused":
			if !isAuxEvsel(e) {
				return errf("aux-action=start-paused", "%s: only an AUX area event can start paused", e.Name)
			}
			e.Attr.AuxStartPaused = true
		case "pause", "resume":
			if isAuxEvsel(e) || !leaderAux {
				return errf("aux-action="+e.auxAction, "%s: requires an AUX area event as group leader", e.Name)
			}
			e.Attr.AuxPause = e.auxAction == "pause"
			e.Attr.AuxResume = e.auxAction == "resume"
		}
		if e.auxSample != 0 {
			if isAuxEvsel(e) || !leaderAux {
				return errf("aux-sample-size", "%s: AUX area sampling requires an AUX area event group leader", e.Name)
			}
			e.Attr.AuxSampleSize = e.auxSample
			e.Attr.SampleType |= uapi.PERF_SAMPLE_AUX
		}
	}
	return nil
}
