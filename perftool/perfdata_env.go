package perftool

import (
	"encoding/binary"
	"fmt"
	"strings"

	"perfsim/rb"
	"perfsim/uapi"
)

// Feature bits of perf_file_header.adds_features (enum in
// tools/perf/util/header.h; perf 6.1 and today's agree up to PMU_CAPS).
const (
	headerFeatBuildID      = 2
	headerFeatHostname     = 3
	headerFeatOSRelease    = 4
	headerFeatVersion      = 5
	headerFeatArch         = 6
	headerFeatNrCPUs       = 7
	headerFeatCPUDesc      = 8
	headerFeatCPUID        = 9
	headerFeatTotalMem     = 10
	headerFeatCmdline      = 11
	headerFeatCPUTopology  = 13
	headerFeatNUMATopology = 14
	headerFeatPMUMappings  = 16
	headerFeatGroupDesc    = 17
	headerFeatAuxtrace     = 18
	headerFeatCache        = 20
	headerFeatSampleTime   = 21
	headerFeatMemTopology  = 22
	headerFeatClockID      = 23
	headerFeatBPFProgInfo  = 25
	headerFeatBPFBTF       = 26
	headerFeatCPUPMUCaps   = 28
	headerFeatClockData    = 29
	headerFeatPMUCaps      = 31
)

// headerFeatNames are the features' names as perf report --header-only
// prints them in its "missing features" line (header.c: feat_ops[].name).
var headerFeatNames = map[uint]string{
	1: "TRACING_DATA", 2: "BUILD_ID", 3: "HOSTNAME", 4: "OSRELEASE", 5: "VERSION", 6: "ARCH", 7: "NRCPUS",
	8: "CPUDESC", 9: "CPUID", 10: "TOTAL_MEM", 11: "CMDLINE", 12: "EVENT_DESC", 13: "CPU_TOPOLOGY",
	14: "NUMA_TOPOLOGY", 15: "BRANCH_STACK", 16: "PMU_MAPPINGS", 17: "GROUP_DESC", 18: "AUXTRACE",
	19: "STAT", 20: "CACHE", 21: "SAMPLE_TIME", 22: "MEM_TOPOLOGY", 23: "CLOCKID", 24: "DIR_FORMAT",
	25: "BPF_PROG_INFO", 26: "BPF_BTF", 27: "COMPRESSED", 28: "CPU_PMU_CAPS", 29: "CLOCK_DATA",
	30: "HYBRID_TOPOLOGY", 31: "PMU_CAPS",
}

// FeatureName is the name perf gives feature bit b.
func FeatureName(b uint) string {
	if n, ok := headerFeatNames[b]; ok {
		return n
	}
	return fmt.Sprintf("feat%d", b)
}

// Env is the simulated machine as a perf.data header describes it (struct
// perf_env): what perf record reads from uname(2), sysfs and /proc on the
// machine it records. The simulator's machine is fixed but for its CPUs and
// its architecture (an Arm machine when a session records cs_etm).
// tools/perf/util/env.h: struct perf_env
type Env struct {
	Hostname    string
	OSRelease   string
	Version     string // perf's own version (HEADER_VERSION)
	Arch        string
	NrCPUs      int
	CPUDesc     string
	CPUID       string
	TotalMemKB  uint64
	FreeMemKB   uint64
	Cmdline     []string // perf_exe() and argv[1:]
	PMUs        []EnvPMU // /sys/bus/event_source/devices: type and name
	CPUPMUCaps  [][2]string
	MemBlockMiB uint64
}

// EnvPMU is one entry of HEADER_PMU_MAPPINGS.
type EnvPMU struct {
	Type uint32
	Name string
}

