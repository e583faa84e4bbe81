package perftool

import (
	"math/bits"

	"perfsim/pmu"
)

// AUX area sampling on the tool side (--aux-sample, aux-sample-size): the
// sample sizes are settled before the PMU's recording_options run
// (record__auxtrace_init() -> auxtrace_parse_sample_options() comes before
// auxtrace_record__options() in cmd_record()), so that intel_pt can size the
// AUX area from them when -m ,N is not given.

// auxSampleMaxMin returns the largest and the smallest non-zero AUX sample
// size of the evsels (0, 0 when none samples AUX data).
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_min_max_sample_sz()
func auxSampleMaxMin(r *Record) (maxSz, minSz uint64) {
	for i := range r.Evsels {
		sz := uint64(r.Evsels[i].auxSample)
		if sz == 0 {
			continue
		}
		if minSz == 0 || sz < minSz {
			minSz = sz
		}
		maxSz = max(maxSz, sz)
	}
	return maxSz, minSz
}

// ptSampleAuxPages is the AUX area intel_pt maps in sample mode without -m ,N:
// the largest sample size rounded up to pages, then to a power of two.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_recording_options() ("Set default sizes for sample mode")
func ptSampleAuxPages(maxSz uint64) int {
	n := (maxSz + pmu.PageSize - 1) / pmu.PageSize // round_up(max_sz, page_size) / page_size
	if n <= 1 {
		return int(n) // roundup_pow_of_two(0) is undefined; 0 pages fails the 4 KiB check below
	}
	return 1 << bits.Len64(n-1) // roundup_pow_of_two()
}

// hasTerm reports whether the user gave the term key on the evsel
// (evsel__get_config_term()).
func (e *Evsel) hasTerm(key string) bool {
	for _, t := range e.terms {
		if t.key == key {
			return true
		}
	}
	return false
}

// ptSampleModeOptions is the sample-mode part of intel_pt_recording_options():
// psb_period 0 unless the user set it (a PSB in every small sample), the AUX
// area sized from the largest sample unless -m ,N gave it, and that size
// checked against it and against the 4 KiB minimum of a power of two.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_recording_options()
func (c *auxConfig) ptSampleModeOptions(aux int, auxArgGiven bool) error {
	r := c.r
	e := &r.Evsels[aux]
	if !e.hasTerm("psb_period") { // evsel__set_config_if_unset(intel_pt_pmu, intel_pt_evsel, "psb_period", 0)
		if err := setFormat(&e.Attr, intelPT.formats["psb_period"], 0); err != nil {
			return err
		}
	}
	maxSz, _ := auxSampleMaxMin(r)
	if !auxArgGiven {
		r.AuxPages = ptSampleAuxPages(maxSz)
	}
	mmapSz := uint64(r.AuxPages) * pmu.PageSize
	if maxSz > mmapSz {
		return errf("--aux-sample", "Sample size %d must not be greater than AUX area tracing mmap size %d", maxSz, mmapSz)
	}
	if mmapSz < 4<<10 || mmapSz&(mmapSz-1) != 0 {
		return errf("-m", "Invalid mmap size for Intel Processor Trace: must be at least 4KiB and a power of 2")
	}
	return nil
}
