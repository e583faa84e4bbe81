package rb

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"perfsim/uapi"
)

// Sideband is the body of a non-sample record (everything between the header and the
// sample_id trailer).
type Sideband interface {
	RecordType() uint32
	RecordMisc() uint16
	bodySize() int
	appendBody(b []byte) []byte
}

// Lost is PERF_RECORD_LOST {id, lost}: records the ring buffer dropped.
// kernel/events/ring_buffer.c: __perf_output_begin() lost_event
type Lost struct{ ID, Lost uint64 }

// Comm is PERF_RECORD_COMM {pid, tid, comm[]}; Exec sets PERF_RECORD_MISC_COMM_EXEC.
// kernel/events/core.c: perf_event_comm_event()
type Comm struct {
	Pid, Tid uint32
	Comm     string // task->comm: at most TASK_COMM_LEN-1 = 15 bytes are written
	Exec     bool
}

// Task is PERF_RECORD_EXIT (or PERF_RECORD_FORK when Fork) {pid, ppid, tid, ptid, time}.
// kernel/events/core.c: perf_event_task_output()
type Task struct {
	Fork                 bool
	Pid, Ppid, Tid, Ptid uint32
	Time                 uint64
}

// Switch is PERF_RECORD_SWITCH (header only) or, with CPUWide, PERF_RECORD_SWITCH_CPU_WIDE
// {next_prev_pid, next_prev_tid}. Out and Preempt are the misc bits.
// kernel/events/core.c: perf_event_switch_output()
type Switch struct {
	CPUWide                  bool
	Out, Preempt             bool
	NextPrevPid, NextPrevTid uint32
}

// Aux is PERF_RECORD_AUX {aux_offset, aux_size, flags}.
// kernel/events/core.c: perf_event_aux_event()
type Aux struct{ Offset, Size, Flags uint64 }

// ItraceStart is PERF_RECORD_ITRACE_START {pid, tid}.
// kernel/events/core.c: perf_event_itrace_started()
type ItraceStart struct{ Pid, Tid uint32 }

// Cgroup is PERF_RECORD_CGROUP {id, path}: a cgroup came online (or, from
// perf, one that existed at its start). Path is cgroup_path(), "/" for the
// root, NUL-terminated and zero-padded to 8 bytes.
// kernel/events/core.c: perf_event_cgroup() -> perf_event_cgroup_output()
type Cgroup struct {
	ID   uint64
	Path string
}

// taskCommLen is TASK_COMM_LEN.
const taskCommLen = 16

// RecordType implements Sideband.
func (*Lost) RecordType() uint32 { return uapi.PERF_RECORD_LOST }

// RecordMisc implements Sideband.
func (*Lost) RecordMisc() uint16 { return 0 }
func (*Lost) bodySize() int      { return 16 }
func (r *Lost) appendBody(b []byte) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, r.ID), r.Lost)
}

func (r *Comm) comm() string {
	if len(r.Comm) > taskCommLen-1 {
		return r.Comm[:taskCommLen-1]
	}
	if i := bytes.IndexByte([]byte(r.Comm), 0); i >= 0 {
		return r.Comm[:i]
	}
	return r.Comm
}

// RecordType implements Sideband.
func (*Comm) RecordType() uint32 { return uapi.PERF_RECORD_COMM }

// RecordMisc implements Sideband.
func (r *Comm) RecordMisc() uint16 {
	if r.Exec {
		return uapi.PERF_RECORD_MISC_COMM_EXEC
	}
	return 0
}
func (r *Comm) bodySize() int { return 8 + (len(r.comm())+1+7)&^7 } // ALIGN(strlen+1, 8)
func (r *Comm) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, r.Pid)
	b = binary.LittleEndian.AppendUint32(b, r.Tid)
	c := r.comm()
	b = append(b, c...)
	return append(b, make([]byte, r.bodySize()-8-len(c))...)
}

// RecordType implements Sideband.
func (r *Task) RecordType() uint32 {
	if r.Fork {
		return uapi.PERF_RECORD_FORK
	}
	return uapi.PERF_RECORD_EXIT
}

// RecordMisc implements Sideband.
func (*Task) RecordMisc() uint16 { return 0 }
func (*Task) bodySize() int      { return 24 }
func (r *Task) appendBody(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, r.Pid)
	b = le.AppendUint32(b, r.Ppid)
	b = le.AppendUint32(b, r.Tid)
	b = le.AppendUint32(b, r.Ptid)
	return le.AppendUint64(b, r.Time)
}

// RecordType implements Sideband.
func (r *Switch) RecordType() uint32 {
	if r.CPUWide {
		return uapi.PERF_RECORD_SWITCH_CPU_WIDE
	}
	return uapi.PERF_RECORD_SWITCH
}

// RecordMisc implements Sideband.
func (r *Switch) RecordMisc() uint16 {
	var m uint16
	if r.Out {
		m |= uapi.PERF_RECORD_MISC_SWITCH_OUT
		if r.Preempt {
			m |= uapi.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT
		}
	}
	return m
}
func (r *Switch) bodySize() int {
	if r.CPUWide {
		return 8
	}
	return 0
}
func (r *Switch) appendBody(b []byte) []byte {
	if !r.CPUWide {
		return b
	}
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, r.NextPrevPid), r.NextPrevTid)
}