// simEnv is the Env of the simulated machine perf r runs on.
func simEnv(r *Record, nrCPUs int) Env {
	e := Env{
		Hostname:   "perfsim",
		OSRelease:  "6.19.0-perfsim", // the simulated kernel: today's upstream
		Arch:       "x86_64",
		NrCPUs:     nrCPUs,
		CPUDesc:    "Intel(R) Xeon(R) Platinum 8480+",
		CPUID:      "GenuineIntel,6,143,8", // Sapphire Rapids: Intel PT with PSB/CYC, MTC, IP filtering
		TotalMemKB: 16 << 20,
		FreeMemKB:  15 << 20,
		Version:    "6.19.0", // perf-tools-next, Dec 2025
		PMUs: []EnvPMU{{1, "software"}, {2, "tracepoint"}, {4, "cpu"}, {5, "breakpoint"},
			{TypeIntelPT, intelPT.name}, {10, "msr"}},
		// /sys/bus/event_source/devices/cpu/caps of a Sapphire Rapids
		CPUPMUCaps:  [][2]string{{"branches", "32"}, {"max_precise", "3"}, {"pmu_name", "sapphire_rapids"}},
		MemBlockMiB: 128,
	}
	if r != nil && r.Tool == ToolPerf61 {
		e.Version = "6.1.0"
	}
	if r != nil {
		if armMachine(r) {
			e.Arch = "aarch64"
			e.CPUDesc = "ARM Neoverse-N1"
			e.CPUID = "0x00000000413fd0c1" // MIDR_EL1 of a Neoverse N1 r3p1
			e.PMUs = []EnvPMU{{1, "software"}, {2, "tracepoint"}, {4, "armv8_pmuv3_0"}, {5, "breakpoint"}, {TypeCSETM, csETM.name}}
			e.CPUPMUCaps = nil
		}
		e.Cmdline = append([]string{"/usr/bin/perf", "record"}, r.Argv...)
	}
	return e
}

// armMachine reports that perf r runs on an Arm machine: it records
// cs_etm (CoreSight ETM).
func armMachine(r *Record) bool {
	for i := range r.Evsels {
		if r.Evsels[i].PMU == csETM.name {
			return true
		}
	}
	return false
}

// doWriteString is a string as perf writes it in a feature section: a u32
// length (strlen + 1 rounded up to 64), then the string NUL-padded to it.
// tools/perf/util/header.c: do_write_string()
func doWriteString(b []byte, s string) []byte {
	n := (len(s) + 1 + 63) &^ 63 // PERF_ALIGN(strlen + 1, NAME_ALIGN)
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	b = append(b, s...)
	return append(b, make([]byte, n-len(s))...)
}

// cpuListString is a CPU list as perf prints one ("0-3", "0,2").
func cpuListString(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, fmt.Sprint(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func (e *Env) cpus() []int {
	out := make([]int, e.NrCPUs)
	for i := range out {
		out[i] = i
	}
	return out
}

// featString is HOSTNAME, OSRELEASE, VERSION, ARCH, CPUDESC, CPUID: one string.
// tools/perf/util/header.c: write_hostname(), write_osrelease(), write_version(),
// write_arch(), write_cpudesc(), write_cpuid()
func featString(s string) []byte { return doWriteString(nil, s) }

// featNrCPUs is HEADER_NRCPUS: u32 nr_cpus_avail, u32 nr_cpus_online.
// tools/perf/util/header.c: write_nrcpus()
func (e *Env) featNrCPUs() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(e.NrCPUs))
	return binary.LittleEndian.AppendUint32(b, uint32(e.NrCPUs))
}

// featCmdline is HEADER_CMDLINE: u32 nr, then the strings.
// tools/perf/util/header.c: write_cmdline()
func (e *Env) featCmdline() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(e.Cmdline)))
	for _, s := range e.Cmdline {
		b = doWriteString(b, s)
	}
	return b
}

// featCPUTopology is HEADER_CPU_TOPOLOGY: the core (package) siblings lists,
// the thread siblings lists, each CPU's core and socket id, then the die
// siblings lists and each CPU's die id. The simulated machine: one socket,
// one die, a core per CPU, no SMT.
// tools/perf/util/header.c: write_cpu_topology()
func (e *Env) featCPUTopology() []byte {
	le := binary.LittleEndian
	all := cpuListString(e.cpus())
	b := le.AppendUint32(nil, 1)
	b = doWriteString(b, all)
	b = le.AppendUint32(b, uint32(e.NrCPUs))
	for c := 0; c < e.NrCPUs; c++ {
		b = doWriteString(b, fmt.Sprint(c))
	}
	for c := 0; c < e.NrCPUs; c++ {
		b = le.AppendUint32(b, uint32(c)) // core_id
		b = le.AppendUint32(b, 0)         // socket_id
	}
	b = le.AppendUint32(b, 1)
	b = doWriteString(b, all)
	for c := 0; c < e.NrCPUs; c++ {
		b = le.AppendUint32(b, 0) // die_id
	}
	return b
}

