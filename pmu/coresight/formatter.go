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

// Deformatter is the formatter's frame deformatter (OpenCSD's, frame
// aligned): it splits frames into the data of each source ID, keeping the ID
// in force from one frame to the next, and reuses its buffers.
type Deformatter struct {
	// ID is the source ID in force: the data at the start of a frame that
	// does not begin with an ID byte is its.
	ID   byte
	segs []Segment
	data []byte
	ends []int
}

// Frame splits one 16-byte frame into the data of each source ID, in order
// (the slices are the Deformatter's until its next call). ID 0 is the null
// source and 0x7f is reserved: their data is dropped. A frame of all-ones
// FSYNC words is not data: Frame returns an error for it and for a short
// frame, and leaves ID as it was.
func (d *Deformatter) Frame(f []byte) ([]Segment, error) {
	if len(f) < FrameSize {
		return nil, fmt.Errorf("formatter: short frame (%d bytes)", len(f))
	}
	if [FrameSize]byte(f[:FrameSize]) == barrierFrame {
		return nil, fmt.Errorf("formatter: FSYNC frame")
	}
	d.segs, d.data, d.ends = d.segs[:0], d.data[:0], d.ends[:0]
	aux := f[FrameSize-1]
	if id := f[0] >> 1; f[0]&1 != 0 && aux&1 == 0 && id != 0 && id != 0x7f &&
		(f[2]|f[4]|f[6]|f[8]|f[10]|f[12]|f[14])&1 == 0 {
		// one source: an ID byte for the new ID, then 14 bytes of its data
		d.ID = id
		d.data = append(d.data, f[1], f[2]|aux>>1&1, f[3], f[4]|aux>>2&1, f[5], f[6]|aux>>3&1, f[7],
			f[8]|aux>>4&1, f[9], f[10]|aux>>5&1, f[11], f[12]|aux>>6&1, f[13], f[14]|aux>>7&1)
		d.segs = append(d.segs, Segment{ID: id, Data: d.data})
		d.ends = append(d.ends, len(d.data))
		return d.segs, nil
	}
	return d.general(f), nil
}

// general is Frame's byte by byte loop, for a frame of any shape.
func (d *Deformatter) general(f []byte) []Segment {
	d.segs, d.data, d.ends = d.segs[:0], d.data[:0], d.ends[:0]
	aux := f[FrameSize-1]
	for pos := 0; pos < FrameSize-1; pos += 2 {
		b := f[pos]
		flag := aux >> (pos / 2) & 1
		if b&1 != 0 { // ID change
			newID := b >> 1
			if pos+1 < FrameSize-1 {
				if flag == 1 { // the next byte is the previous ID's
					d.add(f[pos+1])
					d.ID = newID
				} else {
					d.ID = newID
					d.add(f[pos+1])
				}
			} else {
				d.ID = newID
			}
			continue
		}
		d.add(b | flag)
		if pos+1 < FrameSize-1 {
			d.add(f[pos+1])
		}
	}
	out, start := d.segs[:0], 0
	for i, s := range d.segs {
		if s.ID != 0 && s.ID != 0x7f {
			s.Data = d.data[start:d.ends[i]]
			out = append(out, s)
		}
		start = d.ends[i]
	}
	return out
}

// add appends a data byte of the ID in force.
func (d *Deformatter) add(v byte) {
	d.data = append(d.data, v)
	if n := len(d.segs); n > 0 && d.segs[n-1].ID == d.ID {
		d.ends[n-1]++
		return
	}
	d.segs = append(d.segs, Segment{ID: d.ID})
	d.ends = append(d.ends, len(d.data))
}