// RecordType implements Sideband.
func (*Cgroup) RecordType() uint32 { return uapi.PERF_RECORD_CGROUP }

// RecordMisc implements Sideband.
func (*Cgroup) RecordMisc() uint16 { return 0 }
func (r *Cgroup) bodySize() int    { return 8 + (len(r.Path)+1+7)&^7 } // ALIGN(strlen+1, sizeof(u64))
func (r *Cgroup) appendBody(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, r.ID)
	b = append(b, r.Path...)
	return append(b, make([]byte, r.bodySize()-8-len(r.Path))...)
}

// RecordType implements Sideband.
func (*Aux) RecordType() uint32 { return uapi.PERF_RECORD_AUX }

// RecordMisc implements Sideband.
func (*Aux) RecordMisc() uint16 { return 0 }
func (*Aux) bodySize() int      { return 24 }
func (r *Aux) appendBody(b []byte) []byte {
	le := binary.LittleEndian
	return le.AppendUint64(le.AppendUint64(le.AppendUint64(b, r.Offset), r.Size), r.Flags)
}

// RecordType implements Sideband.
func (*ItraceStart) RecordType() uint32 { return uapi.PERF_RECORD_ITRACE_START }

// RecordMisc implements Sideband.
func (*ItraceStart) RecordMisc() uint16 { return 0 }
func (*ItraceStart) bodySize() int      { return 8 }
func (r *ItraceStart) appendBody(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, r.Pid), r.Tid)
}

// RecordSize is header.size of a side-band record for ev: the struct plus
// event->id_header_size when sample_id_all (perf_event_header__init_id()).
// kernel/events/core.c: perf_event_header__init_id()
func RecordSize(r Sideband, ev Event) int {
	n := HeaderSize + r.bodySize()
	if ev.SampleIDAll() {
		n += IDHeaderSize(ev.SampleType())
	}
	return n
}

// AppendRecord appends the bytes of a side-band record with its trailer (when
// sampleIDAll) to dst.
func AppendRecord(dst []byte, r Sideband, sampleType uint64, sampleIDAll bool, id *SampleID) []byte {
	n := HeaderSize + r.bodySize()
	if sampleIDAll {
		n += IDHeaderSize(sampleType)
	}
	dst = binary.LittleEndian.AppendUint64(dst, headerWord(Header{Type: r.RecordType(), Misc: r.RecordMisc(), Size: uint16(n)}))
	dst = r.appendBody(dst)
	if sampleIDAll {
		dst = appendSampleID(dst, sampleType, id)
	}
	return dst
}

// PerfOutputSideband writes one side-band record for ev into rb: begin, the struct,
// the sample_id trailer, end, as the perf_event_*_output() functions of core.c do.
// kernel/events/core.c: perf_event_comm_output() and friends
func PerfOutputSideband(st Stepper, rb *Buffer, ev Event, r Sideband, id *SampleID, backward bool) error {
	return perfOutputSideband(st, rb, ev, r, id, backward, false)
}

// PerfOutputSidebandAudited is PerfOutputSideband for a caller that
// annotates its own code from the record's end (perf_output_end(), or a
// begin that found no room) to its context's next step point: the return
// into it is not marked unaudited.
func PerfOutputSidebandAudited(st Stepper, rb *Buffer, ev Event, r Sideband, id *SampleID, backward bool) error {
	return perfOutputSideband(st, rb, ev, r, id, backward, true)
}

func perfOutputSideband(st Stepper, rb *Buffer, ev Event, r Sideband, id *SampleID, backward, callerAudited bool) error {
	size := RecordSize(r, ev)
	h := Handle{callerAudited: callerAudited}
	if err := OutputBegin(st, &h, rb, id, ev, size, backward); err != nil {
		return err
	}
	var buf [128]byte
	b := binary.LittleEndian.AppendUint64(buf[:0], headerWord(Header{Type: r.RecordType(), Misc: r.RecordMisc(), Size: uint16(size)}))
	OutputCopy(&h, r.appendBody(b))
	OutputIDSample(ev, &h, id)
	OutputEnd(st, &h)
	return nil
}

// Decoded is a parsed record: Sample for PERF_RECORD_SAMPLE, Sideband for the others
// rb knows, with the sample_id trailer in ID (nil without sample_id_all).
type Decoded struct {
	Header   Header
	Sample   *Sample
	Sideband Sideband
	ID       *SampleID
}

// Decode parses one record written for an event with sampleType and sampleIDAll.
// Unknown record types are an error: a reader of a torn record must not guess.
// tools/perf/util/session.c: perf_session__process_event() (parse part)
func Decode(rec []byte, sampleType uint64, sampleIDAll bool) (*Decoded, error) {
	return DecodeRF(rec, sampleType, 0, sampleIDAll)
}