// featNUMATopology is HEADER_NUMA_TOPOLOGY: u32 nr nodes, then per node u32
// node, u64 mem_total, u64 mem_free (kB), the CPU list.
// tools/perf/util/header.c: write_numa_topology()
func (e *Env) featNUMATopology() []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 1)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, e.TotalMemKB)
	b = le.AppendUint64(b, e.FreeMemKB)
	return doWriteString(b, cpuListString(e.cpus()))
}

// featPMUMappings is HEADER_PMU_MAPPINGS: u32 nr, then per PMU u32 type and
// its name.
// tools/perf/util/header.c: write_pmu_mappings()
func (e *Env) featPMUMappings() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(e.PMUs)))
	for _, p := range e.PMUs {
		b = binary.LittleEndian.AppendUint32(b, p.Type)
		b = doWriteString(b, p.Name)
	}
	return b
}

// featCache is HEADER_CACHE: u32 version 1, u32 count, then per cache u32
// level, line_size, sets, ways and the type, size and shared CPU list
// strings: a private 48K L1d, 32K L1i and 2M L2 per CPU, one shared L3.
// tools/perf/util/header.c: write_cache()
func (e *Env) featCache() []byte {
	le := binary.LittleEndian
	type cache struct {
		level, line, sets, ways uint32
		typ, size, cpus         string
	}
	var cs []cache
	for _, l := range []cache{{1, 64, 64, 12, "Data", "48K", ""}, {1, 64, 64, 8, "Instruction", "32K", ""}, {2, 64, 2048, 16, "Unified", "2048K", ""}} {
		for c := 0; c < e.NrCPUs; c++ {
			l.cpus = fmt.Sprint(c)
			cs = append(cs, l)
		}
	}
	cs = append(cs, cache{3, 64, 57344, 15, "Unified", "53760K", cpuListString(e.cpus())})
	b := le.AppendUint32(nil, 1)
	b = le.AppendUint32(b, uint32(len(cs)))
	for _, c := range cs {
		for _, v := range []uint32{c.level, c.line, c.sets, c.ways} {
			b = le.AppendUint32(b, v)
		}
		b = doWriteString(b, c.typ)
		b = doWriteString(b, c.size)
		b = doWriteString(b, c.cpus)
	}
	return b
}

// featMemTopology is HEADER_MEM_TOPOLOGY: u64 version 1, u64 block_size,
// u64 nr nodes, then per node u64 node, u64 size (blocks), and the bitmap of
// its memory blocks (u64 nbits, then the u64 words).
// tools/perf/util/header.c: write_mem_topology()
func (e *Env) featMemTopology() []byte {
	le := binary.LittleEndian
	blocks := e.TotalMemKB / (e.MemBlockMiB << 10)
	b := le.AppendUint64(nil, 1)
	b = le.AppendUint64(b, e.MemBlockMiB<<20)
	b = le.AppendUint64(b, 1)
	b = le.AppendUint64(b, 0)
	b = le.AppendUint64(b, blocks)
	b = le.AppendUint64(b, blocks)
	for w := uint64(0); w < (blocks+63)/64; w++ {
		var word uint64
		for bit := w * 64; bit < min(blocks, w*64+64); bit++ {
			word |= 1 << (bit % 64)
		}
		b = le.AppendUint64(b, word)
	}
	return b
}

// featCPUPMUCaps is HEADER_CPU_PMU_CAPS: u32 nr, then name and value strings
// of each of the core PMU's caps; perf drops the feature where the machine
// has no caps for its cpu PMU.
// tools/perf/util/header.c: write_cpu_pmu_caps() -> __write_pmu_caps()
func (e *Env) featCPUPMUCaps() []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(e.CPUPMUCaps)))
	for _, c := range e.CPUPMUCaps {
		b = doWriteString(b, c[0])
		b = doWriteString(b, c[1])
	}
	return b
}

// featU32Zero is a feature of one u32 0: BPF_PROG_INFO and BPF_BTF with no
// BPF programs loaded, PMU_CAPS with no other PMU's caps written.
// tools/perf/util/header.c: write_bpf_prog_info(), write_bpf_btf(), write_pmu_caps()
func featU32Zero() []byte { return make([]byte, 4) }

// featSampleTime is HEADER_SAMPLE_TIME: the first and the last sample's time.
// tools/perf/util/header.c: write_sample_time()
func featSampleTime(first, last uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, first)
	return binary.LittleEndian.AppendUint64(b, last)
}

