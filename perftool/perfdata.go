package perftool

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sim"
	"perfsim/uapi"
)

// User record types perf record writes into perf.data itself (enum
// perf_user_event_type in tools/lib/perf/include/perf/event.h).
const (
	RecordFinishedRound = 68 // PERF_RECORD_FINISHED_ROUND: one record__mmap_read_all() pass ended
	RecordFinishedInit  = 82 // PERF_RECORD_FINISHED_INIT: synthesized events end here
)

// PerfData is the perf.data a Session wrote, kept in memory: the header's
// attrs (perf_session__write_header(): one perf_file_attr per evsel with the
// ids perf read back) and the data section exactly as record__write()
// appended it: synthesized events, the chunks perf_mmap__push() copied out of
// the ring buffers, and the FINISHED_ROUND markers.
type PerfData struct {
	Attrs  []FileAttr
	Data   []byte
	Chunks []Chunk
	// Records is the data section parsed (see Process), in file order.
	Records []DataRecord
	// ProcessErr is the error perf's reader would stop at (a header whose size
	// does not fit: what torn or overwritten bytes look like), or nil.
	ProcessErr error

	// Discard is -o /dev/null: nothing is kept (Data, Chunks and Records stay
	// empty, perf script prints nothing); each chunk is walked as it is
	// written and only counted, so Stats is still right. perf record itself
	// never parses what it writes, so neither costs the simulated perf time.
	Discard bool
	// Keep, when set, bounds the bytes of the data section kept in memory,
	// shared by the sessions of a run (see KeepBudget). A write that does not
	// fit drops what is kept: Dropped is set, Data, Chunks and Records are
	// emptied, and from then on each chunk is counted as it is written, as
	// with Discard, so Stats is still right. What needs the records (perf
	// script, the deferred callchain and AUX checks) has nothing to look at.
	Keep *KeepBudget
	// Dropped is set once the data section went over Keep.
	Dropped bool
	// Spool, when set, gets the whole data section as it is written, kept
	// or not (the data section of the perf.data file WriteFile writes).
	Spool io.ReadWriteSeeker
	// Written is the size of the data section perf wrote so far.
	Written  int64
	spoolErr error

	running DataStats
	pending []byte // a record cut at a chunk's end (a ring's wrap)
	// idSeen remembers where evselOf found an id (Attrs[i].IDs[j]), by the
	// id's low bits, checked at each use: perf record -a has an id per
	// evsel per CPU, and a scan of them all for every record grew with CPUs.
	idSeen [256]idPlace
	// parsed is the length of Data when Process last ran, so
	// that the records are parsed when something reads them (Parsed), not
	// at every run's end: most runs of an exploration never look.
	parsed int
	// stats is Stats as a walk over the records without keeping them found
	// it when the data section was statsAt-1 bytes long (0: not walked).
	stats   DataStats
	statsAt int

	// Snapshot is -S: each AUXTRACE is a snapshot of its own.
	Snapshot bool
	// NoFile is set when perf gave up before it created perf.data.
	NoFile bool
	// Empty is set when perf gave up after it created perf.data and before
	// it wrote anything there (record__open() failed): the file is empty.
	Empty bool
	// Env is the machine the header's features describe.
	Env Env
	// lazy are the payloads Data does not hold yet (perfdata_lazy.go), in
	// order, lazyBytes their length
	lazy      []lazyPayload
	lazyBytes int
	// auxIndex is where each PERF_RECORD_AUXTRACE starts in the data
	// section and its size with its data (HEADER_AUXTRACE).
	auxIndex [][2]uint64
	// BuildIDTable is !rec->no_buildid: perf writes HEADER_BUILD_ID (not
	// with -B, nor with --buildid-mmap, today's default, which puts the build
	// ids in MMAP2 instead); BuildIDAll is --buildid-all; BuildIDCallchain
	// says the tool marks callchain entries' dsos hit too (today's perf, not
	// 6.1). BuildIDOf gives a mapped file's build id (nil: none).
	BuildIDTable, BuildIDAll, BuildIDCallchain bool
	BuildIDOf                                  func(path string) []byte
	// NoBuildIDCache is -N: perf adds nothing to its build-id cache
	// (BuildIDCache).
	NoBuildIDCache bool
	// firstSample and lastSample are the first and last sample times perf
	// saw (HEADER_SAMPLE_TIME).
	firstSample, lastSample uint64
}

