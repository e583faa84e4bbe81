package perftool

// The AUX area side of a perf record Session (tools/perf/util/auxtrace.c), for
// every AUX PMU (intel_pt, cs_etm, ...):
//
// Mapping. For each ring perf maps, the evsel whose fd is the ring's output
// (the first of its CPU or thread) decides whether an AUX area is mapped too
// (evsel->needs_auxtrace_mmap: the AUX event, which recording_options() moved
// to the front). perf writes aux_offset (the data mmap's length) and aux_size
// (Record.AuxPages pages) into the ring's user page and mmaps the fd at that
// offset: PROT_READ|PROT_WRITE in full-trace mode, PROT_READ alone in snapshot
// (-S) and sample (--aux-sample / aux-sample-size) mode, which the kernel takes
// as rb->aux_overwrite. A SessionAuxMmap is the result (struct auxtrace_mmap).
//
// Full-trace reading. After each data ring's push in record__mmap_read_evlist(),
// __auxtrace_mmap__read(snapshot = false): aux_head read with acquire, the
// bytes [prev, head) copied (one or two pieces when they wrap), a
// PERF_RECORD_AUXTRACE {size, offset, reference, idx, tid, cpu} written into
// perf.data followed by the bytes and the padding to 8, prev = head,
// aux_tail = head (smp_mb + WRITE_ONCE), then the PMU's read_finish (for
// intel_pt auxtrace_record__read_finish(): re-enable the AUX event of this
// mmap, which the kernel disabled when the buffer filled).
//
// Snapshot reading (-S). SIGUSR2 runs hit_auxtrace_snapshot_trigger(): when the
// trigger is ready it is hit and the PMU's snapshot_start runs in the handler
// (intel_pt: disable the AUX evsel). The main loop then reads every AUX mmap
// with __auxtrace_mmap__read(snapshot = true): aux_head, then the PMU's
// find_snapshot, which may move head and old (intel_pt_find_snapshot: in
// snapshot mode aux_head is an offset inside the buffer), the size clamped to
// the snapshot size, no aux_tail write; then snapshot_finish (intel_pt: enable
// again) and the trigger is ready for the next SIGUSR2.
//
// Per-PMU hooks. A PMU plugs its struct auxtrace_record callbacks in with
// RegisterAuxtraceRecord (this package, from init): FindSnapshot,
// SnapshotStart, SnapshotFinish, ReadFinish, Reference and Alignment. A PMU
// without a FindSnapshot reads snapshots with __auxtrace_mmap__read's own
// arithmetic (what cs_etm does since 2f01c200d440). Intel PT's are in
// session_aux_pt.go.

