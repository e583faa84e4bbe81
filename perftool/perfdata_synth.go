package perftool

import (
	"encoding/binary"
	"slices"

	"perfsim/rb"
	"perfsim/sched"
	"perfsim/uapi"
)

// User record types perf writes into perf.data (enum perf_user_event_type,
// tools/lib/perf/include/perf/event.h).
const (
	RecordAuxtraceInfo = 70 // PERF_RECORD_AUXTRACE_INFO
	RecordIDIndex      = 69 // PERF_RECORD_ID_INDEX
	RecordThreadMap    = 73 // PERF_RECORD_THREAD_MAP
	RecordCPUMap       = 74 // PERF_RECORD_CPU_MAP
	RecordTimeConv     = 79 // PERF_RECORD_TIME_CONV
)

// The simulated machine's clock conversion (struct perf_event_mmap_page
// time_shift/time_mult/time_zero): a 2 GHz invariant TSC started with the
// machine, so perf time (ns) = TSC / 2 exactly. perf_event__synth_time_conv()
// writes it (cap_user_time_zero is set), and so does intel_pt's
// AUXTRACE_INFO, whose decoder turns TSC packets into perf time with it.
const (
	simTimeShift = 31
	simTimeMult  = 1 << 30
	simTimeZero  = 0
	// SimTSCPerNs is the simulated TSC's ticks per nanosecond.
	SimTSCPerNs = 2
)

// Simulated kernel text: the [kernel.kallsyms] map perf synthesizes, from
// _text, holding every kernel address the model samples (pmu: fakeIP()).
const (
	simKernelText    = 0xffffffff81000000
	simKernelTextLen = 0x1000000
)

// synthesizeHeaderRecords writes what record__synthesize() writes before
// the tasks: TIME_CONV, ID_INDEX, AUXTRACE_INFO (an AUX session), the
// kernel's MMAP (unless every evsel excludes the kernel), THREAD_MAP and
// CPU_MAP. All are perf's own records, at the start of the data section.
// Perf writes each with its own write(2); the model writes them with the
// next record perf synthesizes (the COMMs, FINISHED_INIT), in one write, so
// that the simulated perf's start-up takes the time and the step points it
// took before they were modelled (the built-ins' timings rest on it).
// tools/perf/builtin-record.c: record__synthesize()
func (ss *Session) synthesizeHeaderRecords() {
	d := ss.Data
	if len(d.Attrs) == 0 {
		return
	}
	b := timeConvRecord()
	for _, x := range d.idIndexRecords(ss.idxOf()) {
		b = append(b, x...)
	}
	b = append(b, ss.auxtraceInfoRecord()...)
	if !d.excludeKernel() {
		b = append(b, d.kernelMmapRecord()...)
	}
	b = append(b, ss.threadMapRecord()...)
	b = append(b, cpuMapRecord(ss.mapCPUs())...)
	if ss.R.AllCgroups {
		b = ss.cgroupRecords(b)
	}
	ss.headerSynth = b
}

// cgroupRecords appends a PERF_RECORD_CGROUP for each cgroup of the
// perf_event hierarchy (the unified one here), the root first, then each
// directory before its children: its id (name_to_handle_at()'s handle, the
// kernfs id) and its path below the mount, with a zeroed sample_id trailer
// of the first attr's layout (machine->id_hdr_size).
// tools/perf/util/synthetic-events.c: perf_event__synthesize_cgroups() -> perf_event__walk_cgroup_tree()
func (ss *Session) cgroupRecords(b []byte) []byte {
	a := &ss.Data.Attrs[0].Attr
	var walk func(cg *sched.Cgroup)
	walk = func(cg *sched.Cgroup) {
		b = rb.AppendRecord(b, &rb.Cgroup{ID: cg.ID, Path: cg.String()}, a.SampleType, a.SampleIDAll, nil)
		for _, c := range cg.Children() {
			walk(c)
		}
	}
	walk(ss.S.CgroupRoot())
	return b
}

