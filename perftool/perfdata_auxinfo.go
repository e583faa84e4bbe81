package perftool

import (
	"encoding/binary"
	"slices"
)

// enum auxtrace_type (tools/perf/util/auxtrace.h).
const (
	auxtraceIntelPT = 1 // PERF_AUXTRACE_INTEL_PT
	auxtraceCSETM   = 3 // PERF_AUXTRACE_CS_ETM
)

// The simulated intel_pt PMU's caps (/sys/bus/event_source/devices/intel_pt/caps)
// that perf copies into AUXTRACE_INFO: a Sapphire Rapids at a 2 GHz TSC
// (SimTSCPerNs) with a 25 MHz crystal clock.
const (
	simMaxNonTurboRatio = 20  // caps/max_nonturbo_ratio: 2 GHz / 100 MHz
	simTSCCTCRatioN     = 160 // caps/tsc_art_ratio "160:2": CPUID.15H EBX:EAX
	simTSCCTCRatioD     = 2
)

// auxtraceInfoRecord is the session's PERF_RECORD_AUXTRACE_INFO {u32 type,
// u32 reserved, u64 priv[]}, or nil without an AUX area.
// tools/perf/util/auxtrace.c: perf_event__synthesize_auxtrace_info()
func (ss *Session) auxtraceInfoRecord() []byte {
	for i := range ss.R.Evsels {
		switch ss.R.Evsels[i].PMU {
		case intelPT.name:
			return auxtraceInfo(auxtraceIntelPT, ss.intelPTInfoPriv())
		case csETM.name:
			return auxtraceInfo(auxtraceCSETM, ss.csETMInfoPriv(&ss.R.Evsels[i]))
		}
	}
	return nil
}

func auxtraceInfo(typ uint32, priv []uint64) []byte {
	le := binary.LittleEndian
	b := userHeader(RecordAuxtraceInfo, 16+8*len(priv))
	b = le.AppendUint32(b, typ)
	b = le.AppendUint32(b, 0)
	for _, v := range priv {
		b = le.AppendUint64(b, v)
	}
	return b
}

// intelPTInfoPriv is intel_pt's priv[]: INTEL_PT_PMU_TYPE .. INTEL_PT_FILTER_STR_LEN
// (tools/perf/util/intel-pt.h) and the --filter string. The config bits are those
// of the PMU's format (tsc, noretcomp, mtc, cyc; mtc_period's mask);
// have_sched_switch is 2 when an evsel records context switches (the model's
// perf adds no switch evsel of its own), 0 otherwise.
// tools/perf/arch/x86/util/intel-pt.c: intel_pt_info_fill()
func (ss *Session) intelPTInfoPriv() []uint64 {
	bit := func(term string) uint64 { f := intelPT.formats[term]; return 1 << f.lo }
	mtcFreqBits := uint64(0) // perf_pmu__format_bits(): the mask of mtc_period
	for f, b := intelPT.formats["mtc_period"], intelPT.formats["mtc_period"].lo; b <= f.hi; b++ {
		mtcFreqBits |= 1 << b
	}
	haveSchedSwitch := uint64(0)
	for i := range ss.R.Evsels {
		if ss.R.Evsels[i].Attr.ContextSwitch {
			haveSchedSwitch = 2
		}
	}
	var snapshot, perCPU uint64
	if ss.R.Snapshot != nil {
		snapshot = 1
	}
	if !ss.R.Target.PerThread {
		perCPU = 1
	}
	priv := []uint64{
		uint64(intelPT.typ),                       // INTEL_PT_PMU_TYPE
		simTimeShift, simTimeMult, simTimeZero, 1, // time conversion, cap_user_time_zero
		bit("tsc"), bit("noretcomp"), haveSchedSwitch, snapshot, perCPU,
		bit("mtc"), mtcFreqBits, simTSCCTCRatioN, simTSCCTCRatioD, bit("cyc"),
		simMaxNonTurboRatio,
	}
	// INTEL_PT_FILTER_STR_LEN, then the filter string of the first
	// intel_pt evsel (intel_pt_find_filter()), NUL-terminated and padded
	// to 8 bytes (intel_pt_filter_bytes())
	var filter string
	for i := range ss.R.Evsels {
		if ss.R.Evsels[i].PMU == intelPT.name {
			filter = ss.kernelFilter(i)
			break
		}
	}
	priv = append(priv, uint64(len(filter)))
	if filter != "" {
		b := make([]byte, (len(filter)+1+7)/8*8)
		copy(b, filter)
		for i := 0; i < len(b); i += 8 {
			priv = append(priv, binary.LittleEndian.Uint64(b[i:]))
		}
	}
	return priv
}

