package rb

import (
	"encoding/binary"
	"math/bits"

	"perfsim/uapi"
)

// Sample is the perf_sample_data of one PERF_RECORD_SAMPLE, for the sample_type bits
// rb encodes (SampleSupported).
type Sample struct {
	Type uint64 // attr.sample_type (not in the bytes; the reader knows it from the attr)
	Misc uint16

	ID       uint64 // data->id: PERF_SAMPLE_IDENTIFIER and PERF_SAMPLE_ID
	IP       uint64
	Pid, Tid uint32
	Time     uint64
	Addr     uint64
	StreamID uint64
	CPU, Res uint32
	Period   uint64
	// Read is the PERF_SAMPLE_READ part as perf_output_read() lays it out for
	// the event's read_format (the values of the event, or of its group).
	Read []byte
	// ReadReserved is what the record reserves for Read: event->read_size as
	// perf_event__header_size() cached it at the last group change (0: the
	// length of Read). perf_output_read_group() writes the group as it is at
	// the sample, so while a sibling is attached or detached, or after a
	// leader's siblings are promoted, the two can differ: the record then
	// writes past its reservation or leaves stale bytes at its end.
	ReadReserved int
	Callchain    []uint64 // ips; written as u64 nr followed by the ips
	// Raw is the PERF_SAMPLE_RAW payload. Written as u32 size then the bytes, padded so
	// that size field + payload is 8-aligned; size counts the padding, which the
	// kernel skips (leaves stale) rather than zeroes. Decoded, Raw holds size bytes,
	// padding included. nil writes the kernel's empty raw record {size 4, u32 0}.
	Raw []byte
	// AuxSize is data->aux_size (PERF_SAMPLE_AUX, last in the record): the u64
	// size and that many bytes, fixed by perf_prepare_sample_aux(). AuxOutput, when
	// set, writes them (perf_aux_sample_output()); otherwise Aux is copied and the
	// rest zero-padded. Decoded, Aux holds the AuxSize bytes (aux_sample.go).
	AuxSize   uint64
	Aux       []byte
	AuxOutput func(st Stepper, h *Handle, s *Sample)

	// RegsABI is PERF_SAMPLE_REGS_USER's abi (0: no user registers, as for
	// a kernel thread; 2: PERF_SAMPLE_REGS_ABI_64), followed when non-zero by
	// RegsUser, one u64 per bit of attr.sample_regs_user.
	RegsABI  uint64
	RegsUser []uint64
	// StackUser is PERF_SAMPLE_STACK_USER's dump: u64 size, the bytes, then
	// (size non-zero) u64 StackDyn, how many of them were really copied.
	StackUser []byte
	StackDyn  uint64
	// DataSrc is PERF_SAMPLE_DATA_SRC: union perf_mem_data_src, PERF_MEM_NA
	// unless a memory event says where the access was served.
	DataSrc uint64
	// Cgroup is PERF_SAMPLE_CGROUP: cgroup_id() of current's perf_event
	// cgroup (task_css_check(current, perf_event_cgrp_id)).
	Cgroup uint64
	// Branches is PERF_SAMPLE_BRANCH_STACK: u64 nr, then (with
	// PERF_SAMPLE_BRANCH_HW_INDEX in branch_sample_type, BranchHWIndex) the
	// u64 hw_idx, then nr entries of 3 u64 each {from, to, flags}.
	BranchHWIndex bool
	HWIdx         uint64
	Branches      [][3]uint64
}

// IDOf is the sample_id trailer data a sample carries (its perf_sample_data).
func (s *Sample) IDOf() *SampleID {
	return &SampleID{Pid: s.Pid, Tid: s.Tid, Time: s.Time, ID: s.ID, StreamID: s.StreamID, CPU: s.CPU, Res: s.Res}
}

// rawSize is the bytes PERF_SAMPLE_RAW takes: round_up(len + sizeof(u32), 8).
// include/linux/perf_event.h: perf_sample_save_raw_data()
func rawSize(raw []byte) int {
	if raw == nil {
		return 8
	}
	return (len(raw) + 4 + 7) &^ 7
}

