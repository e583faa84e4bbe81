package perftool

import (
	"encoding/binary"

	"perfsim/rb"
	"perfsim/uapi"
)

// count walks the records of a chunk written to /dev/null into d.running,
// as Stats counts them: the kernel's records by type (synthesized ones, that
// perf made itself, are not counted), a header that does not fit counted
// torn. A record cut at the end of a chunk (the first piece of a ring's wrap)
// is completed by the next chunk.
func (d *PerfData) count(b []byte, synth bool) {
	if synth {
		return
	}
	if len(d.pending) > 0 {
		need := rb.HeaderSize
		if len(d.pending) >= rb.HeaderSize {
			h, _ := rb.ParseHeader(d.pending)
			need = int(h.Size)
		}
		n := min(need-len(d.pending), len(b))
		d.pending = append(d.pending, b[:n]...)
		b = b[n:]
		if len(d.pending) < need {
			return
		}
		if len(d.pending) == rb.HeaderSize && need == rb.HeaderSize {
			if h, _ := rb.ParseHeader(d.pending); int(h.Size) > rb.HeaderSize {
				d.count(b, false) // completes the header only: go on with the body
				return
			}
		}
		rec := d.pending
		d.pending = d.pending[:0]
		d.countOne(rec)
	}
	for off := 0; off < len(b); {
		h, ok := rb.ParseHeader(b[off:])
		if !ok || off+int(h.Size) > len(b) {
			if ok && int(h.Size) < rb.HeaderSize {
				d.running.Records++
				d.running.Torn++
				return
			}
			d.pending = append(d.pending[:0], b[off:]...)
			return
		}
		if int(h.Size) < rb.HeaderSize {
			d.running.Records++
			d.running.Torn++
			return
		}
		d.countOne(b[off : off+int(h.Size)])
		off += int(h.Size)
	}
}

func (d *PerfData) countOne(rec []byte) {
	h, _ := rb.ParseHeader(rec)
	s := &d.running
	s.Records++
	var lost int64
	if h.Type == uapi.PERF_RECORD_LOST && len(rec) >= 24 {
		lost = int64(binary.LittleEndian.Uint64(rec[16:]))
	}
	ev := -1
	if h.Type == uapi.PERF_RECORD_SAMPLE {
		d.noteSampleTime(rec)
		ev = d.evselOf(rec, h)
	}
	if !s.countType(h.Type, ev, lost) && !knownType(h.Type) {
		s.Unknown++
	}
}
