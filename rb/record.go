package rb

import (
	"encoding/binary"
	"math/bits"
)

// Record types (include/uapi/linux/perf_event.h enum perf_event_type).
const (
	RecordMmap          = 1
	RecordLost          = 2
	RecordComm          = 3
	RecordExit          = 4
	RecordThrottle      = 5
	RecordUnthrottle    = 6
	RecordFork          = 7
	RecordRead          = 8
	RecordSample        = 9
	RecordMmap2         = 10
	RecordAux           = 11
	RecordItraceStart   = 12
	RecordLostSamples   = 13
	RecordSwitch        = 14
	RecordSwitchCPUWide = 15
)

// perf_event_header.misc bits used here.
const (
	MiscKernel           = 1 << 0
	MiscUser             = 1 << 1
	MiscCommExec         = 1 << 13 // PERF_RECORD_MISC_COMM_EXEC (COMM)
	MiscSwitchOut        = 1 << 13 // PERF_RECORD_MISC_SWITCH_OUT (SWITCH*)
	MiscSwitchOutPreempt = 1 << 14 // PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
	MiscExactIP          = 1 << 14 // PERF_RECORD_MISC_EXACT_IP (SAMPLE)
)

// attr.sample_type bits (enum perf_event_sample_format) that rb encodes.
const (
	PerfSampleIP          = 1 << 0
	PerfSampleTID         = 1 << 1
	PerfSampleTime        = 1 << 2
	PerfSampleAddr        = 1 << 3
	PerfSampleRead        = 1 << 4 // Sample.Read: the core lays the values out (read_format)
	PerfSampleCallchain   = 1 << 5
	PerfSampleID          = 1 << 6
	PerfSampleCPU         = 1 << 7
	PerfSamplePeriod      = 1 << 8
	PerfSampleStreamID    = 1 << 9
	PerfSampleRaw         = 1 << 10
	PerfSampleBranchStack = 1 << 11 // Sample.Branches (struct perf_branch_entry: from, to, flags)
	PerfSampleRegsUser    = 1 << 12 // Sample.RegsABI, RegsUser
	PerfSampleStackUser   = 1 << 13 // Sample.StackUser, StackDyn
	PerfSampleDataSrc     = 1 << 15 // Sample.DataSrc
	PerfSampleIdentifier  = 1 << 16

	// PerfSampleSupported are the bits EncodeSample understands.
	PerfSampleSupported = PerfSampleIP | PerfSampleTID | PerfSampleTime | PerfSampleAddr | PerfSampleCallchain |
		PerfSampleID | PerfSampleCPU | PerfSamplePeriod | PerfSampleStreamID | PerfSampleRaw | PerfSampleIdentifier |
		PerfSampleRead | PerfSampleRegsUser | PerfSampleStackUser | PerfSampleDataSrc | PerfSampleBranchStack

	// PerfSampleIDAll is PERF_SAMPLE_ID_ALL: the bits that go into a sample_id trailer.
	PerfSampleIDAll = PerfSampleTID | PerfSampleTime | PerfSampleID | PerfSampleStreamID | PerfSampleCPU | PerfSampleIdentifier
)

// HeaderSize is sizeof(struct perf_event_header).
const HeaderSize = 8

// MaxRecordSize is the largest record: perf_event_header.size is a u16.
const MaxRecordSize = 65535

// Header is struct perf_event_header.
type Header struct {
	Type uint32
	Misc uint16
	Size uint16
}

func putHeader(b []byte, h Header) {
	binary.LittleEndian.PutUint32(b[0:], h.Type)
	binary.LittleEndian.PutUint16(b[4:], h.Misc)
	binary.LittleEndian.PutUint16(b[6:], h.Size)
}

// headerWord is the header as the u64 the kernel stores with perf_output_put().
func headerWord(h Header) uint64 {
	return uint64(h.Type) | uint64(h.Misc)<<32 | uint64(h.Size)<<48
}