// SampleSize is header.size of the sample: perf_sample_data_size() after
// perf_prepare_sample(). It fails when a sample_type bit is not supported or the
// record does not fit the u16 header.size (where the kernel would WARN and wrap).
// kernel/events/core.c: perf_prepare_sample(), perf_prepare_header()
func SampleSize(s *Sample) (int, error) {
	t := s.Type
	if t&^uint64(SampleSupported|uapi.PERF_SAMPLE_AUX) != 0 {
		return 0, errUnsupported(t &^ uint64(SampleSupported|uapi.PERF_SAMPLE_AUX))
	}
	n := HeaderSize + IDHeaderSize(t)                                                                // event->id_header_size
	n += 8 * bits.OnesCount64(t&(uapi.PERF_SAMPLE_IP|uapi.PERF_SAMPLE_ADDR|uapi.PERF_SAMPLE_PERIOD)) // event->header_size
	if t&uapi.PERF_SAMPLE_READ != 0 {
		n += s.readReserved()
	}
	if t&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
		n += 8 * (1 + len(s.Callchain))
	}
	if t&uapi.PERF_SAMPLE_RAW != 0 {
		n += rawSize(s.Raw)
	}
	if t&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		n += 8 + 24*len(s.Branches)
		if s.BranchHWIndex {
			n += 8
		}
	}
	if t&uapi.PERF_SAMPLE_REGS_USER != 0 {
		n += 8
		if s.RegsABI != 0 {
			n += 8 * len(s.RegsUser)
		}
	}
	if t&uapi.PERF_SAMPLE_STACK_USER != 0 {
		n += 8
		if len(s.StackUser) > 0 {
			n += len(s.StackUser) + 8
		}
	}
	if t&uapi.PERF_SAMPLE_DATA_SRC != 0 {
		n += 8
	}
	if t&uapi.PERF_SAMPLE_CGROUP != 0 {
		n += 8
	}
	n += auxSampleBytes(s)
	if n > MaxRecordSize {
		return 0, ErrRecordTooBig
	}
	return n, nil
}

// readReserved is the bytes the record reserves for PERF_SAMPLE_READ.
func (s *Sample) readReserved() int {
	if s.ReadReserved > 0 {
		return s.ReadReserved
	}
	return len(s.Read)
}

// readMisfit is how many bytes more (or, negative, fewer) the PERF_SAMPLE_READ
// part writes than the record reserved for it.
func (s *Sample) readMisfit() int {
	if s.Type&uapi.PERF_SAMPLE_READ == 0 || s.ReadReserved == 0 {
		return 0
	}
	return len(s.Read) - s.ReadReserved
}

// OutputSample writes the sample through h, in the kernel's field order, and does the
// wakeup_events accounting. size is what SampleSize returned.
// kernel/events/core.c: perf_output_sample()
func OutputSample(st Stepper, h *Handle, s *Sample, size int, ev Event) {
	if outputSampleFields(st, h, s, size) {
		outputSampleAuxStatic(h, s)
	}
	outputSampleWakeup(h, ev)
}

// outputSampleWithAux is OutputSample for a sample whose AUX part a PMU copies
// itself (Sample.AuxOutput: perf_pmu_snapshot_aux). It is apart from OutputSample
// because handing the handle to a callback moves it to the heap, and the
// ordinary sample path must not allocate.
// kernel/events/core.c: perf_output_sample()
func outputSampleWithAux(st Stepper, h *Handle, s *Sample, size int, ev Event) {
	if outputSampleFields(st, h, s, size) {
		outputSampleAux(st, h, s)
	}
	outputSampleWakeup(h, ev)
}

