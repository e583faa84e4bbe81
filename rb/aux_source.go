package rb

import (
	"iter"
	"slices"
)

// Described AUX writes. A driver whose trace bytes are a function of what
// the hardware traced (CoreSight: which units of which ETM stream) may store
// a description of them instead of the bytes (AuxWriteSource): the area keeps
// the descriptions, in the places the bytes would take, and makes the bytes
// only when something reads the area as bytes (AuxData, AuxCopyOut,
// OutputCopyAux, a byte write). A reader that understands the descriptions
// walks them with AuxPieces. What a reader sees is the same either way.

// AuxSource is trace a driver describes: n bytes it can produce on demand.
type AuxSource interface {
	// AuxBytes fills dst with the source's bytes from offset off.
	AuxBytes(dst []byte, off uint64)
}

// auxExtent is [lo, hi) of the area holding the bytes of src from off.
type auxExtent struct {
	lo, hi uint64
	src    AuxSource
	off    uint64
}

// AuxPiece is a stretch of the AUX area as AuxPieces returns it: N bytes,
// those of Src from Off, or zeroes (Src nil: never written).
type AuxPiece struct {
	Src AuxSource
	Off uint64
	N   uint64
}

// auxMaterialize makes the area's bytes from its descriptions (allocating
// the pages on first use); from then on writes store bytes.
func (rb *Buffer) auxMaterialize() {
	if rb.aux.data != nil || rb.aux.nrPages == 0 {
		return
	}
	rb.aux.data = make([]byte, rb.aux.nrPages*PageSize)
	if rb.aux.pages != nil {
		rb.aux.joinPages()
		return
	}
	for _, x := range rb.aux.ext {
		x.src.AuxBytes(rb.aux.data[x.lo:x.hi], x.off)
	}
	rb.aux.dropExtents()
}

// AuxWriteSource is AuxWrite of the n bytes src describes (from offset 0):
// the hardware storing them at free-running AUX position pos. The log's
// TraceAuxWrite is AuxWrite's; its Rec holds the bytes only when the area
// keeps them for AUX samples.
func (rb *Buffer) AuxWriteSource(pos, n uint64, src AuxSource) {
	size := uint64(rb.aux.nrPages) * PageSize
	if size == 0 || n == 0 {
		return
	}
	if !rb.AuxDescribed() {
		b := make([]byte, n)
		src.AuxBytes(b, 0)
		rb.AuxWrite(pos, b)
		return
	}
	var rec []byte
	if !rb.aux.noSample && rb.Tracer != nil {
		rec = make([]byte, n)
		src.AuxBytes(rec, 0)
	}
	rb.traceAuxWrite(pos, int(n), rec)
	if n > size { // only the last size bytes survive
		pos, src = pos+n-size, shifted(src, n-size)
		n = size
	}
	var done uint64
	for lo, hi := range RingSpans(pos, n, size) {
		rb.aux.setExtent(auxExtent{lo: lo, hi: hi, src: src, off: done})
		done += hi - lo
	}
}

// RingSpans are the stretches [lo, hi) of a ring of size units that n
// units from position at (free-running: taken modulo size) occupy, in
// order, each up to the ring's end.
func RingSpans(at, n, size uint64) iter.Seq2[uint64, uint64] {
	return func(yield func(lo, hi uint64) bool) {
		for lo := at % size; n > 0; lo = 0 {
			k := min(n, size-lo)
			if !yield(lo, lo+k) {
				return
			}
			n -= k
		}
	}
}

// shifted is src from offset d.
func shifted(src AuxSource, d uint64) AuxSource { return shiftedSource{src, d} }

type shiftedSource struct {
	src AuxSource
	d   uint64
}

func (s shiftedSource) AuxBytes(dst []byte, off uint64) { s.src.AuxBytes(dst, off+s.d) }