// KeepBudget is how many bytes of perf.data the sessions of a run may still
// keep in memory.
type KeepBudget struct {
	Total, Left int64
}

// NewKeepBudget returns a budget of n bytes.
func NewKeepBudget(n int64) *KeepBudget { return &KeepBudget{Total: n, Left: n} }

// keepLimit describes the budget for messages.
func (d *PerfData) keepLimit() string {
	n := int64(DefaultKeep)
	if d.Keep != nil {
		n = d.Keep.Total
	}
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// DefaultKeep is the default of a run's KeepBudget: the data sections the
// simulator keeps in memory for perf script and the checks that read the
// records (64 MiB; parsed, the records take about ten times that). The
// built-ins keep under 1 MiB; a run that writes more goes on with its
// records counted, not kept.
const DefaultKeep = 64 << 20

// FileAttr is struct perf_file_attr plus what perf script knows of the evsel.
type FileAttr struct {
	Name       string
	Attr       pmu.Attr
	IDs        []uint64 // from PERF_EVENT_IOC_ID on each of the evsel's fds
	Tracepoint *Tracepoint
	// IDSample is where each of IDs was opened (struct perf_sample_id: the
	// mmap index, CPU and thread), for PERF_RECORD_ID_INDEX.
	IDSample []IDSample
	Leader   int // index of the group leader (itself for a leader)
	Members  int // evsel->core.nr_members of a leader
	PMU      string
}

// IDSample is an id's entry of PERF_RECORD_ID_INDEX.
type IDSample struct {
	Idx, CPU, TID int
}

// Chunk is one record__write() into the data section.
type Chunk struct {
	Off, Len  int
	Map       int // index in Session.Mmaps, or -1 for what perf wrote itself
	CPU       int // the mmap's CPU (-1 for --per-thread and for perf's own records)
	At        sim.Time
	Overwrite bool
}

// DataRecord is one record of the data section with where it came from.
type DataRecord struct {
	Off    int
	Map    int // the mmap it was copied from, -1 when perf synthesized it
	CPU    int // that mmap's CPU
	Evsel  int // index in Attrs, -1 when no attr claims it
	Header rb.Header
	Dec    *rb.Decoded // nil for perf's own records, unknown types and errors
	Err    error       // why it did not decode (a torn or overwritten record)
}

// Synth reports whether perf wrote the record itself (not copied from a ring).
func (r *DataRecord) Synth() bool { return r.Map < 0 }

// Time is the record's timestamp (sample time or sample_id time), 0 if none.
func (r *DataRecord) Time() uint64 {
	switch {
	case r.Dec == nil:
		return 0
	case r.Dec.Sample != nil:
		return r.Dec.Sample.Time
	case r.Dec.ID != nil:
		return r.Dec.ID.Time
	}
	return 0
}

// write appends one chunk: record__write() -> perf_data__write().
func (d *PerfData) write(b []byte, mapIdx, cpu int, at sim.Time, overwrite bool) {
	if len(b) == 0 {
		return
	}
	if d.Discard {
		d.count(b, mapIdx < 0)
		return
	}
	d.Written += int64(len(b))
	if d.Spool != nil && d.spoolErr == nil {
		_, d.spoolErr = d.Spool.Write(b)
	}
	if !d.keep(len(b)) {
		d.count(b, mapIdx < 0)
		return
	}
	d.Chunks = append(d.Chunks, Chunk{Off: d.size(), Len: len(b), Map: mapIdx, CPU: cpu, At: at, Overwrite: overwrite})
	d.Data = append(d.Data, b...)
}

// keep takes n bytes out of the keep budget; it reports false when the data
// section is not kept (it went over the budget, now or before).
func (d *PerfData) keep(n int) bool {
	if !d.Dropped && d.Keep != nil {
		if int64(n) > d.Keep.Left {
			d.drop()
		} else {
			d.Keep.Left -= int64(n)
		}
	}
	return !d.Dropped
}

// drop stops keeping the data section: what is kept is counted, as Discard
// counts it, and let go (its bytes go back to the budget).
func (d *PerfData) drop() {
	d.materialize()
	for _, c := range d.Chunks {
		d.count(d.Data[c.Off:c.Off+c.Len], c.Map < 0)
	}
	if d.Keep != nil {
		d.Keep.Left += int64(len(d.Data))
	}
	d.Data, d.Chunks, d.Records, d.ProcessErr = nil, nil, nil, nil
	d.Dropped = true
}

// Kept reports whether the data section is in memory: neither discarded
// (-o /dev/null) nor dropped (over the keep budget).
func (d *PerfData) Kept() bool { return !d.Discard && !d.Dropped }

// idPos returns where the sample id sits: the u64 index in a SAMPLE's body
// (id_pos) and from the end of other records (is_pos), -1 without an id.
// tools/perf/util/evsel.c: evsel__calc_id_pos()
func idPos(sampleType uint64) (idPos, isPos int) {
	if sampleType&uapi.PERF_SAMPLE_IDENTIFIER != 0 {
		return 0, 1
	}
	if sampleType&uapi.PERF_SAMPLE_ID == 0 {
		return -1, -1
	}
	idPos = 0
	for _, b := range []uint64{uapi.PERF_SAMPLE_IP, uapi.PERF_SAMPLE_TID, uapi.PERF_SAMPLE_TIME, uapi.PERF_SAMPLE_ADDR} {
		if sampleType&b != 0 {
			idPos++
		}
	}
	isPos = 1
	for _, b := range []uint64{uapi.PERF_SAMPLE_CPU, uapi.PERF_SAMPLE_STREAM_ID} {
		if sampleType&b != 0 {
			isPos++
		}
	}
	return idPos, isPos
}

// evselOf finds the attr of a record by its sample id, as perf does with the
// evlist's id hash; with one attr every record is its own.
// tools/perf/util/evlist.c: evlist__event2evsel()
func (d *PerfData) evselOf(rec []byte, hdr rb.Header) int {
	if len(d.Attrs) == 1 {
		return 0
	}
	if len(d.Attrs) == 0 {
		return -1
	}
	first := d.Attrs[0].Attr
	ip, is := idPos(first.SampleType)
	var off int
	switch {
	case hdr.Type == uapi.PERF_RECORD_SAMPLE && ip >= 0:
		off = rb.HeaderSize + 8*ip
	case hdr.Type != uapi.PERF_RECORD_SAMPLE && is >= 0 && first.SampleIDAll:
		off = len(rec) - 8*is
	default:
		return 0 // evlist->first: perf falls back to the first evsel
	}
	if off < rb.HeaderSize || off+8 > len(rec) {
		return -1
	}
	id := binary.LittleEndian.Uint64(rec[off:])
	if id == 0 {
		return 0 // evlist__id2evsel(): no id is the first evsel
	}
	c := &d.idSeen[id%uint64(len(d.idSeen))]
	if c.i < len(d.Attrs) && c.j < len(d.Attrs[c.i].IDs) && d.Attrs[c.i].IDs[c.j] == id {
		return c.i // ids are unique to an event: where it was, it is still the first
	}
	for i := range d.Attrs {
		for j, x := range d.Attrs[i].IDs {
			if x == id {
				*c = idPlace{i, j}
				return i
			}
		}
	}
	return -1
}

// idPlace is where an id sits: Attrs[i].IDs[j].
type idPlace struct{ i, j int }

// knownType reports whether rb decodes records of type t.
func knownType(t uint32) bool {
	switch t {
	case uapi.PERF_RECORD_SAMPLE, uapi.PERF_RECORD_LOST, uapi.PERF_RECORD_COMM, uapi.PERF_RECORD_EXIT, uapi.PERF_RECORD_FORK, uapi.PERF_RECORD_MMAP, uapi.PERF_RECORD_MMAP2,
		uapi.PERF_RECORD_SWITCH, uapi.PERF_RECORD_SWITCH_CPU_WIDE, uapi.PERF_RECORD_AUX, uapi.PERF_RECORD_ITRACE_START,
		uapi.PERF_RECORD_CALLCHAIN_DEFERRED, uapi.PERF_RECORD_THROTTLE, uapi.PERF_RECORD_UNTHROTTLE, uapi.PERF_RECORD_CGROUP:
		return true
	}
	return false
}

// Process parses the data section from the start, as perf report / perf
// script read a perf.data file: record after record, each decoded with the
// attr its id names. A header whose size is below 8 or runs past the end stops
// the reader (perf: "bad event header size" / "failed to process events"); a
// record whose body does not decode is kept with its error.
// tools/perf/util/session.c: reader__read_event(), perf_session__process_event()
func (d *PerfData) Process() {
	if !d.Kept() {
		return
	}
	n, samples := d.countRecords()
	if cap(d.Records) < n {
		d.Records = make([]DataRecord, 0, n) // one allocation, not a doubling per record
	}
	arena := rb.NewArena(n, samples) // the decoded records too
	d.Records = d.Records[:0]
	d.ProcessErr = nil
	d.parsed = d.size()
	w := recordWalker{d: d}
	for {
		off, hdr, rec, st := w.next()
		switch st {
		case walkEnd:
			return
		case walkLazy:
			d.materialize()
			d.Process()
			return
		case walkBadHeader:
			d.ProcessErr = fmt.Errorf("perf.data offset %d: bad event header size %d", off, hdr.Size)
			return
		}
		r := DataRecord{Off: off, Map: -1, CPU: -1, Evsel: -1, Header: hdr}
		if c, ok := w.chunk(); ok {
			r.Map, r.CPU = c.Map, c.CPU
		}
		if knownType(hdr.Type) {
			r.Evsel = d.evselOf(rec, hdr)
			if r.Evsel < 0 {
				r.Err = errNoAttr
			} else {
				a := &d.Attrs[r.Evsel].Attr
				r.Dec, r.Err = arena.DecodeAttr(rec, a.SampleLayout(), a.SampleIDAll)
				if r.Dec != nil && r.Dec.Sample != nil && a.SampleType&uapi.PERF_SAMPLE_PERIOD == 0 {
					r.Dec.Sample.Period = a.SamplePeriod // evsel__parse_sample(): data->period = attr.sample_period
				}
			}
		}
		d.Records = append(d.Records, r)
	}
}

// countStats is Stats of the records Process would parse from a data
// section held as bytes (no lazy payloads): the same walk, each record
// decoded into a scratch arena and counted, none kept.
func (d *PerfData) countStats() DataStats {
	var s DataStats
	arena := rb.NewScratchArena()
	w := recordWalker{d: d}
	for {
		_, hdr, rec, st := w.next()
		if st == walkEnd {
			break
		}
		if st != walkRecord { // no lazy payloads: a bad header
			s.Torn++ // Process's ProcessErr: the reader stops here
			break
		}
		if w.synth() {
			continue // perf's own (DataRecord.Synth)
		}
		if !knownType(hdr.Type) {
			s.tally(hdr.Type, -1, nil, nil)
			continue
		}
		ev := d.evselOf(rec, hdr)
		if ev < 0 {
			s.tally(hdr.Type, ev, nil, errNoAttr)
			continue
		}
		a := &d.Attrs[ev].Attr
		l := a.SampleLayout()
		if hdr.Type == uapi.PERF_RECORD_SAMPLE { // counted as tally counts it, without building it
			s.Records++
			if !l.SampleValid(rec) {
				s.Torn++
			} else {
				s.countType(hdr.Type, ev, 0)
			}
			continue
		}
		dec, err := arena.DecodeAttr(rec, l, a.SampleIDAll)
		s.tally(hdr.Type, ev, dec, err)
	}
	return s
}

// errNoAttr is a record's error when its id names no attr.
var errNoAttr = errors.New("no attr for the record's id")

// tally counts a record copied from the rings: torn when its body does not
// decode (err: no attr for its id, or too short), unknown when the model
// does not decode its type (dec nil), else by its type (a sample for evsel
// ev, the attr its id names).
func (s *DataStats) tally(typ uint32, ev int, dec *rb.Decoded, err error) {
	s.Records++
	switch {
	case err != nil:
		s.Torn++
		return
	case dec == nil:
		s.Unknown++
		return
	}
	var lost int64
	if typ == uapi.PERF_RECORD_LOST {
		lost = int64(dec.Sideband.(*rb.Lost).Lost)
	}
	s.countType(typ, ev, lost)
}

// countType counts a record of type typ by its kind (ev: a sample's evsel,
// lost: a PERF_RECORD_LOST's count); it reports whether the kind is one it
// counts.
func (s *DataStats) countType(typ uint32, ev int, lost int64) bool {
	switch typ {
	case uapi.PERF_RECORD_SAMPLE:
		s.Samples++
		s.countEvsel(ev)
	case uapi.PERF_RECORD_LOST:
		s.LostRecords++
		s.Lost += lost
	case uapi.PERF_RECORD_COMM:
		s.Comm++
	case uapi.PERF_RECORD_EXIT:
		s.Exit++
	case uapi.PERF_RECORD_MMAP, uapi.PERF_RECORD_MMAP2:
		s.Mmap++
	default:
		return false
	}
	return true
}

// countEvsel counts a sample of evsel ev (Attrs[ev]; below 0: none).
func (s *DataStats) countEvsel(ev int) {
	if ev < 0 {
		return
	}
	for len(s.EvselSamples) <= ev {
		s.EvselSamples = append(s.EvselSamples, 0)
	}
	s.EvselSamples[ev]++
}

// countRecords is how many records Process will parse, and how many of them
// are PERF_RECORD_SAMPLE: the same walk over the headers, without decoding.
func (d *PerfData) countRecords() (n, samples int) {
	w := recordWalker{d: d}
	for ; ; n++ {
		_, hdr, _, st := w.next()
		if st != walkRecord {
			break
		}
		if hdr.Type == uapi.PERF_RECORD_SAMPLE {
			samples++
		}
	}
	return n, samples
}

// recordWalker walks a data section's records from the start as perf's
// reader does: header after header, a PERF_RECORD_AUXTRACE's data skipped,
// each record in the chunk it was written in.
// tools/perf/util/session.c: reader__read_event()
type recordWalker struct {
	d       *PerfData
	off, ci int // the next record's offset; the chunk of the last one
}

// walkStop is what recordWalker.next found.
type walkStop uint8

const (
	walkRecord    walkStop = iota // a record
	walkEnd                       // the end of the data section
	walkBadHeader                 // a header whose size is below 8 or runs past the end: the reader stops
	walkLazy                      // a record over a payload kept as a description (perfdata_lazy.go): materialize first
)

// next returns the next record, its offset and header; a stop other than
// walkRecord leaves the walker where it is.
func (w *recordWalker) next() (off int, hdr rb.Header, rec []byte, st walkStop) {
	d := w.d
	off = w.off
	if off >= d.size() {
		return off, hdr, nil, walkEnd
	}
	b, ok := d.view(off)
	hdr, okh := rb.ParseHeader(b)
	if !ok || (!okh && len(b) < d.size()-off) || okh && off+int(hdr.Size) <= d.size() && int(hdr.Size) > len(b) {
		return off, hdr, nil, walkLazy
	}
	if !okh || int(hdr.Size) < rb.HeaderSize || off+int(hdr.Size) > d.size() {
		return off, hdr, nil, walkBadHeader
	}
	for w.ci+1 < len(d.Chunks) && d.Chunks[w.ci+1].Off <= off {
		w.ci++
	}
	rec = b[:int(hdr.Size)]
	w.off = off + int(hdr.Size) + auxtraceSkip(hdr, rec) // PERF_RECORD_AUXTRACE's data (script_aux.go)
	return off, hdr, rec, walkRecord
}

// chunk is the chunk the last record was written in, ok false when none
// holds it.
func (w *recordWalker) chunk() (*Chunk, bool) {
	if w.ci < len(w.d.Chunks) {
		return &w.d.Chunks[w.ci], true
	}
	return nil, false
}

// synth reports whether the last record is perf's own (DataRecord.Synth).
func (w *recordWalker) synth() bool {
	c, ok := w.chunk()
	return !ok || c.Map < 0
}

// Parsed returns Records, after parsing the data section (Process) when
// something was written since it was last parsed.
func (d *PerfData) Parsed() []DataRecord {
	if d.Kept() && d.parsed != d.size() {
		d.Process()
	}
	return d.Records
}

// DataStats are the counts perf's reader gets from the data section.
type DataStats struct {
	Records     int64 // records copied from the rings (perf's own excluded)
	Samples     int64 // PERF_RECORD_SAMPLE
	LostRecords int64 // PERF_RECORD_LOST records
	Lost        int64 // sum of their lost counts
	Comm        int64 // PERF_RECORD_COMM from the kernel
	Exit        int64 // PERF_RECORD_EXIT
	Mmap        int64 // PERF_RECORD_MMAP and MMAP2 from the kernel
	Unknown     int64 // record types the model does not decode (mmap, ...)
	Torn        int64 // records that do not decode, plus 1 if the reader stopped
	// EvselSamples are the Samples by evsel: EvselSamples[i] the samples
	// whose id names Attrs[i] (machines__deliver_event()'s
	// evlist__id2evsel(sample->id)), up to the last evsel with one.
	EvselSamples []int64
}

// Stats counts the processed records. When nothing parsed the data section
// yet it counts them as Process would parse them (countStats), without
// keeping them: an exploration's outcomes mostly need only these counts.
func (d *PerfData) Stats() DataStats {
	if !d.Kept() {
		s := d.running
		s.EvselSamples = slices.Clone(s.EvselSamples) // d.running counts on
		return s
	}
	if d.parsed != d.size() && len(d.lazy) == 0 {
		if d.statsAt != d.size()+1 {
			d.stats, d.statsAt = d.countStats(), d.size()+1
		}
		return d.stats
	}
	d.Parsed()
	var s DataStats
	for i := range d.Records {
		r := &d.Records[i]
		if r.Synth() {
			continue
		}
		s.tally(r.Header.Type, r.Evsel, r.Dec, r.Err)
	}
	if d.ProcessErr != nil {
		s.Torn++
	}
	return s
}

// synthComm builds the PERF_RECORD_COMM perf writes for the forked workload
// before letting it run (its comm is still perf's: the exec has not happened),
// with a zeroed sample_id trailer of the first attr's layout.
// tools/perf/util/synthetic-events.c: perf_event__synthesize_comm()
func synthComm(a *pmu.Attr, pid, tid int, comm string) []byte {
	return rb.AppendRecord(nil, &rb.Comm{Pid: uint32(pid), Tid: uint32(tid), Comm: comm}, a.SampleType, a.SampleIDAll, nil)
}

// headerOnly is a user record of just a header (FINISHED_ROUND, FINISHED_INIT).
func headerOnly(typ uint32) []byte {
	b := make([]byte, rb.HeaderSize)
	binary.LittleEndian.PutUint32(b, typ)
	binary.LittleEndian.PutUint16(b[6:], rb.HeaderSize)
	return b
}

// newPerfData starts the perf.data of r: one attr per evsel, in evlist order
// (perf_session__write_header() writes evsel->core.attr for each).
func newPerfData(r *Record) *PerfData {
	d := &PerfData{Discard: r.Output == "/dev/null", Env: simEnv(r, r.NrCPUs), NoFile: r.Exit != nil, Snapshot: r.Snapshot != nil,
		BuildIDTable: r.BuildIDTable, BuildIDAll: r.BuildIDAll, BuildIDCallchain: r.Tool != ToolPerf61, NoBuildIDCache: r.NoBuildIDCache}
	for i := range r.Evsels {
		e := &r.Evsels[i]
		d.Attrs = append(d.Attrs, FileAttr{Name: e.Name, Attr: e.Attr, Tracepoint: e.Tracepoint, Leader: e.Leader, PMU: e.PMU})
		d.Attrs[e.Leader].Members++
	}
	return d
}