// outputSampleFields writes the header and every field before PERF_SAMPLE_AUX; it
// reports whether an AUX part follows.
func outputSampleFields(st Stepper, h *Handle, s *Sample, size int) bool {
	rb := h.rb
	if rb == nil {
		return false
	}
	hw := headerWord(Header{Type: uapi.PERF_RECORD_SAMPLE, Misc: s.Misc, Size: uint16(size)})
	full := size
	size -= auxSampleBytes(s) // PERF_SAMPLE_AUX goes last: perfOutputSampleAux
	fp := rb.footprinting()
	if d := s.readMisfit(); d != 0 {
		// perf_output_read_group() writes more or fewer entries than
		// read_size reserved: __output_copy() does not check the
		// reservation, so the fields after it shift, and the record ends
		// past its reservation (over the next one) or short of it (the
		// rest keeps what the ring held there).
		put64(h, hw)
		StepAt(st, "perf_output_sample:header")
		rb.access(fp, rb, FieldDataPages, OpMarkedWrite, "perf_output_sample") // core.c: perf_output_sample(): the fields after the header (footprint_output.go)
		b := make([]byte, size-HeaderSize+d)
		n := encodeSampleBody(b, s)
		OutputCopy(h, b[:n])
		if d < 0 {
			OutputSkip(h, size-HeaderSize-n)
		}
		if rb.Tracer != nil {
			rb.Tracer(TraceEvent{Kind: TraceMisfit, Pos: h.pos, Size: full, Value: uint64(full + d)})
		}
		return full != size
	}
	if h.size >= size && size >= HeaderSize {
		// Contiguous: encode in place (same bytes as the field by field copy).
		rb.access(fp, rb, FieldDataPages, OpMarkedWrite, "perf_output_sample") // core.c: perf_output_sample(): perf_output_put(handle, *header)
		b := rb.span(h.addr, size)
		binary.LittleEndian.PutUint64(b, hw)
		StepAt(st, "perf_output_sample:header")
		rb.access(fp, rb, FieldDataPages, OpMarkedWrite, "perf_output_sample") // core.c: perf_output_sample(): the fields after the header (footprint_output.go)
		encodeSampleBody(b[HeaderSize:], s)
		h.advance(size)
	} else {
		put64(h, hw)
		StepAt(st, "perf_output_sample:header")
		rb.access(fp, rb, FieldDataPages, OpMarkedWrite, "perf_output_sample") // core.c: perf_output_sample(): the fields after the header (footprint_output.go)
		var buf [512]byte
		var b []byte
		if size <= len(buf) {
			b = buf[:size-HeaderSize]
		} else {
			b = make([]byte, size-HeaderSize)
		}
		n := encodeSampleBody(b, s)
		OutputCopy(h, b[:n])
		OutputSkip(h, size-HeaderSize-n) // RAW frag->pad: __output_skip()
	}
	return full != size
}

// outputSampleWakeup is the wakeup_events accounting at the end of
// perf_output_sample().
func outputSampleWakeup(h *Handle, ev Event) {
	rb := h.rb
	if rb == nil {
		return
	}
	if we := ev.WakeupEvents(); we > 0 {
		fp := rb.footprinting()
		rb.access(fp, rb, "rb->events", OpMarkedWrite, "perf_output_sample") // core.c: perf_output_sample(): events = local_inc_return(&rb->events)
		rb.events++
		if rb.events >= int64(we) {
			rb.events -= int64(we)
			rb.access(fp, rb, "rb->wakeup", OpAtomicAdd, "perf_output_sample") // core.c: perf_output_sample(): local_inc(&rb->wakeup)
			rb.wakeup++
		}
	}
}

