package perftool

import (
	"strconv"

	"perfsim/pmu"
	"perfsim/uapi"
)

// evlistConfig models tools/perf/util/record.c: evlist__config().
func evlistConfig(r *Record, ro *recordOpts, opts *Options, freq, interval uint64, fullAuxtrace bool) error {
	noInherit := ro.noInherit
	if r.Target.PerThread {
		// "if (perf_cpu_map__cpu(evlist->core.user_requested_cpus, 0).cpu < 0) opts->no_inherit = true;"
		noInherit = true
	}
	for i := range r.Evsels {
		if err := evselConfig(r, i, ro, opts, freq, interval, noInherit); err != nil {
			return err
		}
		if r.Evsels[i].Tracking {
			r.Evsels[i].Attr.CommExec = true // perf_can_comm_exec()
		}
	}
	for i := range r.Evsels {
		configLeaderSampling(r, i)
	}
	sampleID, useIdentifier := false, false
	if fullAuxtrace || ro.sampleIdentifier { // "Need to be able to synthesize and parse selected events with arbitrary sample types"
		sampleID, useIdentifier = true, true
	} else if len(r.Evsels) > 1 {
		for i := range r.Evsels {
			if r.Evsels[i].Attr.SampleType != r.Evsels[0].Attr.SampleType {
				useIdentifier = true
			}
		}
		sampleID = true
	}
	if sampleID {
		for i := range r.Evsels {
			setSampleID(&r.Evsels[i].Attr, useIdentifier)
		}
	}
	return nil
}

// setSampleID models tools/perf/util/evsel.c: evsel__set_sample_id().
func setSampleID(a *pmu.Attr, useIdentifier bool) {
	if useIdentifier {
		a.SampleType &^= uapi.PERF_SAMPLE_ID
		a.SampleType |= uapi.PERF_SAMPLE_IDENTIFIER
	} else {
		a.SampleType |= uapi.PERF_SAMPLE_ID
	}
	a.ReadFormat |= uapi.PERF_FORMAT_ID
}

func groupSize(r *Record, leader int) int {
	n := 0
	for i := range r.Evsels {
		if r.Evsels[i].Leader == leader {
			n++
		}
	}
	return n
}