// CoreSight ETMv4 metadata (tools/perf/util/cs-etm.h).
const (
	csHeaderCurrentVersion = 1
	csETMv4Magic           = 0x4040404040404040 // __perf_cs_etmv4_magic
	csETMv4NrTrcParams     = 8                  // CS_ETMV4_PRIV_MAX - CS_ETMV4_TRCCONFIGR (today: with TS_SOURCE)
	csETMv4NrTrcParams61   = 7                  // perf 6.1: no CS_ETMV4_TS_SOURCE
	// The ETM ID registers of the simulated cores (a Juno-class ETMv4.0
	// with 32-bit context ids and timestamps, as its sysfs mgmt/ and trcidr/
	// show them).
	simTRCIDR0       = 0x28000ea1
	simTRCIDR1       = 0x4100f403
	simTRCIDR2       = 0x00000488
	simTRCIDR8       = 0
	simTRCAUTHSTATUS = 0xcc
)

// ETMv4 TRCCONFIGR bits perf sets from the event's config
// (coresight-etm4x.h: ETM4_CFG_BIT_*; cs-etm.c: cs_etmv4_get_config()).
const (
	etm4CfgBitCycacc = 4
	etm4CfgBitCtxtid = 6
	etm4CfgBitTS     = 11
	etm4CfgBitRetstk = 12
)

// csTraceID is the trace id the ETM of cpu uses:
// CORESIGHT_LEGACY_CPU_TRACE_ID(cpu), 0x10 + 2*cpu.
func csTraceID(cpu int) uint64 { return 0x10 + 2*uint64(cpu) }

// csETMInfoPriv is cs_etm's priv[]: the header (version, PMU type << 32 |
// CPUs, snapshot mode), then an ETMv4 block per CPU of the session's CPU map
// (every online CPU for --per-thread): magic, cpu, nr_trc_params, TRCCONFIGR,
// TRCTRACEIDR, TRCIDR0, TRCIDR1, TRCIDR2, TRCIDR8, TRCAUTHSTATUS and (not in
// perf 6.1) TS_SOURCE.
// tools/perf/arch/arm/util/cs-etm.c: cs_etm_info_fill(), cs_etm_get_metadata()
func (ss *Session) csETMInfoPriv(e *Evsel) []uint64 {
	cpus := ss.mapCPUs()
	if slices.Contains(cpus, -1) { // --per-thread: cpu_map__online()
		cpus = allCPUs(len(ss.S.M.CPUs))
	}
	var snapshot uint64
	if ss.R.Snapshot != nil {
		snapshot = 1
	}
	cfgBit := func(term string, etm uint) uint64 {
		f := csETM.formats[term]
		if e.Attr.Config>>f.lo&1 != 0 {
			return 1 << etm
		}
		return 0
	}
	config := cfgBit("cycacc", etm4CfgBitCycacc) | cfgBit("contextid", etm4CfgBitCtxtid) |
		cfgBit("timestamp", etm4CfgBitTS) | cfgBit("retstack", etm4CfgBitRetstk)
	priv := []uint64{csHeaderCurrentVersion, uint64(csETM.typ)<<32 | uint64(len(cpus)), snapshot}
	for _, c := range cpus {
		if ss.R.Tool == ToolPerf61 {
			priv = append(priv, csETMv4Magic, uint64(c), csETMv4NrTrcParams61,
				config, csTraceID(c), simTRCIDR0, simTRCIDR1, simTRCIDR2, simTRCIDR8, simTRCAUTHSTATUS)
			continue
		}
		priv = append(priv, csETMv4Magic, uint64(c), csETMv4NrTrcParams,
			config, csTraceID(c), simTRCIDR0, simTRCIDR1, simTRCIDR2, simTRCIDR8, simTRCAUTHSTATUS,
			0) // CS_ETMV4_TS_SOURCE: the virtual count
	}
	return priv
}