// encodeSampleBody writes the fields after the header into b (which has room for
// them) and returns how many bytes it wrote: all but the RAW padding, which the
// kernel skips rather than writes.
// kernel/events/core.c: perf_output_sample()
func encodeSampleBody(b []byte, s *Sample) int {
	le := binary.LittleEndian
	t := s.Type
	n := 0
	put := func(v uint64) {
		le.PutUint64(b[n:], v)
		n += 8
	}
	if t&uapi.PERF_SAMPLE_IDENTIFIER != 0 {
		put(s.ID)
	}
	if t&uapi.PERF_SAMPLE_IP != 0 {
		put(s.IP)
	}
	if t&uapi.PERF_SAMPLE_TID != 0 {
		put(uint64(s.Pid) | uint64(s.Tid)<<32)
	}
	if t&uapi.PERF_SAMPLE_TIME != 0 {
		put(s.Time)
	}
	if t&uapi.PERF_SAMPLE_ADDR != 0 {
		put(s.Addr)
	}
	if t&uapi.PERF_SAMPLE_ID != 0 {
		put(s.ID)
	}
	if t&uapi.PERF_SAMPLE_STREAM_ID != 0 {
		put(s.StreamID)
	}
	if t&uapi.PERF_SAMPLE_CPU != 0 {
		put(uint64(s.CPU) | uint64(s.Res)<<32)
	}
	if t&uapi.PERF_SAMPLE_PERIOD != 0 {
		put(s.Period)
	}
	if t&uapi.PERF_SAMPLE_READ != 0 {
		n += copy(b[n:], s.Read)
	}
	if t&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
		put(uint64(len(s.Callchain)))
		for _, ip := range s.Callchain {
			put(ip)
		}
	}
	if t&uapi.PERF_SAMPLE_RAW != 0 {
		if s.Raw != nil {
			le.PutUint32(b[n:], uint32(rawSize(s.Raw)-4))
			n += 4
			n += copy(b[n:], s.Raw)
		} else {
			put(4) // struct { u32 size = 4; u32 data = 0; }
		}
	}
	if t&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		put(uint64(len(s.Branches)))
		if s.BranchHWIndex {
			put(s.HWIdx)
		}
		for _, br := range s.Branches {
			put(br[0])
			put(br[1])
			put(br[2])
		}
	}
	if t&uapi.PERF_SAMPLE_REGS_USER != 0 { // perf_output_sample_regs()
		put(s.RegsABI)
		if s.RegsABI != 0 {
			for _, r := range s.RegsUser {
				put(r)
			}
		}
	}
	if t&uapi.PERF_SAMPLE_STACK_USER != 0 { // perf_output_sample_ustack()
		put(uint64(len(s.StackUser)))
		if len(s.StackUser) > 0 {
			n += copy(b[n:], s.StackUser)
			put(s.StackDyn)
		}
	}
	if t&uapi.PERF_SAMPLE_DATA_SRC != 0 {
		put(s.DataSrc)
	}
	if t&uapi.PERF_SAMPLE_CGROUP != 0 { // after PHYS_ADDR, before DATA_PAGE_SIZE
		put(s.Cgroup)
	}
	return n
}

// PerfEventOutput writes one sample into rb, forward or backward: prepare, begin,
// output, end. It returns the error of the begin (ENOSPC when dropped).
// kernel/events/core.c: __perf_event_output()
func PerfEventOutput(st Stepper, rb *Buffer, ev Event, s *Sample, backward bool) error {
	return perfEventOutput(st, rb, ev, s, backward, false)
}

// PerfEventOutputAudited is PerfEventOutput for a caller that annotates its
// own code from the record's end (perf_output_end(), or a begin that found
// no room) to its context's next step point: the return into it is not
// marked unaudited (pmu/footprint_overflow.go, __perf_event_output()'s).
func PerfEventOutputAudited(st Stepper, rb *Buffer, ev Event, s *Sample, backward bool) error {
	return perfEventOutput(st, rb, ev, s, backward, true)
}

func perfEventOutput(st Stepper, rb *Buffer, ev Event, s *Sample, backward, callerAudited bool) error {
	size, err := SampleSize(s)
	if err != nil {
		return err
	}
	var id *SampleID
	if rb != nil && rb.lost != 0 {
		id = s.IDOf() // only a PERF_RECORD_LOST in front needs the sample_id data
	}
	if s.AuxOutput != nil {
		h := &Handle{callerAudited: callerAudited}
		if err := OutputBegin(st, h, rb, id, ev, size, backward); err != nil {
			return err
		}
		outputSampleWithAux(st, h, s, size, ev)
		OutputEnd(st, h)
		return nil
	}
	h := Handle{callerAudited: callerAudited}
	if err := OutputBegin(st, &h, rb, id, ev, size, backward); err != nil {
		return err
	}
	OutputSample(st, &h, s, size, ev)
	OutputEnd(st, &h)
	return nil
}