// featGroupDesc is HEADER_GROUP_DESC: u32 nr_groups, then per group (with
// more than one member) its name, the leader's index, nr_members.
// tools/perf/util/header.c: write_group_desc()
func (d *PerfData) featGroupDesc() []byte {
	le := binary.LittleEndian
	var b []byte
	n := 0
	for i := range d.Attrs {
		fa := &d.Attrs[i]
		if fa.Leader != i || fa.Members < 2 {
			continue
		}
		n++
		b = doWriteString(b, "{anon_group}") // evsel->group_name ?: "{anon_group}"
		b = le.AppendUint32(b, uint32(i))
		b = le.AppendUint32(b, uint32(fa.Members))
	}
	return append(le.AppendUint32(nil, uint32(n)), b...)
}

// nrGroups is evlist->core.nr_groups: the groups with more than one member.
func (d *PerfData) nrGroups() int {
	n := 0
	for i := range d.Attrs {
		if d.Attrs[i].Leader == i && d.Attrs[i].Members > 1 {
			n++
		}
	}
	return n
}

// feature is one feature section of perf.data.
type feature struct {
	bit  uint
	data []byte
}

// features are the feature sections perf record writes, in bit order:
// every feature perf knows but those record__init_features() clears for
// this session (TRACING_DATA without tracepoints, BRANCH_STACK without -b/-j,
// GROUP_DESC without groups, AUXTRACE without an AUX area, STAT, CLOCKID
// and CLOCK_DATA without -k, DIR_FORMAT, COMPRESSED, HYBRID_TOPOLOGY, BUILD_ID
// with -B or --buildid-mmap) and those whose writer fails: BUILD_ID when no
// dso hit has a build id, CPU_PMU_CAPS where the core PMU has no caps.
// tools/perf/builtin-record.c: record__init_features(); util/header.c: perf_header__adds_write()
func (d *PerfData) features(dataOff uint64) []feature {
	e := &d.Env
	if e.Hostname == "" { // a PerfData made without a Record: a 1-CPU machine
		env := simEnv(nil, 1)
		e = &env
	}
	var fs []feature
	add := func(bit uint, b []byte) { fs = append(fs, feature{bit, b}) }
	if tps := d.sessionTracepoints(); len(tps) > 0 {
		add(headerFeatTracingData, tracingData(tps))
	}
	if bids := d.buildIDTable(); len(bids) > 0 {
		add(headerFeatBuildID, encodeBuildIDTable(bids))
	}
	add(headerFeatHostname, featString(e.Hostname))
	add(headerFeatOSRelease, featString(e.OSRelease))
	add(headerFeatVersion, featString(e.Version))
	add(headerFeatArch, featString(e.Arch))
	add(headerFeatNrCPUs, e.featNrCPUs())
	add(headerFeatCPUDesc, featString(e.CPUDesc))
	add(headerFeatCPUID, featString(e.CPUID))
	add(headerFeatTotalMem, binary.LittleEndian.AppendUint64(nil, e.TotalMemKB))
	add(headerFeatCmdline, e.featCmdline())
	add(headerFeatEventDesc, d.eventDesc())
	add(headerFeatCPUTopology, e.featCPUTopology())
	add(headerFeatNUMATopology, e.featNUMATopology())
	if d.hasBranchStack() {
		add(15, nil) // HEADER_BRANCH_STACK: a flag, no data (write_branch_stack())
	}
	add(headerFeatPMUMappings, e.featPMUMappings())
	if d.nrGroups() > 0 {
		add(headerFeatGroupDesc, d.featGroupDesc())
	}
	if d.hasAux() {
		add(headerFeatAuxtrace, d.featAuxtrace(dataOff))
	}
	add(headerFeatCache, e.featCache())
	first, last := d.sampleTimes()
	add(headerFeatSampleTime, featSampleTime(first, last))
	add(headerFeatMemTopology, e.featMemTopology())
	if d.useClockid() {
		add(headerFeatClockID, binary.LittleEndian.AppendUint64(nil, 1)) // write_clockid(): clockid_res_ns
	}
	add(headerFeatBPFProgInfo, featU32Zero())
	add(headerFeatBPFBTF, featU32Zero())
	if len(e.CPUPMUCaps) > 0 {
		add(headerFeatCPUPMUCaps, e.featCPUPMUCaps())
	}
	if d.useClockid() {
		add(headerFeatClockData, d.featClockData())
	}
	add(headerFeatPMUCaps, featU32Zero())
	return fs
}

