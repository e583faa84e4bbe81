package realperf

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/uapi"
)

// Summary is what a paired case compares: "KEY VALUE" lines such as
// "records COMM 3", "samples sched:sched_switch 20" or
// "sample-size sched:sched_switch 104", keyed by everything before the value.
type Summary map[string]int64

// recordNames are the PERF_RECORD_* and perf's user record types (>= 64).
// include/uapi/linux/perf_event.h; tools/lib/perf/include/perf/event.h: enum perf_user_event_type
var recordNames = map[uint32]string{
	uapi.PERF_RECORD_MMAP: "MMAP", uapi.PERF_RECORD_LOST: "LOST", uapi.PERF_RECORD_COMM: "COMM",
	uapi.PERF_RECORD_EXIT: "EXIT", uapi.PERF_RECORD_THROTTLE: "THROTTLE", uapi.PERF_RECORD_UNTHROTTLE: "UNTHROTTLE",
	uapi.PERF_RECORD_FORK: "FORK", uapi.PERF_RECORD_READ: "READ", uapi.PERF_RECORD_SAMPLE: "SAMPLE",
	uapi.PERF_RECORD_MMAP2: "MMAP2", uapi.PERF_RECORD_AUX: "AUX", uapi.PERF_RECORD_ITRACE_START: "ITRACE_START",
	uapi.PERF_RECORD_LOST_SAMPLES: "LOST_SAMPLES", uapi.PERF_RECORD_SWITCH: "SWITCH",
	uapi.PERF_RECORD_SWITCH_CPU_WIDE: "SWITCH_CPU_WIDE", uapi.PERF_RECORD_NAMESPACES: "NAMESPACES",
	uapi.PERF_RECORD_KSYMBOL: "KSYMBOL", uapi.PERF_RECORD_BPF_EVENT: "BPF_EVENT", uapi.PERF_RECORD_CGROUP: "CGROUP",
	uapi.PERF_RECORD_TEXT_POKE: "TEXT_POKE", uapi.PERF_RECORD_AUX_OUTPUT_HW_ID: "AUX_OUTPUT_HW_ID",
	uapi.PERF_RECORD_CALLCHAIN_DEFERRED: "CALLCHAIN_DEFERRED",
	64:                                  "HEADER_ATTR", 65: "HEADER_EVENT_TYPE", 66: "HEADER_TRACING_DATA", 67: "HEADER_BUILD_ID",
	68: "FINISHED_ROUND", 69: "ID_INDEX", 70: "AUXTRACE_INFO", 71: "AUXTRACE", 72: "AUXTRACE_ERROR",
	73: "THREAD_MAP", 74: "CPU_MAP", 75: "STAT_CONFIG", 76: "STAT", 77: "STAT_ROUND", 78: "EVENT_UPDATE",
	79: "TIME_CONV", 80: "HEADER_FEATURE", 81: "COMPRESSED", 82: "FINISHED_INIT",
}

// RecordName is the name perf uses for a record type, or "TYPE<n>".
func RecordName(t uint32) string {
	if n, ok := recordNames[t]; ok {
		return n
	}
	return fmt.Sprintf("TYPE%d", t)
}

// afterCgroup are the sample_type bits perf_output_sample() writes after
// PERF_SAMPLE_CGROUP.
const afterCgroup = uapi.PERF_SAMPLE_DATA_PAGE_SIZE | uapi.PERF_SAMPLE_CODE_PAGE_SIZE | uapi.PERF_SAMPLE_AUX

// idIndexRecord is PERF_RECORD_ID_INDEX, a perf user record.
// tools/lib/perf/include/perf/event.h: enum perf_user_event_type
const idIndexRecord = 69

// headerFeatEventDesc is HEADER_EVENT_DESC, bit 12 of adds_features.
const headerFeatEventDesc = 12