// AppendSample appends the bytes of the sample record to dst, as OutputSample writes
// them (RAW padding as zeroes). A sample whose Read does not fit ReadReserved has
// no bytes of its own (it spills into, or leaves stale, ring bytes): an error.
func AppendSample(dst []byte, s *Sample) ([]byte, error) {
	if s.readMisfit() != 0 {
		return dst, errReadMisfit
	}
	size, err := SampleSize(s)
	if err != nil {
		return dst, err
	}
	b := make([]byte, size)
	binary.LittleEndian.PutUint64(b, headerWord(Header{Type: uapi.PERF_RECORD_SAMPLE, Misc: s.Misc, Size: uint16(size)}))
	encodeSampleBody(b[HeaderSize:], s)
	putSampleAux(b[size-auxSampleBytes(s):], s)
	return append(dst, b...), nil
}

// DecodeSample parses a PERF_RECORD_SAMPLE written with sampleType, checking every
// length against the record as perf's evsel__parse_sample() does.
// tools/perf/util/evsel.c: evsel__parse_sample()
func DecodeSample(rec []byte, sampleType uint64) (*Sample, error) {
	return DecodeSampleRF(rec, sampleType, 0)
}

// DecodeSampleRF is DecodeSample for an event whose attr.read_format is
// readFormat, which sizes the PERF_SAMPLE_READ part.
func DecodeSampleRF(rec []byte, sampleType, readFormat uint64) (*Sample, error) {
	return DecodeSampleAttr(rec, SampleLayout{SampleType: sampleType, ReadFormat: readFormat})
}

// SampleLayout are the attr fields that lay a sample out: sample_type, and
// read_format and sample_regs_user, which size the READ and REGS_USER parts.
type SampleLayout struct {
	SampleType, ReadFormat, SampleRegsUser, BranchSampleType uint64
}

// DecodeSampleAttr decodes a sample of an event whose attr has layout l.
func DecodeSampleAttr(rec []byte, l SampleLayout) (*Sample, error) {
	return (*Arena)(nil).decodeSample(rec, l)
}

