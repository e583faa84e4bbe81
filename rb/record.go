package rb

import (
	"encoding/binary"
	"math/bits"

	"perfsim/uapi"
)

// The attr.sample_type bits (enum perf_event_sample_format) that rb encodes.
const (
	// SampleSupported are the bits EncodeSample understands.
	SampleSupported = uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ADDR | uapi.PERF_SAMPLE_CALLCHAIN |
		uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD | uapi.PERF_SAMPLE_STREAM_ID | uapi.PERF_SAMPLE_RAW | uapi.PERF_SAMPLE_IDENTIFIER |
		uapi.PERF_SAMPLE_READ | uapi.PERF_SAMPLE_REGS_USER | uapi.PERF_SAMPLE_STACK_USER | uapi.PERF_SAMPLE_DATA_SRC | uapi.PERF_SAMPLE_BRANCH_STACK |
		uapi.PERF_SAMPLE_CGROUP

	// SampleIDAll is PERF_SAMPLE_ID_ALL: the bits that go into a sample_id trailer.
	SampleIDAll = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_STREAM_ID | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_IDENTIFIER
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

// PutHeader writes h as the first 8 bytes of b.
func PutHeader(b []byte, h Header) {
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
	return 8 * bits.OnesCount64(sampleType&SampleIDAll)
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
	if sampleType&uapi.PERF_SAMPLE_TID != 0 {
		b = le.AppendUint32(b, id.Pid)
		b = le.AppendUint32(b, id.Tid)
	}
	if sampleType&uapi.PERF_SAMPLE_TIME != 0 {
		b = le.AppendUint64(b, id.Time)
	}
	if sampleType&uapi.PERF_SAMPLE_ID != 0 {
		b = le.AppendUint64(b, id.ID)
	}
	if sampleType&uapi.PERF_SAMPLE_STREAM_ID != 0 {
		b = le.AppendUint64(b, id.StreamID)
	}
	if sampleType&uapi.PERF_SAMPLE_CPU != 0 {
		b = le.AppendUint32(b, id.CPU)
		b = le.AppendUint32(b, id.Res)
	}
	if sampleType&uapi.PERF_SAMPLE_IDENTIFIER != 0 {
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
func (a *Arena) parseSampleID(rec []byte, sampleType uint64) (*SampleID, error) {
	n := IDHeaderSize(sampleType)
	if len(rec) < HeaderSize+n {
		return nil, errTruncated("sample_id")
	}
	b := rec[len(rec)-n:]
	le := binary.LittleEndian
	id := a.sampleID()
	if sampleType&uapi.PERF_SAMPLE_TID != 0 {
		id.Pid, id.Tid = le.Uint32(b), le.Uint32(b[4:])
		b = b[8:]
	}
	if sampleType&uapi.PERF_SAMPLE_TIME != 0 {
		id.Time, b = le.Uint64(b), b[8:]
	}
	if sampleType&uapi.PERF_SAMPLE_ID != 0 {
		id.ID, b = le.Uint64(b), b[8:]
	}
	if sampleType&uapi.PERF_SAMPLE_STREAM_ID != 0 {
		id.StreamID, b = le.Uint64(b), b[8:]
	}
	if sampleType&uapi.PERF_SAMPLE_CPU != 0 {
		id.CPU, id.Res = le.Uint32(b), le.Uint32(b[4:])
		b = b[8:]
	}
	if sampleType&uapi.PERF_SAMPLE_IDENTIFIER != 0 {
		id.ID = le.Uint64(b)
	}
	return id, nil
}