// ParseHeader reads a perf_event_header; ok is false when b is too short.
func ParseHeader(b []byte) (h Header, ok bool) {
	if len(b) < HeaderSize {
		return Header{}, false
	}
	return Header{
		Type: binary.LittleEndian.Uint32(b[0:]),
		Misc: binary.LittleEndian.Uint16(b[4:]),
		Size: binary.LittleEndian.Uint16(b[6:]),
	}, true
}

// IDHeaderSize is event->id_header_size for sample_type: the size of the sample_id
// trailer (8 bytes per PERF_SAMPLE_ID_ALL bit set).
// kernel/events/core.c: __perf_event_id_header_size()
func IDHeaderSize(sampleType uint64) int {
	return 8 * bits.OnesCount64(sampleType&PerfSampleIDAll)
}

// SampleID is the sample_id trailer (struct sample_id) and the perf_sample_data
// fields it is written from, as perf_event_header__init_id() fills them.
type SampleID struct {
	Pid, Tid uint32
	Time     uint64
	ID       uint64 // primary_event_id(event): the group leader's id for PERF_SAMPLE_ID/IDENTIFIER
	StreamID uint64 // event->id
	CPU      uint32
	Res      uint32
}

// appendSampleID appends the trailer for sampleType.
// kernel/events/core.c: __perf_event__output_id_sample()
func appendSampleID(b []byte, sampleType uint64, id *SampleID) []byte {
	var z SampleID
	if id == nil {
		id = &z
	}
	le := binary.LittleEndian
	if sampleType&PerfSampleTID != 0 {
		b = le.AppendUint32(b, id.Pid)
		b = le.AppendUint32(b, id.Tid)
	}
	if sampleType&PerfSampleTime != 0 {
		b = le.AppendUint64(b, id.Time)
	}
	if sampleType&PerfSampleID != 0 {
		b = le.AppendUint64(b, id.ID)
	}
	if sampleType&PerfSampleStreamID != 0 {
		b = le.AppendUint64(b, id.StreamID)
	}
	if sampleType&PerfSampleCPU != 0 {
		b = le.AppendUint32(b, id.CPU)
		b = le.AppendUint32(b, id.Res)
	}
	if sampleType&PerfSampleIdentifier != 0 {
		b = le.AppendUint64(b, id.ID)
	}
	return b
}

// OutputIDSample writes the sample_id trailer of data through the handle when
// ev has sample_id_all.
// kernel/events/core.c: perf_event__output_id_sample()
func OutputIDSample(ev Event, h *Handle, data *SampleID) {
	if !ev.SampleIDAll() {
		return
	}
	var buf [48]byte
	OutputCopy(h, appendSampleID(buf[:0], ev.SampleType(), data))
}

// parseSampleID decodes a trailer of sampleType from the end of rec.
// tools/perf/util/evsel.c: perf_evsel__parse_id_sample()
func parseSampleID(rec []byte, sampleType uint64) (*SampleID, error) {
	n := IDHeaderSize(sampleType)
	if len(rec) < HeaderSize+n {
		return nil, errTruncated("sample_id")
	}
	b := rec[len(rec)-n:]
	le := binary.LittleEndian
	id := &SampleID{}
	if sampleType&PerfSampleTID != 0 {
		id.Pid, id.Tid = le.Uint32(b), le.Uint32(b[4:])
		b = b[8:]
	}
	if sampleType&PerfSampleTime != 0 {
		id.Time, b = le.Uint64(b), b[8:]
	}
	if sampleType&PerfSampleID != 0 {
		id.ID, b = le.Uint64(b), b[8:]
	}
	if sampleType&PerfSampleStreamID != 0 {
		id.StreamID, b = le.Uint64(b), b[8:]
	}
	if sampleType&PerfSampleCPU != 0 {
		id.CPU, id.Res = le.Uint32(b), le.Uint32(b[4:])
		b = b[8:]
	}
	if sampleType&PerfSampleIdentifier != 0 {
		id.ID = le.Uint64(b)
	}
	return id, nil
}