func (a *Arena) decodeSample(rec []byte, l SampleLayout) (*Sample, error) {
	sampleType, readFormat := l.SampleType, l.ReadFormat
	hdr, err := checkRecord(rec)
	if err != nil {
		return nil, err
	}
	if hdr.Type != uapi.PERF_RECORD_SAMPLE {
		return nil, errType(hdr.Type, uapi.PERF_RECORD_SAMPLE)
	}
	if sampleType&^uint64(SampleSupported|uapi.PERF_SAMPLE_AUX) != 0 {
		return nil, errUnsupported(sampleType &^ uint64(SampleSupported|uapi.PERF_SAMPLE_AUX))
	}
	d := decoder{b: rec[HeaderSize:], alias: a != nil && a.scratch}
	s := a.sample()
	s.Type, s.Misc = sampleType, hdr.Misc
	t := sampleType
	if t&uapi.PERF_SAMPLE_IDENTIFIER != 0 {
		s.ID = d.u64()
	}
	if t&uapi.PERF_SAMPLE_IP != 0 {
		s.IP = d.u64()
	}
	if t&uapi.PERF_SAMPLE_TID != 0 {
		s.Pid, s.Tid = d.u32(), d.u32()
	}
	if t&uapi.PERF_SAMPLE_TIME != 0 {
		s.Time = d.u64()
	}
	if t&uapi.PERF_SAMPLE_ADDR != 0 {
		s.Addr = d.u64()
	}
	if t&uapi.PERF_SAMPLE_ID != 0 {
		s.ID = d.u64()
	}
	if t&uapi.PERF_SAMPLE_STREAM_ID != 0 {
		s.StreamID = d.u64()
	}
	if t&uapi.PERF_SAMPLE_CPU != 0 {
		s.CPU, s.Res = d.u32(), d.u32()
	}
	if t&uapi.PERF_SAMPLE_PERIOD != 0 {
		s.Period = d.u64()
	}
	if t&uapi.PERF_SAMPLE_READ != 0 {
		n, err := readPartSize(d.b, readFormat)
		if err != nil {
			return nil, err
		}
		s.Read = d.bytes(n)
	}
	if t&uapi.PERF_SAMPLE_CALLCHAIN != 0 {
		nr := d.u64()
		if nr > uint64(len(d.b)/8) {
			return nil, errTruncated("callchain")
		}
		s.Callchain = a.uint64s(int(nr))
		for i := range s.Callchain {
			s.Callchain[i] = d.u64()
		}
	}
	if t&uapi.PERF_SAMPLE_RAW != 0 {
		n := d.u32()
		if uint64(n) > uint64(len(d.b)) {
			return nil, errTruncated("raw")
		}
		s.Raw = d.bytes(int(n))
	}
	if t&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		nr := d.u64()
		if s.BranchHWIndex = l.BranchSampleType&uapi.PERF_SAMPLE_BRANCH_HW_INDEX != 0; s.BranchHWIndex {
			s.HWIdx = d.u64()
		}
		if nr > uint64(len(d.b)/24) {
			return nil, errTruncated("branch stack")
		}
		for i := uint64(0); i < nr; i++ {
			s.Branches = append(s.Branches, [3]uint64{d.u64(), d.u64(), d.u64()})
		}
	}
	if t&uapi.PERF_SAMPLE_REGS_USER != 0 {
		s.RegsABI = d.u64()
		if s.RegsABI != 0 {
			s.RegsUser = make([]uint64, bits.OnesCount64(l.SampleRegsUser))
			for i := range s.RegsUser {
				s.RegsUser[i] = d.u64()
			}
		}
	}
	if t&uapi.PERF_SAMPLE_STACK_USER != 0 {
		n := d.u64()
		if n > uint64(len(d.b)) {
			return nil, errTruncated("stack user")
		}
		if n > 0 {
			s.StackUser = d.bytes(int(n))
			s.StackDyn = d.u64()
		}
	}
	if t&uapi.PERF_SAMPLE_DATA_SRC != 0 {
		s.DataSrc = d.u64()
	}
	if t&uapi.PERF_SAMPLE_CGROUP != 0 {
		s.Cgroup = d.u64()
	}
	if t&uapi.PERF_SAMPLE_AUX != 0 {
		decodeSampleAux(&d, s)
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errTrailing(len(d.b))
	}
	return s, nil
}

// readPartSize is the length of a PERF_SAMPLE_READ part at the start of b:
// {value, [enabled], [running], [id], [lost]} or, with PERF_FORMAT_GROUP,
// {nr, [enabled], [running], nr x {value, [id], [lost]}}.
// tools/perf/util/evsel.c: evsel__parse_sample() (PERF_SAMPLE_READ)
func readPartSize(b []byte, rf uint64) (int, error) {
	times := 8 * bits.OnesCount64(rf&(uapi.PERF_FORMAT_TOTAL_TIME_ENABLED|uapi.PERF_FORMAT_TOTAL_TIME_RUNNING))
	per := 8 * (1 + bits.OnesCount64(rf&(uapi.PERF_FORMAT_ID|uapi.PERF_FORMAT_LOST)))
	if rf&uapi.PERF_FORMAT_GROUP == 0 {
		return 8 + times + per - 8, nil
	}
	if len(b) < 8 {
		return 0, errTruncated("read")
	}
	nr := binary.LittleEndian.Uint64(b)
	if nr > uint64(len(b)/per) {
		return 0, errTruncated("read group")
	}
	return 8 + times + int(nr)*per, nil
}
