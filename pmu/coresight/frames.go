package coresight

import "slices"

// The sinks' buffers hold descriptions of their 16-byte slots rather than
// bytes: a run of slots holds units k0.. of one ETM's unitSrc (formatter
// frames of its trace ID in the ETR, raw trace in the TRBE) or barrier
// packets. The bytes are a function of the description (etmv4.go), made
// when something reads them (rb's described AUX areas, aux_source.go); the
// Seq of each slot's unit, which the commits' accounting reads, is too.

// pieceKind says what a run of slots holds.
type pieceKind uint8

const (
	pieceZero    pieceKind = iota // never written
	pieceUnits                    // units of a unitSrc
	pieceBarrier                  // the ETR's barrier packet in every slot
)

// piece is slots [lo, hi) of a buffer: units k0, k0+1, ... of src, raw or
// formatted, or barriers, or nothing.
type piece struct {
	lo, hi uint64
	kind   pieceKind
	raw    bool
	src    *unitSrc
	k0     uint64
}

// at is the piece from slot lo on.
func (p piece) from(lo uint64) piece {
	if p.kind == pieceUnits {
		p.k0 += lo - p.lo
	}
	p.lo = lo
	return p
}

// frameMap is a buffer of slots as pieces: sorted, not overlapping; a slot
// in no piece was never written.
type frameMap struct {
	p []piece
}

// search is the index of the first piece ending after slot s.
func (m *frameMap) search(s uint64) int {
	i, _ := slices.BinarySearchFunc(m.p, s, func(p piece, s uint64) int {
		if p.hi <= s {
			return -1
		}
		return 1
	})
	return i
}

// set stores x (lo < hi, no wrap) over what the slots held.
func (m *frameMap) set(x piece) {
	i := m.search(x.lo)
	j := i
	var left, right piece
	hasL, hasR := false, false
	for j < len(m.p) && m.p[j].lo < x.hi {
		e := m.p[j]
		if e.lo < x.lo {
			left, hasL = e, true
			left.hi = x.lo
		}
		if e.hi > x.hi {
			right, hasR = e.from(x.hi), true
		}
		j++
	}
	var repl [3]piece
	n := 0
	if hasL {
		repl[n] = left
		n++
	}
	repl[n] = x
	n++
	if hasR {
		repl[n] = right
		n++
	}
	m.p = slices.Replace(m.p, i, j, repl[:n]...)
}

// get appends the pieces of slots [lo, hi) (no wrap), gaps as pieceZero.
func (m *frameMap) get(out []piece, lo, hi uint64) []piece {
	i := m.search(lo)
	for at := lo; at < hi; {
		if i >= len(m.p) || m.p[i].lo >= hi {
			out = append(out, piece{lo: at, hi: hi})
			break
		}
		e := m.p[i]
		if e.lo > at {
			out = append(out, piece{lo: at, hi: e.lo})
			at = e.lo
		}
		q := e.from(at)
		q.hi = min(e.hi, hi)
		out = append(out, q)
		at = q.hi
		i++
	}
	return out
}

// seq1 is Seq+1 of the unit in the piece's slot lo+j, 0 for none.
func (p *piece) seq1(j uint64) uint64 {
	if p.kind != pieceUnits {
		return 0
	}
	return p.src.seq + p.k0 + j + 1
}

// frameSource is a piece's bytes as an rb.AuxSource (offsets in bytes from
// the piece's first slot).
type frameSource struct {
	kind pieceKind
	raw  bool
	src  *unitSrc
	k0   uint64
}

func (p piece) source() frameSource {
	return frameSource{kind: p.kind, raw: p.raw, src: p.src, k0: p.k0}
}

// AuxBytes implements rb.AuxSource.
func (f frameSource) AuxBytes(dst []byte, off uint64) {
	switch f.kind {
	case pieceZero:
		clear(dst)
		return
	case pieceBarrier:
		for i := range dst {
			dst[i] = barrierFrame[(off+uint64(i))%FrameSize]
		}
		return
	}
	k := f.k0 + off/FrameSize
	skip := off % FrameSize
	w := f.src.writer(k)
	var fr [FrameSize]byte
	id := traceID(f.src.cpu)
	for len(dst) > 0 {
		var b []byte
		if skip == 0 && len(dst) >= FrameSize {
			b = dst[:FrameSize]
		} else {
			b = fr[:]
		}
		if f.raw {
			w.appendRaw(b[:0])
		} else {
			w.putFormatted(b, id)
		}
		if &b[0] != &dst[0] {
			n := copy(dst, b[skip:])
			dst = dst[n:]
		} else {
			dst = dst[FrameSize:]
		}
		skip = 0
		w.next()
	}
}