// hasBranchStack reports whether an evsel samples the branch stack.
func (d *PerfData) hasBranchStack() bool {
	for i := range d.Attrs {
		if d.Attrs[i].Attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
			return true
		}
	}
	return false
}

// hasAux reports whether the session records an AUX area (full_auxtrace).
func (d *PerfData) hasAux() bool {
	for i := range d.Attrs {
		if p := d.Attrs[i].PMU; p == intelPT.name || p == csETM.name {
			return true
		}
	}
	return false
}

// useClockid reports -k: attr.use_clockid.
func (d *PerfData) useClockid() bool {
	for i := range d.Attrs {
		if d.Attrs[i].Attr.UseClockid {
			return true
		}
	}
	return false
}

// featAuxtrace is HEADER_AUXTRACE: the index of the PERF_RECORD_AUXTRACE
// records, u64 nr then {u64 file_offset, u64 sz} each, sz the record's
// header.size (auxtrace_queues__add_indexed_event() checks it is).
// tools/perf/util/auxtrace.c: auxtrace_index__write()
func (d *PerfData) featAuxtrace(dataOff uint64) []byte {
	le := binary.LittleEndian
	b := le.AppendUint64(nil, uint64(len(d.auxIndex)))
	for _, x := range d.auxIndex {
		b = le.AppendUint64(b, dataOff+x[0])
		b = le.AppendUint64(b, x[1])
	}
	return b
}

// sampleTimes are the first and last sample times, as perf record's
// process_sample_event() notes them while it reads the file back for build
// ids (in time order: min and max).
// tools/perf/builtin-record.c: process_sample_event()
func (d *PerfData) sampleTimes() (first, last uint64) {
	if !d.Kept() {
		return d.firstSample, d.lastSample
	}
	d.Parsed()
	for i := range d.Records {
		r := &d.Records[i]
		if r.Dec == nil || r.Dec.Sample == nil || r.Header.Type != uapi.PERF_RECORD_SAMPLE {
			continue
		}
		t := r.Dec.Sample.Time
		if first == 0 || t < first {
			first = t
		}
		last = max(last, t)
	}
	return first, last
}

// noteSampleTime updates the first and last sample time with the SAMPLE
// rec (when its evsel samples the time).
func (d *PerfData) noteSampleTime(rec []byte) {
	h, ok := rb.ParseHeader(rec)
	if !ok || h.Type != uapi.PERF_RECORD_SAMPLE {
		return
	}
	i := d.evselOf(rec, h)
	if i < 0 {
		return
	}
	st := d.Attrs[i].Attr.SampleType
	if st&uapi.PERF_SAMPLE_TIME == 0 {
		return
	}
	off := rb.HeaderSize
	for _, bit := range []uint64{uapi.PERF_SAMPLE_IDENTIFIER, uapi.PERF_SAMPLE_IP, uapi.PERF_SAMPLE_TID} {
		if st&bit != 0 {
			off += 8
		}
	}
	if off+8 > len(rec) {
		return
	}
	t := binary.LittleEndian.Uint64(rec[off:])
	if d.firstSample == 0 || t < d.firstSample {
		d.firstSample = t
	}
	d.lastSample = max(d.lastSample, t)
}

// simEpochNs is the wall clock time of the simulated machine's time 0
// (2025-12-01 00:00:00 UTC), for HEADER_CLOCK_DATA.
const simEpochNs = 1764547200 * 1e9

// featClockData is HEADER_CLOCK_DATA: u32 version 1, u32 clockid, then the
// wall clock and the clockid clock read together (at the simulated time 0).
// tools/perf/util/header.c: write_clock_data()
func (d *PerfData) featClockData() []byte {
	le := binary.LittleEndian
	var clockid uint32
	for i := range d.Attrs {
		if d.Attrs[i].Attr.UseClockid {
			clockid = uint32(d.Attrs[i].Attr.Clockid)
			break
		}
	}
	b := le.AppendUint32(nil, 1)
	b = le.AppendUint32(b, clockid)
	b = le.AppendUint64(b, simEpochNs)
	return le.AppendUint64(b, 0)
}

// noteAuxtrace adds the PERF_RECORD_AUXTRACE about to be written (its
// header.size sz) to the index: auxtrace_index__auxtrace_event().
func (d *PerfData) noteAuxtrace(sz uint64) {
	if d.Discard {
		return
	}
	d.auxIndex = append(d.auxIndex, [2]uint64{uint64(d.Written), sz})
}
