package coresight

import "fmt"

// The CoreSight trace formatter (CoreSight Architecture Specification,
// "Trace Formatter"): a TMC in ETR configuration stores the trace of every
// source in 16-byte frames. Even bytes are a source ID (bit 0 set: the ID in
// bits 7:1) or data (bit 0 clear, the data's bit 0 in the aux byte), odd
// bytes are data, byte 15 holds the data bits 0 of the even bytes (bit k for
// byte 2k) or, after an ID byte, whether the next byte is still the previous
// ID's (1) or the new ID's (0). perf's decoder (OpenCSD's frame deformatter
// with OCSD_DFRMTR_FRAME_MEM_ALIGN) reads them from the AUX buffer.

// traceID is the trace ID of cpu's ETM (TRCTRACEIDR):
// CORESIGHT_LEGACY_CPU_TRACE_ID(cpu).
// include/linux/coresight-pmu.h: CORESIGHT_LEGACY_CPU_TRACE_ID()
func traceID(cpu int) byte { return byte(0x10 + 2*cpu) }

// cpuOfTraceID inverts traceID (-1 for an ID no CPU has).
func cpuOfTraceID(id byte, cpus int) int {
	if id < 0x10 || id%2 != 0 || int(id-0x10)/2 >= cpus {
		return -1
	}
	return int(id-0x10) / 2
}

// putFormatted writes one frame: an ID byte for id, then the 14 bytes of data.
func putFormatted(dst []byte, id byte, data []byte) {
	dst[0] = id<<1 | 1
	var aux byte // bit 0 clear: byte 1 is the new ID's
	for j := 0; j < formattedBytes; j++ {
		pos := j + 1
		v := data[j]
		if pos%2 == 0 {
			aux |= (v & 1) << (pos / 2)
			v &^= 1
		}
		dst[pos] = v
	}
	dst[FrameSize-1] = aux
}

// Segment is the data of one source ID in a frame.
type Segment struct {
	ID   byte
	Data []byte
}

// Deformat splits one 16-byte frame into the data of each source ID, in
// order; cur is the ID in force before the frame (its data comes first when
// the frame does not start with an ID). ID 0 is the null source and 0x7f is
// reserved: their data is dropped. A frame of all-ones FSYNC words is not
// data: Deformat returns an error for it and for a short frame.
func Deformat(f []byte, cur byte) ([]Segment, byte, error) {
	if len(f) < FrameSize {
		return nil, cur, fmt.Errorf("formatter: short frame (%d bytes)", len(f))
	}
	if [FrameSize]byte(f[:FrameSize]) == barrierFrame {
		return nil, cur, fmt.Errorf("formatter: FSYNC frame")
	}
	aux := f[FrameSize-1]
	var segs []Segment
	add := func(id, v byte) {
		if n := len(segs); n > 0 && segs[n-1].ID == id {
			segs[n-1].Data = append(segs[n-1].Data, v)
			return
		}
		segs = append(segs, Segment{ID: id, Data: []byte{v}})
	}
	for pos := 0; pos < FrameSize-1; pos += 2 {
		b := f[pos]
		flag := aux >> (pos / 2) & 1
		if b&1 != 0 { // ID change
			newID := b >> 1
			if pos+1 < FrameSize-1 {
				if flag == 1 { // the next byte is the previous ID's
					add(cur, f[pos+1])
					cur = newID
				} else {
					cur = newID
					add(cur, f[pos+1])
				}
			} else {
				cur = newID
			}
			continue
		}
		add(cur, b|flag)
		if pos+1 < FrameSize-1 {
			add(cur, f[pos+1])
		}
	}
	out := segs[:0]
	for _, s := range segs {
		if s.ID != 0 && s.ID != 0x7f {
			out = append(out, s)
		}
	}
	return out, cur, nil
}