// setExtent stores x over whatever the area held there.
func (a *auxArea) setExtent(x auxExtent) {
	ext := a.ext
	// the first extent ending after x.lo
	i, _ := slices.BinarySearchFunc(ext, x.lo, func(e auxExtent, lo uint64) int {
		if e.hi <= lo {
			return -1
		}
		return 1
	})
	j := i
	var keep []auxExtent
	for j < len(ext) && ext[j].lo < x.hi {
		e := ext[j]
		if e.lo < x.lo {
			keep = append(keep, auxExtent{lo: e.lo, hi: x.lo, src: e.src, off: e.off})
		}
		if e.hi > x.hi {
			keep = append(keep, auxExtent{lo: x.hi, hi: e.hi, src: e.src, off: e.off + (x.hi - e.lo)})
		}
		j++
	}
	var repl []auxExtent
	if len(keep) > 0 && keep[0].lo < x.lo {
		repl = append(repl, keep[0])
		keep = keep[1:]
	}
	repl = append(repl, x)
	repl = append(repl, keep...)
	a.ext = slices.Replace(ext, i, j, repl...)
}

// AuxPieces returns the n bytes of the AUX area from free-running position
// pos (masked, wrapping) as pieces: the sources that describe them, or
// zeroes; when the area holds bytes (it was read or written as bytes), one
// piece per contiguous stretch whose Src is an AuxSource over those bytes
// (copied, as the area may change).
func (rb *Buffer) AuxPieces(pos, n uint64) []AuxPiece {
	size := uint64(rb.aux.nrPages) * PageSize
	if size == 0 || n == 0 {
		return nil
	}
	var out []AuxPiece
	if !rb.AuxDescribed() {
		b := rb.AuxCopyOut(pos, int(n))
		return append(out, AuxPiece{Src: byteSource(b), N: n})
	}
	for lo, hi := range RingSpans(pos, n, size) {
		out = rb.aux.pieces(out, lo, hi)
	}
	return out
}

// pieces appends the pieces of [lo, hi) (no wrap).
func (a *auxArea) pieces(out []AuxPiece, lo, hi uint64) []AuxPiece {
	i, _ := slices.BinarySearchFunc(a.ext, lo, func(e auxExtent, lo uint64) int {
		if e.hi <= lo {
			return -1
		}
		return 1
	})
	for at := lo; at < hi; {
		if i >= len(a.ext) || a.ext[i].lo >= hi {
			out = append(out, AuxPiece{N: hi - at})
			break
		}
		e := a.ext[i]
		if e.lo > at {
			out = append(out, AuxPiece{N: e.lo - at})
			at = e.lo
		}
		end := min(e.hi, hi)
		out = append(out, AuxPiece{Src: e.src, Off: e.off + (at - e.lo), N: end - at})
		at = end
		i++
	}
	return out
}

// byteSource is bytes as an AuxSource.
type byteSource []byte

func (b byteSource) AuxBytes(dst []byte, off uint64) { copy(dst, b[off:]) }

// PiecesBytes returns the bytes of the pieces, in order.
func PiecesBytes(ps []AuxPiece) []byte {
	var n uint64
	for _, p := range ps {
		n += p.N
	}
	out := make([]byte, n)
	at := uint64(0)
	for _, p := range ps {
		if p.Src != nil {
			p.Src.AuxBytes(out[at:at+p.N], p.Off)
		}
		at += p.N
	}
	return out
}

// BytesPiece is a copy of b as a piece.
func BytesPiece(b []byte) AuxPiece {
	return AuxPiece{Src: byteSource(append([]byte(nil), b...)), N: uint64(len(b))}
}

// dropExtents forgets the area's descriptions (their sources too).
func (a *auxArea) dropExtents() {
	clear(a.ext)
	a.ext = a.ext[:0]
}

// AuxDescribed reports that the AUX area holds descriptions, not bytes
// (nothing read it as bytes yet): AuxPieces reads it without making them.
func (rb *Buffer) AuxDescribed() bool {
	return rb.aux.data == nil && rb.aux.pages == nil && rb.aux.nrPages != 0
}