// evselConfig models tools/perf/util/evsel.c: evsel__config().
func evselConfig(r *Record, i int, ro *recordOpts, opts *Options, freq, interval uint64, noInherit bool) error {
	e := &r.Evsels[i]
	a := &e.Attr
	track := e.Tracking
	perCPU := !r.Target.PerThread // default_per_cpu && !per_thread
	t61 := opts.Tool == ToolPerf61

	a.SampleIDAll = true
	if r.Target.HasCPU() && !t61 {
		a.Inherit = false // target__has_cpu() ? 0 : !no_inherit
	} else {
		a.Inherit = !noInherit
	}
	a.WriteBackward = ro.overwrite
	a.ReadFormat = uapi.PERF_FORMAT_LOST
	a.SampleType |= uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID

	if e.sampleRead {
		a.SampleType |= uapi.PERF_SAMPLE_READ
		setSampleID(a, false)
		if groupSize(r, e.Leader) > 1 {
			a.ReadFormat |= uapi.PERF_FORMAT_GROUP
			if t61 {
				a.Inherit = false // perf 6.1: group sample read cannot inherit
			}
		}
		if a.Inherit && !t61 {
			// "Inherit + SAMPLE_READ requires SAMPLE_TID in the read_format"
			a.SampleType |= uapi.PERF_SAMPLE_TID
			a.ReadFormat |= uapi.PERF_FORMAT_ID
		}
	}
	if a.SamplePeriod == 0 || ro.userFreqS || ro.userIntervalS {
		// evsel__set_default_freq_period()
		if freq != 0 {
			a.Freq, a.SamplePeriod = true, freq
		} else {
			a.Freq, a.SamplePeriod = false, interval
		}
	}
	if a.Freq {
		a.SampleType |= uapi.PERF_SAMPLE_PERIOD
	}
	if ro.inheritStat {
		// -s: per-task counts (sync_child_event()'s PERF_RECORD_READ, the
		// context swap's perf_event_sync_stat())
		a.ReadFormat |= uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING | uapi.PERF_FORMAT_ID
		a.InheritStat = true
	}
	if ro.sampleAddress {
		a.SampleType |= uapi.PERF_SAMPLE_ADDR
		a.MmapData = track
	}
	if ro.callgraph != nil && ro.callgraph.enabled && !e.isDummy {
		configCallchain(a, ro.callgraph, opts)
	}
	if r.Target.HasCPU() || ro.sampleCPU {
		a.SampleType |= uapi.PERF_SAMPLE_CPU
	}
	// opts->sample_time (default true; --no-timestamp clears it): "When the
	// user explicitly disabled time don't force it here."; -T forces it
	// with --no-inherit too (opts->sample_time_set)
	if !ro.noSampleTime && (!noInherit || r.Target.HasCPU() || perCPU || ro.sampleTimeSet) {
		a.SampleType |= uapi.PERF_SAMPLE_TIME
	}
	if ro.rawSamples && !e.isDummy {
		a.SampleType |= uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_RAW | uapi.PERF_SAMPLE_CPU
	}
	if ro.sampleDataSrc {
		a.SampleType |= uapi.PERF_SAMPLE_DATA_SRC
	}
	if ro.noBuffering {
		a.Watermark, a.WakeupEvents = false, 1
	}
	a.Task, a.Mmap, a.Mmap2, a.Comm = track, track, track, track
	// attr->build_id = track && opts->build_id: today's perf records build
	// ids in MMAP2 by default (record.buildid_mmap = true); perf 6.1 only
	// with --buildid-mmap.
	a.BuildID = track && ro.buildIDMmapOn(t61)
	a.ContextSwitch = track && ro.switchEvents // opts->record_switch_events
	if ro.recordCgroup {
		a.Cgroup = track // && !perf_missing_features.cgroup
		a.SampleType |= uapi.PERF_SAMPLE_CGROUP
	}
	a.Ksymbol = track
	a.BPFEvent = track && !ro.noBPFEvent
	if ro.callgraph != nil && ro.callgraph.deferred {
		a.DeferOutput = track // attr->defer_output = track && callchain && callchain->defer
	}
	if e.IsLeader(i) {
		a.Disabled = true
	}
	// "Setting enable_on_exec for independent events and group leaders
	// for traced executed by perf", unless -D delays them; the -D tracking
	// dummy has it set already (record__config_tracking_events())
	if r.Target.None() && e.IsLeader(i) && r.InitialDelay == 0 || e.enableOnExec {
		a.EnableOnExec = true
	}
	if e.Immediate {
		a.Disabled, a.EnableOnExec = false, false
	}
	if ro.runningTime {
		a.ReadFormat |= uapi.PERF_FORMAT_TOTAL_TIME_ENABLED | uapi.PERF_FORMAT_TOTAL_TIME_RUNNING
	}
	if e.precMax {
		a.PreciseIP = 3
	}
	if ro.allUser {
		a.ExcludeKernel, a.ExcludeUser = true, false
	}
	if ro.allKernel {
		a.ExcludeKernel, a.ExcludeUser = false, true
	}
	// "if (evsel->core.pmu_cpus || evsel->unit) read_format |= PERF_FORMAT_ID":
	// every event parsed from -e has CPUs (legacy, PMU and tracepoint events
	// alike; perf 6.1 prints ID|LOST for all of them in
	// testdata/{default-cpu-clock,tracepoint,raw-config}.golden), -e dummy
	// too. The tracking dummy the tool adds itself has none.
	if !e.toolDummy || !e.Tracking {
		a.ReadFormat |= uapi.PERF_FORMAT_ID
	}
	if err := applyConfigTerms(e, ro, opts, track); err != nil {
		return err
	}
	// "The --period option takes the precedence."
	if ro.periodSet {
		if ro.period {
			a.SampleType |= uapi.PERF_SAMPLE_PERIOD
		} else {
			a.SampleType &^= uapi.PERF_SAMPLE_PERIOD
		}
	}
	return nil
}

// configCallchain models tools/perf/util/evsel.c: __evsel__config_callchain().
func configCallchain(a *pmu.Attr, cc *callchain, opts *Options) {
	a.SampleType |= uapi.PERF_SAMPLE_CALLCHAIN
	a.SampleMaxStack = cc.maxStack
	switch cc.mode {
	case callchainLBR:
		if !a.ExcludeUser {
			a.SampleType |= uapi.PERF_SAMPLE_BRANCH_STACK
			a.BranchSampleType = uapi.PERF_SAMPLE_BRANCH_USER | uapi.PERF_SAMPLE_BRANCH_CALL_STACK |
				uapi.PERF_SAMPLE_BRANCH_NO_CYCLES | uapi.PERF_SAMPLE_BRANCH_NO_FLAGS | uapi.PERF_SAMPLE_BRANCH_HW_INDEX
		}
	case callchainDWARF:
		a.SampleType |= uapi.PERF_SAMPLE_REGS_USER | uapi.PERF_SAMPLE_STACK_USER
		// arch__user_reg_mask() on x86_64: PERF_REGS_MASK without DS/ES/FS/GS
		a.SampleRegsUser |= 0xff0fff
		a.SampleStackUser = cc.dumpSize
		a.ExcludeCallchainUser = true
	}
	if cc.deferred && !a.ExcludeCallchainUser {
		a.DeferCallchain = true
	}
}