// Summarize reads a perf.data file and counts:
//   - records TYPE: records of each type in the data section;
//   - samples EVENT: PERF_RECORD_SAMPLEs of each event (named as
//     HEADER_EVENT_DESC names it, e.g. "sched:sched_switch");
//   - sample-size EVENT: the header.size of that event's samples when they
//     all have one size, else -1;
//   - comm NAME: COMM records naming NAME (exec ones and prctl ones alike);
//   - comm-exec NAME: those with PERF_RECORD_MISC_COMM_EXEC;
//   - cgroup PATH: PERF_RECORD_CGROUPs naming PATH (synthesized at perf's
//     start or written by the kernel when a cgroup came online);
//     samples-cgroup PATH: samples (with PERF_SAMPLE_CGROUP) whose cgroup
//     id a CGROUP record before them named PATH ("" for an unnamed id);
//   - lost: the records PERF_RECORD_LOSTs say the kernel dropped (their
//     lost fields summed); lost-samples: the same of PERF_RECORD_LOST_SAMPLES;
//   - read-next A B: READ records of event B right after one of A from the
//     same task for events of the same CPU (the CPU PERF_RECORD_ID_INDEX
//     gives the id): the order of the exiting task's ctx->event_list;
//   - switch in, switch out, switch out-preempt: PERF_RECORD_SWITCH(_CPU_WIDE)
//     records by their misc bits (a switch out while still runnable is a
//     preemption, PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
//   - period-sum EVENT: the PERF_SAMPLE_PERIOD values of EVENT's samples
//     summed, for an event of a fixed period (attr.freq clear);
//   - read-sum EVENT MEMBER: the PERF_SAMPLE_READ values of EVENT's samples
//     summed, per member of the read (EVENT itself without PERF_FORMAT_GROUP;
//     each member of the group, named by its PERF_FORMAT_ID, with it).
//
// tools/perf/util/session.c: perf_session__process_events(); header.c: read_event_desc()
func Summarize(b []byte) (Summary, error) {
	f, err := perftool.ReadDataFile(b)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	type attrInfo struct {
		layout rb.SampleLayout
		freq   bool // attr.freq: sample_freq, not sample_period
		name   string
	}
	byID := map[uint64]int{}
	attrs := make([]attrInfo, len(f.Attrs))
	for i, a := range f.Attrs {
		pa, err := pmu.UnmarshalAttr(a.Attr)
		if err != nil {
			return nil, fmt.Errorf("attr %d (%d bytes): %v", i, len(a.Attr), err)
		}
		attrs[i] = attrInfo{layout: pa.SampleLayout(), freq: pa.Freq, name: fmt.Sprintf("attr%d", i)}
		for _, id := range a.IDs {
			byID[id] = i
		}
	}
	if d, ok := f.Sections[headerFeatEventDesc]; ok {
		names, err := eventDescNames(d)
		if err != nil {
			return nil, err
		}
		for i := range attrs {
			if i < len(names) {
				attrs[i].name = names[i]
			}
		}
	}
	s := Summary{}
	sizes := map[string]int64{}
	cpuOfID := map[uint64]uint64{}     // PERF_RECORD_ID_INDEX: id -> the event's CPU
	lastRead := map[[2]uint64]string{} // (pid, CPU of the event) -> the last READ's event
	cgroups := map[uint64]string{}     // PERF_RECORD_CGROUP: id -> path
	for _, r := range f.Records {
		typ, misc, size := le.Uint32(r), le.Uint16(r[4:]), int64(le.Uint16(r[6:]))
		s["records "+RecordName(typ)]++
		switch typ {
		case uapi.PERF_RECORD_COMM:
			if len(r) < 16 {
				return nil, fmt.Errorf("COMM record of %d bytes", len(r))
			}
			comm := cString(r[16:])
			s["comm "+comm]++
			if misc&uapi.PERF_RECORD_MISC_COMM_EXEC != 0 {
				s["comm-exec "+comm]++
			}
		case uapi.PERF_RECORD_LOST: // {u64 id; u64 lost}
			if len(r) < 24 {
				return nil, fmt.Errorf("LOST record of %d bytes", len(r))
			}
			s["lost"] += int64(le.Uint64(r[16:]))
		case uapi.PERF_RECORD_LOST_SAMPLES: // {u64 lost}
			if len(r) < 16 {
				return nil, fmt.Errorf("LOST_SAMPLES record of %d bytes", len(r))
			}
			s["lost-samples"] += int64(le.Uint64(r[8:]))
		case uapi.PERF_RECORD_SWITCH, uapi.PERF_RECORD_SWITCH_CPU_WIDE:
			switch {
			case misc&uapi.PERF_RECORD_MISC_SWITCH_OUT == 0:
				s["switch in"]++
			case misc&uapi.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT != 0:
				s["switch out-preempt"]++
			default:
				s["switch out"]++
			}
		case uapi.PERF_RECORD_CGROUP: // {u64 id; char path[]}
			if len(r) < 17 {
				return nil, fmt.Errorf("CGROUP record of %d bytes", len(r))
			}
			path := cString(r[16:])
			cgroups[le.Uint64(r[8:])] = path
			s["cgroup "+path]++
		case uapi.PERF_RECORD_READ:
			// {pid, tid, struct read_format}: an exiting inherit_stat child's
			// value (perf record -s), attributed through PERF_FORMAT_ID.
			name, val, id, err := readRecord(r, attrs[0].layout.ReadFormat, byID, func(i int) string { return attrs[i].name })
			if err != nil {
				return nil, err
			}
			s["reads "+name]++
			s["read-value "+name] += int64(val)
			// An exiting task writes the READs of one CPU's events in a row
			// into that CPU's ring, in its ctx->event_list order.
			pc := [2]uint64{uint64(le.Uint32(r[8:])), cpuOfID[id]}
			if prev, ok := lastRead[pc]; ok {
				s["read-next "+prev+" "+name]++
			}
			lastRead[pc] = name
		case idIndexRecord: // {u64 nr; nr x {u64 id, idx, cpu, tid}}: perf_event__synthesize_id_index()
			if len(r) < 16 {
				return nil, fmt.Errorf("ID_INDEX record of %d bytes", len(r))
			}
			nr := le.Uint64(r[8:])
			for i := uint64(0); i < nr && 16+32*(i+1) <= uint64(len(r)); i++ {
				e := r[16+32*i:]
				cpuOfID[le.Uint64(e)] = le.Uint64(e[16:])
			}
		case uapi.PERF_RECORD_SAMPLE:
			idx, err := sampleAttr(r, attrs[0].layout.SampleType, len(attrs), byID)
			if err != nil {
				return nil, err
			}
			name := attrs[idx].name
			s["samples "+name]++
			if err := sampleValues(s, r, attrs[idx].layout, attrs[idx].freq, name, byID, func(i int) string { return attrs[i].name }); err != nil {
				return nil, err
			}
			if st := attrs[idx].layout.SampleType; st&uapi.PERF_SAMPLE_CGROUP != 0 && st&afterCgroup == 0 {
				// PERF_SAMPLE_CGROUP is the last field when nothing after it is set
				s["samples-cgroup "+cgroups[le.Uint64(r[len(r)-8:])]]++
			}
			if old, ok := sizes[name]; !ok {
				sizes[name] = size
			} else if old != size {
				sizes[name] = -1
			}
		}
	}
	for name, sz := range sizes {
		s["sample-size "+name] = sz
	}
	return s, nil
}

