package perftool

import (
	"encoding/binary"
	"strings"

	"perfsim/rb"
	"perfsim/uapi"
)

// The tool-side ABI of HEADER_BUILD_ID: struct perf_record_header_build_id
// {header; pid; union {build_id[24]; {data[20]; size; reserved}}; filename[]}
// with the name NUL-terminated and padded to NAME_ALIGN.
// tools/lib/perf/include/perf/event.h; tools/perf/util/build-id.c: write_buildid()
const (
	miscBuildIDSize     = 1 << 15 // PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid
	buildIDEventSize    = 36      // sizeof(struct perf_record_header_build_id)
	buildIDNameAlign    = 64      // NAME_ALIGN
	kernelDSOName       = "[kernel.kallsyms]"
	buildIDUnionSize    = 24 // the build_id union
	buildIDDataSizeByte = 32 // offset of the size byte in the record
)

// BuildIDEntry is one entry of HEADER_BUILD_ID: a DSO that samples hit (or
// every DSO with --buildid-all), with its build id.
type BuildIDEntry struct {
	Kernel  bool // in the kernel's dsos (misc PERF_RECORD_MISC_KERNEL)
	BuildID []byte
	Name    string // dso->long_name ("[kernel.kallsyms]" for the kernel)
}

// encodeBuildIDTable lays the entries out as perf_session__write_buildid_table()
// writes them: one perf_record_header_build_id each (type 0, misc the cpumode
// | PERF_RECORD_MISC_BUILD_ID_SIZE, pid HOST_KERNEL_ID), then the name.
// tools/perf/util/build-id.c: write_buildid()
func encodeBuildIDTable(es []BuildIDEntry) []byte {
	le := binary.LittleEndian
	var b []byte
	for _, e := range es {
		n := (len(e.Name) + 1 + buildIDNameAlign - 1) &^ (buildIDNameAlign - 1)
		misc := uint16(uapi.PERF_RECORD_MISC_USER)
		if e.Kernel {
			misc = uapi.PERF_RECORD_MISC_KERNEL
		}
		b = le.AppendUint32(b, 0)
		b = le.AppendUint16(b, misc|miscBuildIDSize)
		b = le.AppendUint16(b, uint16(buildIDEventSize+n))
		b = le.AppendUint32(b, ^uint32(0)) // pid: HOST_KERNEL_ID (-1)
		id := make([]byte, buildIDUnionSize)
		copy(id, e.BuildID)
		b = append(b, id[:buildIDDataSizeByte-12]...) // data[20]
		b = append(b, byte(len(e.BuildID)), 0, 0, 0)  // size, reserved1__, reserved2__
		name := make([]byte, n)
		copy(name, e.Name)
		b = append(b, name...)
	}
	return b
}

// decodeBuildIDTable reads a HEADER_BUILD_ID section back.
// tools/perf/util/header.c: perf_header__read_build_ids()
func decodeBuildIDTable(b []byte) []BuildIDEntry {
	le := binary.LittleEndian
	var out []BuildIDEntry
	for len(b) >= buildIDEventSize {
		misc, size := le.Uint16(b[4:]), int(le.Uint16(b[6:]))
		if size < buildIDEventSize || size > len(b) {
			break
		}
		n := 20
		if misc&miscBuildIDSize != 0 {
			n = min(int(b[buildIDDataSizeByte]), 20)
		}
		name := b[buildIDEventSize:size]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		out = append(out, BuildIDEntry{
			Kernel:  misc&uapi.PERF_RECORD_MISC_CPUMODE_MASK == uapi.PERF_RECORD_MISC_KERNEL,
			BuildID: append([]byte(nil), b[12:12+n]...),
			Name:    string(name),
		})
		b = b[size:]
	}
	return out
}

// bidDSO is a struct dso as the build-id pass sees it.
type bidDSO struct {
	name    string
	kernel  bool
	buildID []byte
	hit     bool
}

// bidMap is a struct map of a thread's maps: [start, end) of dso.
type bidMap struct {
	start, end uint64
	dso        *bidDSO
}