// timeConvRecord is PERF_RECORD_TIME_CONV: time_shift, time_mult,
// time_zero, time_cycles, time_mask, cap_user_time_zero,
// cap_user_time_short (56 bytes, perf 6.1 and today's).
// tools/perf/util/tsc.c: perf_event__synth_time_conv()
func timeConvRecord() []byte {
	le := binary.LittleEndian
	b := userHeader(RecordTimeConv, 56)
	b = le.AppendUint64(b, simTimeShift)
	b = le.AppendUint64(b, simTimeMult)
	b = le.AppendUint64(b, simTimeZero)
	b = le.AppendUint64(b, 0) // time_cycles
	b = le.AppendUint64(b, 0) // time_mask
	b = append(b, 1, 0)       // cap_user_time_zero, cap_user_time_short
	return append(b, make([]byte, 6)...)
}

// userHeader starts a user record of type typ and size bytes.
func userHeader(typ uint32, size int) []byte {
	b := binary.LittleEndian.AppendUint32(make([]byte, 0, size), typ)
	b = binary.LittleEndian.AppendUint16(b, 0)
	return binary.LittleEndian.AppendUint16(b, uint16(size))
}

// mapCPUs is the evlist's all_cpus: the CPUs perf opened on ({-1} for
// --per-thread), ascending.
func (ss *Session) mapCPUs() []int {
	var cpus []int
	for _, o := range ss.R.Opens(len(ss.S.M.CPUs)) {
		if !slices.Contains(cpus, o.CPU) {
			cpus = append(cpus, o.CPU)
		}
	}
	slices.Sort(cpus)
	return cpus
}

// idxOf gives the mmap index (struct perf_sample_id idx) of a CPU: its
// position in all_cpus (per-CPU mmaps; 0 for --per-thread's one thread).
func (ss *Session) idxOf() func(cpu int) int {
	cpus := ss.mapCPUs()
	return func(cpu int) int { return max(slices.Index(cpus, cpu), 0) }
}

// idIndexRecords are the PERF_RECORD_ID_INDEX records: u64 nr, then per id
// {id, idx, cpu, tid}, every evsel's ids in evlist order, at most
// (UINT16_MAX - header) / 32 entries a record.
// tools/perf/util/synthetic-events.c: perf_event__synthesize_id_index()
func (d *PerfData) idIndexRecords(idxOf func(int) int) [][]byte {
	type entry struct{ id, idx, cpu, tid uint64 }
	var es []entry
	for i := range d.Attrs {
		fa := &d.Attrs[i]
		for j, id := range fa.IDs {
			e := entry{id: id, cpu: ^uint64(0), tid: ^uint64(0)}
			if j < len(fa.IDSample) {
				s := fa.IDSample[j]
				e.idx, e.cpu, e.tid = uint64(idxOf(s.CPU)), uint64(int64(s.CPU)), uint64(int64(s.TID))
			}
			es = append(es, e)
		}
	}
	const maxNr = (0xffff - 16) / 32
	le := binary.LittleEndian
	var out [][]byte
	for len(es) > 0 {
		n := min(len(es), maxNr)
		b := userHeader(RecordIDIndex, 16+32*n)
		b = le.AppendUint64(b, uint64(n))
		for _, e := range es[:n] {
			for _, v := range []uint64{e.id, e.idx, e.cpu, e.tid} {
				b = le.AppendUint64(b, v)
			}
		}
		out = append(out, b)
		es = es[n:]
	}
	return out
}

// excludeKernel is evlist__exclude_kernel(): every evsel excludes the kernel.
func (d *PerfData) excludeKernel() bool {
	for i := range d.Attrs {
		if !d.Attrs[i].Attr.ExcludeKernel {
			return false
		}
	}
	return true
}