// sampleValues adds a sample's period-sum and read-sum keys: only for an
// event with PERF_SAMPLE_PERIOD (of a fixed period) or PERF_SAMPLE_READ, so
// that the sample is decoded only where one of them is asked for.
// tools/perf/util/evsel.c: evsel__parse_sample()
func sampleValues(s Summary, r []byte, l rb.SampleLayout, freq bool, name string, byID map[uint64]int, attrName func(int) string) error {
	period := l.SampleType&uapi.PERF_SAMPLE_PERIOD != 0 && !freq
	if !period && l.SampleType&uapi.PERF_SAMPLE_READ == 0 {
		return nil
	}
	d, err := rb.DecodeSampleAttr(r, l)
	if err != nil {
		return fmt.Errorf("sample of %s: %w", name, err)
	}
	if period {
		s["period-sum "+name] += int64(d.Period)
	}
	if l.SampleType&uapi.PERF_SAMPLE_READ == 0 {
		return nil
	}
	vals, err := rb.ReadValues(d.Read, l.ReadFormat)
	if err != nil {
		return fmt.Errorf("sample of %s: %w", name, err)
	}
	for _, v := range vals {
		member := name
		if l.ReadFormat&uapi.PERF_FORMAT_GROUP != 0 {
			i, ok := byID[v.ID]
			if !ok {
				return fmt.Errorf("sample of %s reads id %d, which no attr has", name, v.ID)
			}
			member = attrName(i)
		}
		s["read-sum "+name+" "+member] += int64(v.Value)
	}
	return nil
}

