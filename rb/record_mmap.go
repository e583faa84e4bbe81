package rb

import (
	"bytes"
	"encoding/binary"

	"perfsim/uapi"
)

// Mmap is PERF_RECORD_MMAP {pid, tid, addr, len, pgoff, filename[]} or, with
// Mmap2, PERF_RECORD_MMAP2, which adds {maj, min, ino, ino_generation} (or,
// with BuildID, {build_id_size, __reserved_1, __reserved_2, build_id[20]})
// and {prot, flags} before the filename. Data sets PERF_RECORD_MISC_MMAP_DATA
// (a mapping without VM_EXEC).
// kernel/events/core.c: perf_event_mmap_output()
type Mmap struct {
	Mmap2              bool
	Data               bool
	Pid, Tid           uint32
	Start, Len, Pgoff  uint64
	Maj, Min           uint32
	Ino, InoGeneration uint64
	BuildID            []byte // used when non-empty (attr.build_id)
	Prot, Flags        uint32
	Filename           string
}

// buildIDSizeMax is BUILD_ID_SIZE_MAX.
const buildIDSizeMax = 20

// RecordType implements Sideband.
func (r *Mmap) RecordType() uint32 {
	if r.Mmap2 {
		return uapi.PERF_RECORD_MMAP2
	}
	return uapi.PERF_RECORD_MMAP
}

// RecordMisc implements Sideband: PERF_RECORD_MISC_USER, | MMAP_DATA, | MMAP_BUILD_ID.
func (r *Mmap) RecordMisc() uint16 {
	m := uint16(uapi.PERF_RECORD_MISC_USER)
	if r.Data {
		m |= uapi.PERF_RECORD_MISC_MMAP_DATA
	}
	if r.Mmap2 && len(r.BuildID) > 0 {
		m |= uapi.PERF_RECORD_MISC_MMAP_BUILD_ID
	}
	return m
}

// nameSize is strlen+1 aligned to 8 (the kernel pads with NULs).
func (r *Mmap) nameSize() int { return (len(r.Filename) + 1 + 7) &^ 7 }

func (r *Mmap) bodySize() int {
	n := 8 + 24 + r.nameSize()
	if r.Mmap2 {
		n += 32
	}
	return n
}

func (r *Mmap) appendBody(b []byte) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(le.AppendUint32(b, r.Pid), r.Tid)
	b = le.AppendUint64(le.AppendUint64(le.AppendUint64(b, r.Start), r.Len), r.Pgoff)
	if r.Mmap2 {
		if len(r.BuildID) > 0 {
			b = append(b, byte(len(r.BuildID)), 0, 0, 0)
			var id [buildIDSizeMax]byte
			copy(id[:], r.BuildID)
			b = append(b, id[:]...)
		} else {
			b = le.AppendUint32(le.AppendUint32(b, r.Maj), r.Min)
			b = le.AppendUint64(le.AppendUint64(b, r.Ino), r.InoGeneration)
		}
		b = le.AppendUint32(le.AppendUint32(b, r.Prot), r.Flags)
	}
	b = append(b, r.Filename...)
	return append(b, make([]byte, r.nameSize()-len(r.Filename))...)
}

// decodeMmap parses the body of a PERF_RECORD_MMAP or MMAP2.
func decodeMmap(d *decoder, hdr Header) *Mmap {
	r := &Mmap{Mmap2: hdr.Type == uapi.PERF_RECORD_MMAP2, Data: hdr.Misc&uapi.PERF_RECORD_MISC_MMAP_DATA != 0}
	r.Pid, r.Tid = d.u32(), d.u32()
	r.Start, r.Len, r.Pgoff = d.u64(), d.u64(), d.u64()
	if r.Mmap2 {
		if hdr.Misc&uapi.PERF_RECORD_MISC_MMAP_BUILD_ID != 0 {
			w := d.u32()
			n := int(w & 0xff)
			var id []byte
			for i := 0; i < buildIDSizeMax/4; i++ {
				id = binary.LittleEndian.AppendUint32(id, d.u32())
			}
			r.BuildID = id[:min(n, buildIDSizeMax)]
		} else {
			r.Maj, r.Min = d.u32(), d.u32()
			r.Ino, r.InoGeneration = d.u64(), d.u64()
		}
		r.Prot, r.Flags = d.u32(), d.u32()
	}
	if i := bytes.IndexByte(d.b, 0); i >= 0 {
		r.Filename = string(d.b[:i])
		d.b = nil
	} else if d.err == nil {
		d.err = &ParseError{What: "mmap filename without NUL"}
	}
	return r
}