// idHdrSize is machine->id_hdr_size: the first evsel's sample_id trailer.
// tools/perf/util/evlist.c: evlist__id_hdr_size()
func (d *PerfData) idHdrSize() int {
	a := &d.Attrs[0].Attr
	if !a.SampleIDAll {
		return 0
	}
	return rb.IDHeaderSize(a.SampleType)
}

// kernelMmapRecord is the PERF_RECORD_MMAP of the kernel's text: pid -1
// (the host machine), tid 0, from _text with pgoff _text's address, named
// "[kernel.kallsyms]_text", misc KERNEL, then a zeroed sample_id.
// tools/perf/util/synthetic-events.c: __perf_event__synthesize_kernel_mmap()
func (d *PerfData) kernelMmapRecord() []byte {
	le := binary.LittleEndian
	name := "[kernel.kallsyms]_text"
	n := (len(name) + 1 + 7) &^ 7
	size := 8 + 8 + 24 + n + d.idHdrSize()
	b := binary.LittleEndian.AppendUint32(nil, uapi.PERF_RECORD_MMAP)
	b = le.AppendUint16(b, uapi.PERF_RECORD_MISC_KERNEL)
	b = le.AppendUint16(b, uint16(size))
	b = le.AppendUint32(b, ^uint32(0)) // pid: HOST_KERNEL_ID
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, simKernelText)
	b = le.AppendUint64(b, simKernelTextLen)
	b = le.AppendUint64(b, simKernelText) // pgoff: ref_reloc_sym->addr
	b = append(b, name...)
	return append(b, make([]byte, size-len(b))...)
}

// threadMapRecord is PERF_RECORD_THREAD_MAP: u64 nr, then {u64 pid, char
// comm[16]} per thread of the evlist's thread map: the forked workload, or
// a -p/-t target's threads, or the dummy map {-1} of a CPU-wide session. The comms are not read (perf
// reads them only for perf stat / perf top): zero.
// tools/lib/perf/include/perf/event.h: perf_record_thread_map;
// util/synthetic-events.c: perf_event__synthesize_thread_map2()
func (ss *Session) threadMapRecord() []byte {
	pids := []int{-1}
	if ss.R.Target.None() && ss.Workload != nil {
		pids = []int{ss.Workload.PID}
	} else if ss.R.Target.HasTask() {
		pids = ss.R.Threads // a -p/-t target's thread map
	}
	le := binary.LittleEndian
	b := userHeader(RecordThreadMap, 16+24*len(pids))
	b = le.AppendUint64(b, uint64(len(pids)))
	for _, p := range pids {
		b = le.AppendUint64(b, uint64(int64(p)))
		b = append(b, make([]byte, 16)...)
	}
	return b
}

// cpuMapRecord is PERF_RECORD_CPU_MAP in the smallest of its encodings: a
// range for consecutive CPUs, else a list of u16 CPUs (always with the
// "any CPU" -1), else a u32 bitmask.
// tools/perf/util/synthetic-events.c: cpu_map_data__alloc(), cpu_map_data__synthesize()
func cpuMapRecord(cpus []int) []byte {
	le := binary.LittleEndian
	anyCPU := len(cpus) > 0 && cpus[0] == -1
	hasAny := 0
	if anyCPU {
		hasAny = 1
	}
	nr := len(cpus)
	minCPU, maxCPU := -1, -1
	if nr > hasAny {
		minCPU = cpus[hasAny]
	}
	if nr > 0 {
		maxCPU = cpus[nr-1]
	}
	if maxCPU-minCPU+1 == nr-hasAny {
		b := userHeader(RecordCPUMap, 16)
		b = le.AppendUint16(b, 2) // PERF_CPU_MAP__RANGE_CPUS
		b = append(b, byte(hasAny), 0)
		b = le.AppendUint16(b, uint16(minCPU))
		return le.AppendUint16(b, uint16(maxCPU))
	}
	sizeCPUs := 2 + 2 + 2*nr
	words := (maxCPU + 31) / 32 // BITS_TO_U32(max_cpu)
	sizeMask := 2 + 4 + 4*words
	if anyCPU || sizeCPUs < sizeMask {
		b := userHeader(RecordCPUMap, 8+(sizeCPUs+7)&^7)
		b = le.AppendUint16(b, 0) // PERF_CPU_MAP__CPUS
		b = le.AppendUint16(b, uint16(nr))
		for _, c := range cpus {
			b = le.AppendUint16(b, uint16(c))
		}
		return append(b, make([]byte, 8+(sizeCPUs+7)&^7-len(b))...)
	}
	size := 8 + (sizeMask+7)&^7
	b := userHeader(RecordCPUMap, size)
	b = le.AppendUint16(b, 1) // PERF_CPU_MAP__MASK
	b = le.AppendUint16(b, uint16(words))
	b = le.AppendUint16(b, 4) // long_size
	mask := make([]uint32, words)
	for _, c := range cpus {
		if c/32 < words {
			mask[c/32] |= 1 << (c % 32)
		}
	}
	for _, m := range mask {
		b = le.AppendUint32(b, m)
	}
	return append(b, make([]byte, size-len(b))...)
}

