package perftool

import (
	"sort"

	"perfsim/rb"
	"perfsim/sim"
)

// AUX payloads kept as descriptions. The bytes a PERF_RECORD_AUXTRACE
// carries are the AUX area's, which a driver may describe rather than store
// (rb.AuxWriteSource): perf record copies them into perf.data, and the
// in-memory perf.data keeps that copy as the description (the pieces of the
// area at the moment of the copy) until something reads the data section
// as bytes (Process, WriteFile, perf script): materialize then puts the
// bytes in their place. A spooled perf.data file gets the bytes as they are
// written. What a reader sees is the same either way.

// lazyPayload is a write of n bytes at logical offset off of the data
// section that Data does not hold yet: the bytes of pieces.
type lazyPayload struct {
	off    int
	n      int
	before int // the bytes of the payloads before it (off - before: where it goes in Data)
	pieces []rb.AuxPiece
}

// size is the length of the data section in memory, payloads not yet made
// included.
func (d *PerfData) size() int { return len(d.Data) + d.lazyBytes }

// writePieces is write of the bytes of pieces, kept as the pieces while the
// data section is in memory and nothing read it as bytes.
func (d *PerfData) writePieces(pieces []rb.AuxPiece, mapIdx, cpu int, at sim.Time, overwrite bool) {
	n := 0
	for _, p := range pieces {
		n += int(p.N)
	}
	if n == 0 {
		return
	}
	if d.Discard || d.Spool != nil || d.Dropped {
		d.write(rb.PiecesBytes(pieces), mapIdx, cpu, at, overwrite)
		return
	}
	d.Written += int64(n)
	if !d.keep(n) {
		if synth := mapIdx < 0; !synth { // count(b, true) counts nothing: no bytes needed
			d.count(rb.PiecesBytes(pieces), synth)
		}
		return
	}
	d.Chunks = append(d.Chunks, Chunk{Off: d.size(), Len: n, Map: mapIdx, CPU: cpu, At: at, Overwrite: overwrite})
	d.lazy = append(d.lazy, lazyPayload{off: d.size(), n: n, before: d.lazyBytes, pieces: pieces})
	d.lazyBytes += n
}

// materialize puts the bytes of the payloads kept as descriptions into Data.
func (d *PerfData) materialize() {
	if len(d.lazy) == 0 {
		return
	}
	out := make([]byte, 0, d.size())
	from := 0 // in Data
	for _, p := range d.lazy {
		k := p.off - len(out)
		out = append(out, d.Data[from:from+k]...)
		from += k
		out = append(out, rb.PiecesBytes(p.pieces)...)
	}
	out = append(out, d.Data[from:]...)
	d.Data = out
	clear(d.lazy)
	d.lazy, d.lazyBytes = d.lazy[:0], 0
}

// bytesFrom returns the data section from logical offset start to its end,
// the payloads kept as descriptions made into a new slice (Data itself is
// left as it is).
func (d *PerfData) bytesFrom(start int) []byte {
	if len(d.lazy) == 0 || d.lazy[len(d.lazy)-1].off+d.lazy[len(d.lazy)-1].n <= start {
		// no payload kept in the stretch: Data's tail
		return d.Data[start-d.lazyBytes:]
	}
	out := make([]byte, 0, d.size()-start)
	pos, from := 0, 0 // logical position, index in Data
	for _, p := range d.lazy {
		k := p.off - pos
		if pos+k > start {
			lo := max(start, pos) - pos
			out = append(out, d.Data[from+lo:from+k]...)
		}
		from += k
		pos += k
		if pos+p.n > start {
			b := rb.PiecesBytes(p.pieces)
			out = append(out, b[max(start, pos)-pos:]...)
		}
		pos += p.n
	}
	lo := max(start, pos) - pos
	out = append(out, d.Data[from+lo:]...)
	return out
}

// view returns the bytes of the data section from logical offset off up to
// the next payload kept as a description (or the end); ok false when off is
// inside such a payload.
func (d *PerfData) view(off int) ([]byte, bool) {
	if len(d.lazy) == 0 {
		return d.Data[off:], true
	}
	// the first payload ending after off
	i := sort.Search(len(d.lazy), func(i int) bool { return d.lazy[i].off+d.lazy[i].n > off })
	before, end := d.lazyBytes, len(d.Data)
	if i < len(d.lazy) {
		p := &d.lazy[i]
		if off >= p.off {
			return nil, false
		}
		before, end = p.before, p.off-p.before
	}
	return d.Data[off-before : end], true
}

// auxPayload is a PERF_RECORD_AUXTRACE of the data section and its
// payload: bytes, or (when some of it is kept as a description) pieces.
type auxPayload struct {
	ev     AuxtraceEvent
	data   []byte
	pieces []rb.AuxPiece
}

// auxtracePayloads is auxtraceChunks's walk over the data section from
// logical offset start, without making the payloads kept as descriptions;
// ok false when a record header is not held whole in Data (the caller then
// walks bytesFrom(start)).
func (d *PerfData) auxtracePayloads(start int) (out []auxPayload, ok bool) {
	end := d.size()
	for off := start; off+8 <= end; {
		b, ok := d.view(off)
		if !ok || len(b) < 8 {
			return nil, false
		}
		size := int(uint16(b[6]) | uint16(b[7])<<8)
		if size < 8 {
			break
		}
		if len(b) < auxtraceRecordSize && end-off >= auxtraceRecordSize {
			return nil, false
		}
		ev, isAux := ParseAuxtraceEvent(b)
		if !isAux {
			off += size
			continue
		}
		pend := off + size + int(ev.Size)
		if pend > end {
			break
		}
		p := auxPayload{ev: ev}
		if v, ok := d.view(off + size); ok && len(v) >= int(ev.Size) {
			p.data = v[:ev.Size]
		} else {
			p.pieces = d.piecesOf(off+size, pend)
		}
		out = append(out, p)
		off = pend
	}
	return out, true
}

// piecesOf is the logical stretch [lo, hi) as pieces: those of the payloads
// kept as descriptions, and Data's bytes (not copied) between them.
func (d *PerfData) piecesOf(lo, hi int) []rb.AuxPiece {
	var out []rb.AuxPiece
	for at := lo; at < hi; {
		if v, ok := d.view(at); ok {
			k := min(len(v), hi-at)
			out = append(out, rb.AuxPiece{Src: dataSource(v[:k]), N: uint64(k)})
			at += k
			continue
		}
		i := sort.Search(len(d.lazy), func(i int) bool { return d.lazy[i].off+d.lazy[i].n > at })
		p := &d.lazy[i]
		k := min(p.off+p.n, hi) - at
		out = append(out, slicePieces(p.pieces, uint64(at-p.off), uint64(k))...)
		at += k
	}
	return out
}

// dataSource is bytes of Data as an rb.AuxSource.
type dataSource []byte

func (b dataSource) AuxBytes(dst []byte, off uint64) { copy(dst, b[off:]) }

// slicePieces is the n bytes of ps from byte from.
func slicePieces(ps []rb.AuxPiece, from, n uint64) []rb.AuxPiece {
	var out []rb.AuxPiece
	for _, p := range ps {
		if n == 0 {
			break
		}
		if from >= p.N {
			from -= p.N
			continue
		}
		k := min(p.N-from, n)
		out = append(out, rb.AuxPiece{Src: p.Src, Off: p.Off + from, N: k})
		from, n = 0, n-k
	}
	return out
}