// DecodeRF is Decode for an event whose attr.read_format is readFormat (it
// sizes a sample's PERF_SAMPLE_READ part).
func DecodeRF(rec []byte, sampleType, readFormat uint64, sampleIDAll bool) (*Decoded, error) {
	return DecodeAttr(rec, SampleLayout{SampleType: sampleType, ReadFormat: readFormat}, sampleIDAll)
}

// DecodeAttr is Decode for an event whose attr has sample layout l.
func DecodeAttr(rec []byte, l SampleLayout, sampleIDAll bool) (*Decoded, error) {
	return (*Arena)(nil).DecodeAttr(rec, l, sampleIDAll)
}

// DecodeAttr is rb.DecodeAttr with the Decoded, its Sample or SampleID and a
// sample's callchain taken from a (nil: allocated one by one).
func (a *Arena) DecodeAttr(rec []byte, l SampleLayout, sampleIDAll bool) (*Decoded, error) {
	sampleType := l.SampleType
	hdr, err := checkRecord(rec)
	if err != nil {
		return nil, err
	}
	if hdr.Type == uapi.PERF_RECORD_SAMPLE {
		s, err := a.decodeSample(rec, l)
		if err != nil {
			return nil, err
		}
		out := a.decoded()
		out.Header, out.Sample = hdr, s
		return out, nil
	}
	out := a.decoded()
	out.Header = hdr
	body := rec[HeaderSize:]
	if sampleIDAll {
		id, err := a.parseSampleID(rec, sampleType)
		if err != nil {
			return nil, err
		}
		out.ID = id
		body = body[:len(body)-IDHeaderSize(sampleType)]
	}
	d := decoder{b: body}
	switch hdr.Type {
	case uapi.PERF_RECORD_LOST:
		out.Sideband = &Lost{ID: d.u64(), Lost: d.u64()}
	case uapi.PERF_RECORD_COMM:
		c := &Comm{Pid: d.u32(), Tid: d.u32(), Exec: hdr.Misc&uapi.PERF_RECORD_MISC_COMM_EXEC != 0}
		i := bytes.IndexByte(d.b, 0)
		if i < 0 {
			return nil, &ParseError{What: "comm without NUL"}
		}
		c.Comm = string(d.b[:i])
		d.b = nil
		out.Sideband = c
	case uapi.PERF_RECORD_MMAP, uapi.PERF_RECORD_MMAP2:
		out.Sideband = decodeMmap(&d, hdr)
	case uapi.PERF_RECORD_CGROUP:
		c := &Cgroup{ID: d.u64()}
		i := bytes.IndexByte(d.b, 0)
		if i < 0 {
			return nil, &ParseError{What: "cgroup path without NUL"}
		}
		c.Path, d.b = string(d.b[:i]), nil
		out.Sideband = c
	case uapi.PERF_RECORD_EXIT, uapi.PERF_RECORD_FORK:
		out.Sideband = &Task{Fork: hdr.Type == uapi.PERF_RECORD_FORK, Pid: d.u32(), Ppid: d.u32(), Tid: d.u32(), Ptid: d.u32(), Time: d.u64()}
	case uapi.PERF_RECORD_SWITCH:
		out.Sideband = &Switch{Out: hdr.Misc&uapi.PERF_RECORD_MISC_SWITCH_OUT != 0, Preempt: hdr.Misc&uapi.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT != 0}
	case uapi.PERF_RECORD_SWITCH_CPU_WIDE:
		out.Sideband = &Switch{CPUWide: true, Out: hdr.Misc&uapi.PERF_RECORD_MISC_SWITCH_OUT != 0, Preempt: hdr.Misc&uapi.PERF_RECORD_MISC_SWITCH_OUT_PREEMPT != 0,
			NextPrevPid: d.u32(), NextPrevTid: d.u32()}
	case uapi.PERF_RECORD_AUX:
		out.Sideband = &Aux{Offset: d.u64(), Size: d.u64(), Flags: d.u64()}
	case uapi.PERF_RECORD_ITRACE_START:
		out.Sideband = &ItraceStart{Pid: d.u32(), Tid: d.u32()}
	case uapi.PERF_RECORD_THROTTLE, uapi.PERF_RECORD_UNTHROTTLE:
		out.Sideband = &Throttle{Unthrottle: hdr.Type == uapi.PERF_RECORD_UNTHROTTLE, Time: d.u64(), ID: d.u64(), StreamID: d.u64()}
	case uapi.PERF_RECORD_CALLCHAIN_DEFERRED:
		out.Sideband = decodeCallchainDeferred(&d)
	case uapi.PERF_RECORD_READ:
		r := &Read{Pid: d.u32(), Tid: d.u32()}
		r.Values, d.b = append([]byte(nil), d.b...), nil
		out.Sideband = r
	default:
		return nil, &ParseError{What: "unknown record type " + strconv.Itoa(int(hdr.Type))}
	}
	if d.err != nil {
		return nil, d.err
	}
	if len(d.b) != 0 {
		return nil, errTrailing(len(d.b))
	}
	return out, nil
}