// recordReadLostSamples reads each event's lost sample count
// (PERF_FORMAT_LOST) and writes a PERF_RECORD_LOST_SAMPLES {lost} with the
// sample_id of that event for each that lost some. Perf 6.1 and today's do
// it after the last read of the rings, before the fds close.
// (Written with writeSynth: a write(2) only when some were lost.)
// tools/perf/builtin-record.c: record__read_lost_samples(), __record__save_lost_samples()
func (ss *Session) recordReadLostSamples(t *sched.Task) {
	opens := ss.R.Opens(len(ss.S.M.CPUs))
	le := binary.LittleEndian
	for i, o := range opens {
		if i >= len(ss.FDs) || ss.FDs[i] < 0 {
			continue
		}
		a := &ss.R.Evsels[o.Evsel].Attr
		if a.ReadFormat&uapi.PERF_FORMAT_LOST == 0 || a.ReadFormat&uapi.PERF_FORMAT_GROUP != 0 {
			continue
		}
		// read(2) of the fd: its PERF_FORMAT_LOST value is
		// event->lost_samples, which the read does not bring up to date
		// (only the count): read directly, without the syscall's IPI, so
		// the run's schedule is the one without it.
		e := ss.K.EventOf(t, ss.FDs[i])
		if e == nil {
			continue
		}
		ss.accessLostSamples(t, e) // footprint_record.go
		lost := e.LostSamples()
		if lost == 0 {
			continue
		}
		var id uint64
		fa := &ss.Data.Attrs[o.Evsel]
		for j, s := range fa.IDSample {
			if s.CPU == o.CPU && j < len(fa.IDs) {
				id = fa.IDs[j]
				break
			}
		}
		trailer := synthIDSample(a.SampleType, id)
		b := userHeader(uapi.PERF_RECORD_LOST_SAMPLES, 16+len(trailer))
		b = le.AppendUint64(b, lost)
		b = append(b, trailer...)
		ss.writeSynth(t, b)
	}
}

// synthIDSample is the sample_id perf appends to a record it makes with
// only the id known: pid/tid, time, stream id and cpu 0.
// tools/perf/util/synthetic-events.c: perf_event__synthesize_id_sample()
func synthIDSample(sampleType, id uint64) []byte {
	le := binary.LittleEndian
	var b []byte
	for _, f := range []struct {
		bit uint64
		v   uint64
	}{{uapi.PERF_SAMPLE_TID, 0}, {uapi.PERF_SAMPLE_TIME, 0}, {uapi.PERF_SAMPLE_ID, id},
		{uapi.PERF_SAMPLE_STREAM_ID, 0}, {uapi.PERF_SAMPLE_CPU, 0}, {uapi.PERF_SAMPLE_IDENTIFIER, id}} {
		if sampleType&f.bit != 0 {
			b = le.AppendUint64(b, f.v)
		}
	}
	return b
}