import (
	"encoding/binary"
	"fmt"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// RecordAuxtrace is PERF_RECORD_AUXTRACE, a user record perf writes into
// perf.data: a 48-byte header record followed by Size bytes of AUX data (not
// counted in header.size). tools/lib/perf/include/perf/event.h
const RecordAuxtrace = 71

// auxtraceRecordSize is sizeof(struct perf_record_auxtrace).
const auxtraceRecordSize = 48

// perfAuxtraceRecordAlignment is PERF_AUXTRACE_RECORD_ALIGNMENT.
const perfAuxtraceRecordAlignment = 8

// AuxtraceRecordOps are the per-PMU callbacks of struct auxtrace_record that
// the session uses. Every one may be nil.
type AuxtraceRecordOps struct {
	// FindSnapshot is itr->find_snapshot: given the AUX area as mapped and
	// the head just read, it may adjust head and old before the read. data
	// makes the area's bytes: a hook that does not call it leaves a
	// described area described (rb.AuxWriteSource).
	FindSnapshot func(ss *Session, mm *SessionAuxMmap, data func() []byte, head, old *uint64) error
	// SnapshotStart is itr->snapshot_start, run in the SIGUSR2 handler.
	SnapshotStart func(ss *Session, t *sched.Task) error
	// SnapshotFinish is itr->snapshot_finish, after the snapshot was read.
	SnapshotFinish func(ss *Session, t *sched.Task) error
	// ReadFinish is itr->read_finish, after a full-trace read of mm.
	ReadFinish func(ss *Session, t *sched.Task, mm *SessionAuxMmap) error
	// Reference is itr->reference (intel_pt: rdtsc()).
	Reference func(ss *Session) uint64
	// Alignment is itr->alignment (0: none).
	Alignment uint64
}

var auxtraceRecords = map[string]AuxtraceRecordOps{}

// RegisterAuxtraceRecord registers the auxtrace_record callbacks of the AUX
// PMU named pmuName (the Evsel.PMU of its events). Call it from init.
func RegisterAuxtraceRecord(pmuName string, ops AuxtraceRecordOps) { auxtraceRecords[pmuName] = ops }

// SessionAuxMmap is one AUX area perf mapped: struct auxtrace_mmap.
type SessionAuxMmap struct {
	Idx  int    // mm->idx: the mmap index (CPU index per-cpu, thread index per-thread)
	CPU  int    // mm->cpu (-1 per-thread)
	Tid  int    // mm->tid (-1 per-cpu)
	Len  uint64 // mm->len
	Mask uint64 // mm->mask (len - 1: a power of 2)
	Prev uint64 // mm->prev: aux_head at the last read
	// Overwrite: mapped PROT_READ (snapshot or sample mode).
	Overwrite bool
	PMU       string       // the AUX evsel's PMU
	Ring      *SessionMmap // the data ring whose user page holds aux_head/aux_tail
	Map       *pmu.Mapping // the AUX mapping; nil once unmapped
	// Priv is the PMU hook's per-mmap state (intel_pt: snapshot_refs[idx]).
	Priv any

	Reads int64 // PERF_RECORD_AUXTRACE records written from this mmap
	Bytes int64 // AUX bytes copied (padding excluded)
}

// auxState is what the session keeps of its AUX areas.
type auxState struct {
	mmaps       []*SessionAuxMmap
	trigger     snapTrigger
	started     bool // auxtrace_record__snapshot_started
	errs        int64
	auxtraceRec int64
	bytes       int64
	pt          *ptRecording // intel_pt's recording state (session_aux_pt.go)
}

// auxEvsel returns the index of the AUX area evsel (-1 if none).
func (r *Record) auxEvsel() int {
	for i := range r.Evsels {
		if isAuxEvsel(&r.Evsels[i]) {
			return i
		}
	}
	return -1
}

// auxSampleMode is opts->auxtrace_sample_mode: some evsel samples AUX data
// (auxtrace_validate_aux_sample_size()).
func (r *Record) auxSampleMode() bool {
	for i := range r.Evsels {
		if r.Evsels[i].Attr.SampleType&uapi.PERF_SAMPLE_AUX != 0 && r.Evsels[i].Attr.AuxSampleSize != 0 {
			return true
		}
	}
	return false
}

// auxSnapshotSize is opts->auxtrace_snapshot_size (default: the AUX area).
func (r *Record) auxSnapshotSize() uint64 {
	if r.Snapshot != nil && r.Snapshot.Size != 0 {
		return r.Snapshot.Size
	}
	return uint64(r.AuxPages) * pmu.PageSize
}

// auxtraceMmap maps the AUX area of ring m when evsel ev (the ring's output
// fd) needs one: aux_offset and aux_size into the user page, then mmap.
// tools/perf/util/auxtrace.c: auxtrace_mmap_params__init(), auxtrace_mmap_params__set_idx(), auxtrace_mmap__mmap()
func (ss *Session) auxtraceMmap(t *sched.Task, m *SessionMmap, ev int, idx int) error {
	e := &ss.R.Evsels[ev]
	if !isAuxEvsel(e) || ss.R.AuxPages == 0 { // !mp->mmap_needed || !mp->len
		return nil
	}
	length := uint64(ss.R.AuxPages) * pmu.PageSize
	offset := uint64(ss.R.MmapBytes()) // auxtrace_offset = mmap_len
	overwrite := ss.R.Snapshot != nil || ss.R.auxSampleMode()
	prot := pmu.ProtRead
	if !overwrite {
		prot |= pmu.ProtWrite
	}
	mm := &SessionAuxMmap{Idx: idx, CPU: m.CPU, Tid: -1, Len: length, Mask: length - 1, Overwrite: overwrite,
		PMU: e.PMU, Ring: m}
	if m.CPU < 0 {
		mm.Tid = ss.auxTid()
	}
	pc := m.Map.RB
	pc.SetUserAux(offset, length, "auxtrace_mmap__mmap")
	am, err := ss.K.Mmap(t, m.FD, offset/pmu.PageSize, length, prot)
	if err != nil {
		// pr_debug2("failed to mmap AUX area"); mmap__mmap() fails the whole evlist__mmap()
		return mmapFailed(err, ss.R.MmapPages, ss.R.AuxPages)
	}
	mm.Map = am
	ss.aux.mmaps = append(ss.aux.mmaps, mm)
	return nil
}

// auxTid is the thread of a --per-thread AUX mmap (the workload's).
func (ss *Session) auxTid() int {
	if ss.Workload != nil {
		return ss.Workload.TID
	}
	return -1
}

// AuxMmaps returns the AUX areas the session mapped, in mmap order.
func (ss *Session) AuxMmaps() []*SessionAuxMmap { return ss.aux.mmaps }

// auxMmapOf returns the AUX area mapped with ring m, or nil.
func (ss *Session) auxMmapOf(m *SessionMmap) *SessionAuxMmap {
	for _, mm := range ss.aux.mmaps {
		if mm.Ring == m {
			return mm
		}
	}
	return nil
}

// readHead is READ_ONCE(pc->aux_head) then smp_rmb().
// tools/perf/util/auxtrace.h: auxtrace_mmap__read_head()
func (mm *SessionAuxMmap) readHead(t *sched.Task, pc *rb.Buffer) uint64 {
	pc.UserAccess(rb.FieldAuxHead, rb.OpMarkedRead, "auxtrace_mmap__read_head") // tools/perf/util/auxtrace.h: auxtrace_mmap__read_head(): head = READ_ONCE(pc->aux_head)
	head := pc.User.AuxHead
	t.Step("auxtrace_mmap__read_head:loaded")
	t.MarkUnlessAnnotated("the AUX reader's caller") // footprint_record.go
	return head
}

// writeTail is smp_mb() then WRITE_ONCE(pc->aux_tail, tail).
// tools/perf/util/auxtrace.h: auxtrace_mmap__write_tail()
func (mm *SessionAuxMmap) writeTail(t *sched.Task, pc *rb.Buffer, tail uint64) {
	t.Step("auxtrace_mmap__write_tail:mb")
	t.MarkUnlessAnnotated("the AUX reader's caller") // footprint_record.go

	pc.UserAccess(rb.FieldAuxTail, rb.OpMarkedWrite, "auxtrace_mmap__write_tail") // tools/perf/util/auxtrace.h: auxtrace_mmap__write_tail(): WRITE_ONCE(pc->aux_tail, tail)
	pc.User.AuxTail = tail
}

// AuxtraceEvent is struct perf_record_auxtrace.
type AuxtraceEvent struct {
	Size, Offset, Reference uint64
	Idx, Tid, CPU           uint32
}

// Append encodes the 48-byte record (header.size 48: the data follows).
func (a AuxtraceEvent) Append(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, RecordAuxtrace)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint16(b, auxtraceRecordSize)
	for _, v := range []uint64{a.Size, a.Offset, a.Reference} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	for _, v := range []uint32{a.Idx, a.Tid, a.CPU, 0} {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

// ParseAuxtraceEvent decodes the 48-byte record at the start of b.
func ParseAuxtraceEvent(b []byte) (AuxtraceEvent, bool) {
	if len(b) < auxtraceRecordSize || binary.LittleEndian.Uint32(b) != RecordAuxtrace {
		return AuxtraceEvent{}, false
	}
	le := binary.LittleEndian
	return AuxtraceEvent{Size: le.Uint64(b[8:]), Offset: le.Uint64(b[16:]), Reference: le.Uint64(b[24:]),
		Idx: le.Uint32(b[32:]), Tid: le.Uint32(b[36:]), CPU: le.Uint32(b[40:])}, true
}

// auxtraceMmapRead reads mm: __auxtrace_mmap__read(). snapshot selects the
// -S path (find_snapshot, the size clamped to snapshotSize, no aux_tail). It
// returns 1 when a PERF_RECORD_AUXTRACE was written, 0 when there was nothing.
// tools/perf/util/auxtrace.c: __auxtrace_mmap__read()
func (ss *Session) auxtraceMmapRead(t *sched.Task, mm *SessionAuxMmap, snapshot bool, snapshotSize uint64) (int, error) {
	if mm.Map == nil || mm.Ring.Map == nil {
		return 0, nil
	}
	// This read holds on to both mappings: an action's thread may unmap
	// them meanwhile (mm.Map = nil); the pages stay readable.
	am, pc := mm.Map, mm.Ring.Map.RB
	ops := auxtraceRecords[mm.PMU]
	head := mm.readHead(t, pc)
	old := mm.Prev
	area := am.RB // mm->base

	area.UserAccess(rb.FieldAuxSize, rb.OpMarkedRead, "__auxtrace_mmap__read") // the model's check that the area perf mapped is still there (rb_free_aux() after an action's munmap)
	if area.AuxSize() != mm.Len {
		return -1, fmt.Errorf("perf record: AUX area of mmap %d is gone (%d bytes mapped, want %d)", mm.Idx, area.AuxSize(), mm.Len)
	}
	// the area's bytes as one slice, only if find_snapshot needs them: the
	// pieces below are read without making them
	bytes := area.AuxData
	if snapshot && ops.FindSnapshot != nil {
		if err := ops.FindSnapshot(ss, mm, bytes, &head, &old); err != nil {
			return -1, err
		}
	}
	if old == head {
		return 0, nil
	}
	size := auxReadSize(head, old, mm.Len, snapshot, snapshotSize)
	var ref uint64
	if ops.Reference != nil {
		ref = ops.Reference(ss)
	}
	offset := head - size // mm->mask != 0: the buffer is a power of 2
	// the one or two pieces (auxReadPieces), as area offsets and lengths
	headOff := head & mm.Mask
	off1, len1, len2 := headOff-size, size, uint64(0)
	if size > headOff {
		off1, len1, len2 = mm.Len-(size-headOff), size-headOff, headOff
	}
	if a := ops.Alignment; a != 0 {
		unwanted := len1 % a
		len1 -= unwanted
		size -= unwanted
	}
	padding := size & (perfAuxtraceRecordAlignment - 1)
	if padding != 0 {
		padding = perfAuxtraceRecordAlignment - padding
	}
	ev := AuxtraceEvent{Size: size + padding, Offset: offset, Reference: ref, Idx: uint32(mm.Idx),
		Tid: uint32(int32(mm.Tid)), CPU: uint32(int32(mm.CPU))}
	// The bytes are taken now, as they are in the AUX area at this moment.
	area.UserAccess(rb.FieldAuxPages, rb.OpMarkedRead, "__auxtrace_mmap__read") // tools/perf/util/auxtrace.c: __auxtrace_mmap__read(): data1 = &data[...], handed to record__process_auxtrace()
	p1, p2 := area.AuxPieces(off1, len1), area.AuxPieces(0, len2)
	ss.processAuxtrace(t, mm, ev, p1, p2)
	mm.Prev = head
	if !snapshot {
		mm.writeTail(t, pc, head)
		if ops.ReadFinish != nil {
			if err := ops.ReadFinish(ss, t, mm); err != nil {
				return -1, err
			}
		}
	}
	return 1, nil
}

// auxReadSize is how many bytes __auxtrace_mmap__read() takes between old and
// head in a buffer of length bytes (a power of 2), clamped in snapshot mode.
// tools/perf/util/auxtrace.c: __auxtrace_mmap__read()
func auxReadSize(head, old, length uint64, snapshot bool, snapshotSize uint64) uint64 {
	mask := length - 1
	headOff, oldOff := head&mask, old&mask
	var size uint64
	if headOff > oldOff {
		size = headOff - oldOff
	} else {
		size = length - (oldOff - headOff)
	}
	if snapshot && size > snapshotSize {
		size = snapshotSize
	}
	return size
}

// auxReadPieces returns the size bytes of data that end at headOff: one piece,
// or two when they wrap (the end of the buffer, then its start).
// tools/perf/util/auxtrace.c: __auxtrace_mmap__read()
func auxReadPieces(data []byte, headOff, size uint64) (data1, data2 []byte) {
	if size > headOff {
		len1 := size - headOff
		return data[uint64(len(data))-len1:], data[:headOff]
	}
	return data[headOff-size : headOff], nil
}

// processAuxtrace writes the record, the one or two pieces and the padding to
// 8 into perf.data, each with its own write(2). The pieces were taken as
// they were in the AUX area when the read began (bytes, or the area's
// descriptions: perfdata_lazy.go).
// tools/perf/builtin-record.c: record__process_auxtrace()
func (ss *Session) processAuxtrace(t *sched.Task, mm *SessionAuxMmap, ev AuxtraceEvent, p1, p2 []rb.AuxPiece) {
	n := piecesLen(p1) + piecesLen(p2)
	padding := n & 7
	if padding != 0 {
		padding = 8 - padding
	}
	ss.Data.noteAuxtrace(auxtraceRecordSize)
	write := func(n int, do func()) {
		if n == 0 {
			return
		}
		ss.S.SyscallAnnotated(t, "write", func(t *sched.Task) { // footprint_record.go
			t.Spend(ss.Opts.WriteSyscall + ss.Opts.WritePerKiB*sim.Duration(n)/1024)
			ss.accessKeep(t, n)
			do() // perf's own record: no ring
		})
	}
	hdr := ev.Append(nil)
	write(len(hdr), func() { ss.Data.write(hdr, -1, mm.CPU, ss.S.M.Now(), false) })
	for _, p := range [][]rb.AuxPiece{p1, p2} {
		write(piecesLen(p), func() { ss.Data.writePieces(p, -1, mm.CPU, ss.S.M.Now(), false) })
	}
	write(padding, func() { ss.Data.write(make([]byte, padding), -1, mm.CPU, ss.S.M.Now(), false) })
	mm.Reads++
	mm.Bytes += int64(n)
	ss.aux.auxtraceRec++
	ss.aux.bytes += int64(n)
}

// piecesLen is the length of the pieces' bytes.
func piecesLen(ps []rb.AuxPiece) int {
	n := 0
	for _, p := range ps {
		n += int(p.N)
	}
	return n
}

// auxtraceMmapReadFull is the full-trace read of the AUX area of ring m after
// its push; rec->samples counts a read that wrote something.
// tools/perf/builtin-record.c: record__mmap_read_evlist() -> record__auxtrace_mmap_read()
func (ss *Session) auxtraceMmapReadFull(t *sched.Task, m *SessionMmap) error {
	mm := ss.auxMmapOf(m)
	if mm == nil || ss.R.Snapshot != nil || ss.R.auxSampleMode() {
		return nil
	}
	ret, err := ss.auxtraceMmapRead(t, mm, false, 0)
	if err != nil {
		ss.aux.errs++
		return err
	}
	if ret > 0 {
		ss.stats.pushes++ // rec->samples++
	}
	return nil
}

// auxtraceMunmap unmaps the AUX area of ring m (after the ring itself).
// As perfMmapMunmap, two threads may both call munmap() for one area (the
// second finds nothing and returns 0); the pointer is cleared only if it
// still holds the mapping this call unmapped. Like perf, the result of
// munmap() is not looked at.
// tools/perf/util/auxtrace.c: auxtrace_mmap__munmap()
func (ss *Session) auxtraceMunmap(t *sched.Task, m *SessionMmap) {
	mm := ss.auxMmapOf(m)
	if mm == nil || mm.Map == nil {
		return
	}
	mp := mm.Map
	ss.K.Munmap(t, mp)
	if mm.Map == mp {
		mm.Map = nil
	}
}

// auxReadFinish is auxtrace_record__read_finish(): unless perf disabled the
// evlist, enable the AUX event of this mmap again (the kernel disables it when
// the buffer fills: perf_event_disable_inatomic()).
// tools/perf/util/auxtrace.c: auxtrace_record__read_finish() -> evlist__enable_event_idx()
func auxReadFinish(ss *Session, t *sched.Task, mm *SessionAuxMmap) error {
	if ss.disabled { // evsel->disabled
		return nil
	}
	if _, err := ss.K.Ioctl(t, mm.Ring.FD, uapi.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		return fmt.Errorf("perf record: re-enabling the AUX event of mmap %d: %w", mm.Idx, err)
	}
	return nil
}

func init() {
	pmu.RegisterStepPoints("auxtrace_mmap__read_head:loaded", "auxtrace_mmap__write_tail:mb")
	for _, o := range []struct {
		name, help string
		get        func(ss *Session) int64
	}{
		{"perf.auxtrace", "PERF_RECORD_AUXTRACE records perf wrote (AUX area reads that found data)", func(ss *Session) int64 { return ss.aux.auxtraceRec }},
		{"perf.aux_bytes", "AUX area bytes perf copied into perf.data (padding excluded)", func(ss *Session) int64 { return ss.aux.bytes }},
		{"perf.aux_mmaps", "AUX areas mapped", func(ss *Session) int64 { return int64(len(ss.aux.mmaps)) }},
		{"perf.aux_errors", "AUX area reads that failed", func(ss *Session) int64 { return ss.aux.errs }},
	} {
		RegisterSessionObservable(o.name, o.help, o.get)
	}
}