// resetCallgraph models tools/perf/util/evsel.c: evsel__reset_callgraph():
// only the sample bits go; sample_regs_user, stack size and
// exclude_callchain_user stay.
func resetCallgraph(a *pmu.Attr, cc *callchain) {
	a.SampleType &^= uapi.PERF_SAMPLE_CALLCHAIN
	switch cc.mode {
	case callchainLBR:
		a.SampleType &^= uapi.PERF_SAMPLE_BRANCH_STACK
		a.BranchSampleType &^= uapi.PERF_SAMPLE_BRANCH_USER | uapi.PERF_SAMPLE_BRANCH_CALL_STACK | uapi.PERF_SAMPLE_BRANCH_HW_INDEX
	case callchainDWARF:
		a.SampleType &^= uapi.PERF_SAMPLE_REGS_USER | uapi.PERF_SAMPLE_STACK_USER
	}
}

// applyAttrTerm applies the terms that set one attr field alone: period,
// freq, inherit, overwrite, aux-output and their no- forms (the rest of
// evsel__apply_config_terms() is perf record's: applyConfigTerms).
func applyAttrTerm(a *pmu.Attr, key string, v uint64) {
	switch key {
	case "period":
		a.SamplePeriod, a.Freq = v, false
	case "freq":
		a.SamplePeriod, a.Freq = v, true
	case "inherit", "no-inherit":
		a.Inherit = key == "inherit"
	case "overwrite", "no-overwrite":
		a.WriteBackward = key == "overwrite"
	case "aux-output":
		a.AuxOutput = true
	}
}

// applyConfigTerms models tools/perf/util/evsel.c: evsel__apply_config_terms().
func applyConfigTerms(e *Evsel, ro *recordOpts, opts *Options, track bool) error {
	a := &e.Attr
	var cgBuf string
	var hasCG bool
	var dumpSize, maxStack uint64
	for _, t := range e.terms {
		v, _ := strconv.ParseUint(t.val, 0, 64)
		applyAttrTerm(a, t.key, v)
		switch t.key {
		case "period":
			a.SampleType &^= uapi.PERF_SAMPLE_PERIOD
		case "freq":
			a.SampleType |= uapi.PERF_SAMPLE_PERIOD
		case "time":
			if v != 0 {
				a.SampleType |= uapi.PERF_SAMPLE_TIME
			} else {
				a.SampleType &^= uapi.PERF_SAMPLE_TIME
			}
		case "call-graph":
			cgBuf, hasCG = t.val, true
		case "stack-size":
			dumpSize = v
		case "max-stack":
			maxStack = v
		}
	}
	if !hasCG && dumpSize == 0 && maxStack == 0 {
		return nil
	}
	param := &callchain{dumpSize: 8192}
	if ro.callgraph != nil {
		param.mode = ro.callgraph.mode
	}
	if maxStack != 0 {
		param.maxStack = uint16(min(maxStack, 0xffff))
		if !hasCG {
			cgBuf, hasCG = "fp", true
		}
	}
	sampleAddress := false
	if hasCG {
		if cgBuf == "no" {
			param.enabled, param.mode = false, callchainNone
		} else {
			p, err := parseCallchain(cgBuf, "call-graph="+cgBuf)
			if err != nil {
				return err
			}
			p.maxStack = max(p.maxStack, param.maxStack)
			if maxStack != 0 {
				p.maxStack = param.maxStack
			}
			param = p
			sampleAddress = p.mode == callchainDWARF
		}
	}
	if dumpSize > 0 {
		param.dumpSize = uint32((dumpSize + 7) &^ 7)
	}
	if ro.callgraph != nil && ro.callgraph.enabled {
		resetCallgraph(a, ro.callgraph)
	}
	if param.enabled {
		if sampleAddress {
			a.SampleType |= uapi.PERF_SAMPLE_ADDR | uapi.PERF_SAMPLE_DATA_SRC
			a.MmapData = track
		}
		configCallchain(a, param, opts)
	}
	return nil
}

// configLeaderSampling models tools/perf/util/record.c: evsel__config_leader_sampling().
func configLeaderSampling(r *Record, i int) {
	e := &r.Evsels[i]
	leader := &r.Evsels[e.Leader]
	if !leader.sampleRead {
		return
	}
	sampler := e.Leader
	if leader.PMU == intelPT.name || leader.PMU == csETM.name {
		for j := range r.Evsels {
			if r.Evsels[j].Leader == e.Leader && j != e.Leader {
				sampler = j
				break
			}
		}
	}
	if i == sampler {
		return
	}
	var hasFreq, hasOverwrite bool
	for _, t := range e.terms {
		hasFreq = hasFreq || t.key == "freq" || t.key == "period"
		hasOverwrite = hasOverwrite || t.key == "overwrite" || t.key == "no-overwrite"
	}
	if !hasFreq {
		e.Attr.Freq, e.Attr.SamplePeriod = false, 0
	}
	if !hasOverwrite {
		e.Attr.WriteBackward = false
	}
	e.Attr.SampleType = r.Evsels[sampler].Attr.SampleType | leader.Attr.SampleType
}