// sampleAttr finds which attr a sample belongs to: by PERF_SAMPLE_IDENTIFIER
// (the first word) or PERF_SAMPLE_ID (after IP, TID, TIME and ADDR), or the
// only attr. tools/perf/util/evlist.c: evlist__event2evsel(), perf_evlist__id_pos
func sampleAttr(r []byte, st uint64, nattrs int, byID map[uint64]int) (int, error) {
	le := binary.LittleEndian
	off := -1
	switch {
	case st&uapi.PERF_SAMPLE_IDENTIFIER != 0:
		off = 8
	case st&uapi.PERF_SAMPLE_ID != 0:
		off = 8
		for _, b := range []uint64{uapi.PERF_SAMPLE_IP, uapi.PERF_SAMPLE_TID, uapi.PERF_SAMPLE_TIME, uapi.PERF_SAMPLE_ADDR} {
			if st&b != 0 {
				off += 8
			}
		}
	}
	if off < 0 {
		if nattrs == 1 {
			return 0, nil
		}
		return 0, fmt.Errorf("%d attrs and samples without an id", nattrs)
	}
	if len(r) < off+8 {
		return 0, fmt.Errorf("sample of %d bytes has no id at %d", len(r), off)
	}
	id := le.Uint64(r[off:])
	i, ok := byID[id]
	if !ok {
		if nattrs == 1 {
			return 0, nil
		}
		return 0, fmt.Errorf("sample id %d belongs to no attr", id)
	}
	return i, nil
}

// eventDescNames reads HEADER_EVENT_DESC: {u32 nr, u32 attr_size, then per
// evsel the attr, u32 nr_ids, a u32-length-prefixed string, the ids}.
// tools/perf/util/header.c: read_event_desc()
func eventDescNames(d []byte) ([]string, error) {
	le := binary.LittleEndian
	bad := fmt.Errorf("HEADER_EVENT_DESC of %d bytes is cut short", len(d))
	if len(d) < 8 {
		return nil, bad
	}
	nr, asz := int(le.Uint32(d)), int(le.Uint32(d[4:]))
	d = d[8:]
	var names []string
	for i := 0; i < nr; i++ {
		if len(d) < asz+8 {
			return nil, bad
		}
		d = d[asz:]
		nids := int(le.Uint32(d))
		slen := int(le.Uint32(d[4:]))
		d = d[8:]
		if len(d) < slen+8*nids {
			return nil, bad
		}
		names = append(names, cString(d[:slen]))
		d = d[slen+8*nids:]
	}
	return names, nil
}

func cString(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// Lines prints the summary as sorted "KEY VALUE" lines.
func (s Summary) Lines() []string {
	out := make([]string, 0, len(s))
	for k, v := range s {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(out)
	return out
}

// ParseSummary reads "KEY VALUE" lines back ('#' lines are comments).
func ParseSummary(text string) (Summary, error) {
	s := Summary{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		var v int64
		if i < 0 {
			return nil, fmt.Errorf("line %d: %q is not KEY VALUE", n+1, line)
		}
		if _, err := fmt.Sscan(line[i+1:], &v); err != nil {
			return nil, fmt.Errorf("line %d: %q: the value is not a number", n+1, line)
		}
		s[line[:i]] = v
	}
	return s, nil
}

// readRecord decodes a PERF_RECORD_READ of a non-group read_format: the
// event's name (by its PERF_FORMAT_ID), its value and its id (0 without).
// kernel/events/core.c: perf_event_read_event(), perf_output_read_one()
func readRecord(r []byte, rf uint64, byID map[uint64]int, name func(int) string) (string, uint64, uint64, error) {
	le := binary.LittleEndian
	if rf&uapi.PERF_FORMAT_GROUP != 0 || len(r) < 24 {
		return "", 0, 0, fmt.Errorf("READ record of %d bytes (read_format %#x)", len(r), rf)
	}
	val := le.Uint64(r[16:])
	off := 24
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_ENABLED != 0 {
		off += 8
	}
	if rf&uapi.PERF_FORMAT_TOTAL_TIME_RUNNING != 0 {
		off += 8
	}
	if rf&uapi.PERF_FORMAT_ID == 0 || off+8 > len(r) {
		return "attr0", val, 0, nil
	}
	id := le.Uint64(r[off:])
	idx, ok := byID[id]
	if !ok {
		return "", 0, 0, fmt.Errorf("READ record id %d belongs to no attr", id)
	}
	return name(idx), val, id, nil
}