// buildIDTable is what perf record writes as HEADER_BUILD_ID: it processes
// the data section as process_buildids() does (ordered by time: the kernel's
// dso is the host's, made at session start; each MMAP/MMAP2 of a user file
// adds a map to its process, replacing what it overlaps; FORK of a process
// copies its parent's maps, of a thread shares them), marks the dso of every
// sample's ip hit (perf 6.1: build_id__mark_dso_hit(); today's perf also each
// callchain entry's: "Walk the call chain to mark all IPs and DSOs", after 6.1),
// then lists the dsos hit (all with --buildid-all) that have a build id, in
// the order perf made them. Nil: none, and perf drops the feature
// (write_build_id() fails, perf_header__adds_write() clears the bit).
// tools/perf/builtin-record.c: process_buildids(); util/build-id.c: machine__write_buildid_table()
func (d *PerfData) buildIDTable() []BuildIDEntry {
	if !d.BuildIDTable || d.Written == 0 {
		return nil // -B, --buildid-mmap, or perf_data__size() == 0
	}
	kernel := &bidDSO{name: kernelDSOName, kernel: true, buildID: KernelBuildID}
	dsos := []*bidDSO{kernel}
	byName := map[string]*bidDSO{}
	maps := map[uint32]*[]bidMap{} // by pid: a process's threads share their maps
	mapsOf := func(pid uint32) *[]bidMap {
		m := maps[pid]
		if m == nil {
			m = new([]bidMap)
			maps[pid] = m
		}
		return m
	}
	find := func(pid uint32, cpumode uint16, ip uint64) *bidDSO {
		if cpumode == uapi.PERF_RECORD_MISC_KERNEL {
			if ip >= simKernelText {
				return kernel
			}
			return nil
		}
		if cpumode != uapi.PERF_RECORD_MISC_USER {
			return nil
		}
		if ms := maps[pid]; ms != nil {
			for _, m := range *ms {
				if ip >= m.start && ip < m.end {
					return m.dso
				}
			}
		}
		return nil
	}
	for _, i := range d.timeOrder() {
		r := &d.Records[i]
		switch {
		case r.Dec.Sample != nil && r.Evsel >= 0:
			s := r.Dec.Sample
			mode := r.Header.Misc & uapi.PERF_RECORD_MISC_CPUMODE_MASK
			if x := find(s.Pid, mode, s.IP); x != nil {
				x.hit = true
			}
			if d.BuildIDCallchain {
				markCallchain(s, mode, func(mode uint16, ip uint64) {
					if x := find(s.Pid, mode, ip); x != nil {
						x.hit = true
					}
				})
			}
		case r.Header.Type == uapi.PERF_RECORD_MMAP || r.Header.Type == uapi.PERF_RECORD_MMAP2:
			m, ok := r.Dec.Sideband.(*rb.Mmap)
			// build_id__process_mmap{,2}(): the kernel's maps are the host's.
			if !ok || r.Header.Misc&uapi.PERF_RECORD_MISC_CPUMODE_MASK == uapi.PERF_RECORD_MISC_KERNEL {
				continue
			}
			x := byName[m.Filename]
			if x == nil {
				x = &bidDSO{name: m.Filename}
				if d.BuildIDOf != nil {
					x.buildID = d.BuildIDOf(m.Filename)
				}
				byName[m.Filename] = x
				dsos = append(dsos, x)
			}
			insertMap(mapsOf(m.Pid), bidMap{m.Start, m.Start + m.Len, x})
		case r.Header.Type == uapi.PERF_RECORD_FORK:
			f, ok := r.Dec.Sideband.(*rb.Task)
			if !ok || f.Pid == f.Ppid || maps[f.Pid] != nil {
				continue // a thread shares its process's maps
			}
			cp := append([]bidMap(nil), *mapsOf(f.Ppid)...)
			maps[f.Pid] = &cp
		}
	}
	var out []BuildIDEntry
	for _, x := range dsos {
		if len(x.buildID) == 0 || !(x.hit || d.BuildIDAll) {
			continue
		}
		out = append(out, BuildIDEntry{Kernel: x.kernel, BuildID: x.buildID, Name: x.name})
	}
	return out
}

// insertMap is maps__fixup_overlappings() then maps__insert(): m replaces
// whatever of the old maps it overlaps (their parts outside it stay).
func insertMap(ms *[]bidMap, m bidMap) {
	var out []bidMap
	for _, o := range *ms {
		if o.end <= m.start || o.start >= m.end {
			out = append(out, o)
			continue
		}
		if o.start < m.start {
			out = append(out, bidMap{o.start, m.start, o.dso})
		}
		if o.end > m.end {
			out = append(out, bidMap{m.end, o.end, o.dso})
		}
	}
	*ms = append(out, m)
}

// markCallchain calls hit for each ip of s's callchain with the cpumode its
// context marker gives (sample__for_each_callchain_node() without symbols):
// the ips after PERF_CONTEXT_KERNEL are the kernel's, after
// PERF_CONTEXT_USER the user's; other contexts are skipped.
func markCallchain(s *rb.Sample, mode uint16, hit func(mode uint16, ip uint64)) {
	for _, ip := range s.Callchain {
		switch {
		case ip == uapi.PERF_CONTEXT_KERNEL:
			mode = uapi.PERF_RECORD_MISC_KERNEL
		case ip == uapi.PERF_CONTEXT_USER:
			mode = uapi.PERF_RECORD_MISC_USER
		case ip >= uapi.PERF_CONTEXT_MAX:
			mode = 0 // hypervisor, guest, a deferred user part: none modelled
		default:
			if mode != 0 {
				hit(mode, ip)
			}
		}
	}
}

// fileBuildID is the build id of a file the simulated machine mapped (the
// note of its ELF image, as WriteImages writes it): nil for names that are
// not files ("//anon", "[heap]", ...).
func (ss *Session) fileBuildID(path string) []byte {
	if len(path) == 0 || path[0] != '/' || strings.HasPrefix(path, "//") {
		return nil
	}
	return ss.S.FS.Lookup(path).BuildID
}
