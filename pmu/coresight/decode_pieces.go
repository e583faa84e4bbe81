package coresight

import (
	"slices"

	"perfsim/rb"
)

// Decoding described trace. A chunk whose bytes are described (Chunk.Pieces:
// the AUX area's descriptions, frames.go, as perf copied them) is decoded
// without making most of its bytes: a 16-byte frame that is a plain unit of
// a unitSrc (a full timestamp, then atoms) decodes to what decodeUnit finds
// in its bytes, worked out from the unit (its ETM, its timestamp), and a
// stretch of them that extendRun would take is taken at once; every other
// frame (synchronisation units, frames across pieces, sources the package
// does not know) is made into its bytes and decoded as such.
// decodeRunsPieces returns exactly what decodeRuns returns for the bytes.

// tsMask is the timestamp bits a unit's timestamp packet carries
// (tsFullPayload bytes of 7 bits): what a decoder reads back.
const tsMask = 1<<(7*tsFullPayload) - 1

// span is a stretch of a chunk: bytes [at, at+n) of it are those of a
// frameSource from byte off (known), or of an AuxPiece (other sources).
type span struct {
	at, n uint64
	fs    frameSource
	off   uint64
	known bool
	p     rb.AuxPiece
}

// spans flattens the pieces into spans, etrSources into their pieces.
func spans(out []span, ps []rb.AuxPiece) []span {
	at := uint64(0)
	for _, p := range ps {
		switch s := p.Src.(type) {
		case frameSource:
			out = append(out, span{at: at, n: p.N, fs: s, off: p.Off, known: true})
		case etrSource:
			if len(s) == 0 {
				out = append(out, span{at: at, n: p.N, p: p})
				break
			}
			base := s[0].lo * FrameSize
			off, left, a := p.Off, p.N, at
			for _, q := range s {
				lo, hi := q.lo*FrameSize-base, q.hi*FrameSize-base
				if hi <= off || left == 0 {
					continue
				}
				k := min(left, hi-off)
				out = append(out, span{at: a, n: k, fs: q.source(), off: off - lo, known: true})
				a, off, left = a+k, off+k, left-k
			}
			if left > 0 { // past the source's end: as AuxBytes leaves it
				out = append(out, span{at: a, n: left, p: rb.AuxPiece{Src: s, Off: off, N: left}})
			}
		default:
			if p.Src == nil {
				out = append(out, span{at: at, n: p.N, fs: frameSource{kind: pieceZero}, known: true})
			} else {
				out = append(out, span{at: at, n: p.N, p: p})
			}
		}
		at += p.N
	}
	return out
}

// pieceReader reads a chunk's frames from its spans.
type pieceReader struct {
	sp  []span
	i   int // the span of the last lookup
	buf [FrameSize]byte
}

// find returns the span holding byte at.
func (r *pieceReader) find(at uint64) *span {
	if r.i < len(r.sp) && r.sp[r.i].at <= at && at < r.sp[r.i].at+r.sp[r.i].n {
		return &r.sp[r.i]
	}
	r.i, _ = slices.BinarySearchFunc(r.sp, at, func(s span, at uint64) int {
		if s.at+s.n <= at {
			return -1
		}
		return 1
	})
	return &r.sp[r.i]
}

// frame returns the frame at byte off whole in one known span, aligned on
// its units: the span and the frame's index in it; ok false otherwise.
func (r *pieceReader) frame(off uint64) (s *span, j uint64, ok bool) {
	s = r.find(off)
	rel := off - s.at + s.off
	if !s.known || off+FrameSize > s.at+s.n || rel%FrameSize != 0 {
		return s, 0, false
	}
	return s, rel / FrameSize, true
}

// bytes makes the frame at byte off.
func (r *pieceReader) bytes(off uint64) []byte {
	b := r.buf[:]
	for got := uint64(0); got < FrameSize; {
		s := r.find(off + got)
		k := min(FrameSize-got, s.at+s.n-(off+got))
		d := b[got : got+k]
		if s.known {
			s.fs.AuxBytes(d, s.off+(off+got-s.at))
		} else if s.p.Src != nil {
			s.p.Src.AuxBytes(d, s.p.Off+(off+got-s.at))
		} else {
			clear(d)
		}
		got += k
	}
	return b
}

// plainUnit reports that frame j of span s is a plain unit (putFormatted's
// or appendRaw's fast path) and returns its unit number.
func plainUnit(s *span, j uint64) (k uint64, ok bool) {
	if s.fs.kind != pieceUnits {
		return 0, false
	}
	k = s.fs.k0 + j
	w := unitWriter{s: s.fs.src}
	w.k = k
	return k, k < s.fs.src.n && w.plainTS()
}

// plainLeft is how many plain units follow unit k of src in span s from
// its frame j (j's included): up to the next synchronisation or the span's
// end.
func plainLeft(s *span, j, k uint64) uint64 {
	src := s.fs.src
	i := (uint64(src.index) + k) % unitsPerSync
	left := unitsPerSync - i
	return min(left, (s.off+s.n)/FrameSize-j, src.n-k)
}

// decodeUnitAt is decodeUnit of the frame at byte off.
func (dec *Decoder) decodeUnitAt(bufCPU int, r *pieceReader, off uint64) Unit {
	if s, j, ok := r.frame(off); ok && dec.L != nil {
		switch s.fs.kind {
		case pieceZero:
			return Unit{Kind: KindZero, CPU: -1}
		case pieceBarrier:
			return Unit{Kind: KindBarrier, CPU: -1}
		}
		if k, ok := plainUnit(s, j); ok && s.fs.raw == dec.L.raw {
			ts := s.fs.src.tsAt(k) & tsMask
			if s.fs.raw {
				return Unit{Kind: KindData, CPU: bufCPU, TS: ts, HasTS: true}
			}
			if cpu := s.fs.src.cpu; traceID(cpu) < 0x7f && cpuOfTraceID(traceID(cpu), dec.CPUs) == cpu {
				return Unit{Kind: KindData, CPU: cpu, TS: ts, HasTS: true}
			}
		}
	}
	if s, j, ok := r.frame(off); ok && s.fs.kind == pieceUnits {
		// a synchronisation unit: its bytes are a function of unitMemo's fields
		if k, plain := plainUnit(s, j); !plain && k < s.fs.src.n {
			key := unitKeyOf(s.fs.src, k, s.fs.raw, bufCPU)
			if l := &dec.lastMemo[key.class]; l.ok && l.k == key {
				return l.u
			}
			u, ok := dec.memo[key]
			if !ok {
				u = dec.decodeUnit(bufCPU, r.bytes(off))
				dec.remember(key, u)
			}
			dec.lastMemo[key.class] = memoHit{k: key, u: u, ok: true}
			return u
		}
	}
	return dec.decodeUnit(bufCPU, r.bytes(off))
}

// unitMemo is what a unit's bytes (appendUnit's) are a function of, when it
// is not a plain one, and the buffer's CPU: decodeUnit's result depends on
// nothing else (the decoder's CPUs and Ledger.raw are fixed).
type unitMemo struct {
	raw       bool
	cpu       int // the ETM (its trace ID)
	bufCPU    int
	class     uint8 // 0: A-sync and trace info, 1: address and context, 2: atoms alone
	addr      uint64
	user, cid bool
	pid       int
}

// unitKeyOf is the unitMemo of unit k of src (not a plain unit).
func unitKeyOf(src *unitSrc, k uint64, raw bool, bufCPU int) unitMemo {
	m := unitMemo{raw: raw, cpu: src.cpu, bufCPU: bufCPU}
	switch i := uint64(src.index) + k; {
	case i%unitsPerSync == 0:
	case i%unitsPerSync == 1 || (k == 0 && src.ctxFirst):
		m.class, m.addr, m.user, m.cid, m.pid = 1, src.addr, src.user, src.cfg.ctxt, src.pid
	default:
		m.class = 2
	}
	return m
}

// maxMemo bounds the memo (synchronisation units repeat: an A-sync frame is
// the same for every period of an ETM, an address and context for every
// run of a task).
const maxMemo = 4096

// memoHit is the last unit of a unitMemo class decodeUnitAt returned.
type memoHit struct {
	k  unitMemo
	u  Unit
	ok bool
}

// remember keeps u for key.
func (dec *Decoder) remember(key unitMemo, u Unit) {
	if dec.memo == nil || len(dec.memo) >= maxMemo {
		dec.memo = make(map[unitMemo]Unit)
	}
	dec.memo[key] = u
}

// decodeRunsPieces is decodeRuns of the bytes the pieces describe (n bytes).
func (dec *Decoder) decodeRunsPieces(bufCPU int, ps []rb.AuxPiece, total uint64) []unitRun {
	r := &pieceReader{sp: spans(nil, ps)}
	runs := dec.runs[:0]
	for off := uint64(0); off+FrameSize <= total; off += FrameSize {
		u := dec.decodeUnitAt(bufCPU, r, off)
		if dec.L != nil && u.Kind == KindData && u.HasTS {
			u.Frame, u.Known = dec.L.Resolve(u.CPU, u.TS)
			if n := len(runs); u.Known && n > 0 {
				p := &runs[n-1]
				if p.continuedBy(&u) {
					p.n++
					p.lastTS = u.TS
					off = dec.extendRunPieces(p, r, off, total)
					continue
				}
			}
		}
		runs = append(runs, unitRun{Unit: u, n: 1, lastTS: u.TS})
		if u.Known && u.HasTS && u.Kind == KindData {
			off = dec.extendRunPieces(&runs[len(runs)-1], r, off, total)
		}
	}
	if dec.L != nil {
		dec.inferRuns(runs)
	}
	dec.runs = runs
	return runs
}

// extendRunPieces is extendRun over described frames: a stretch of plain
// units of the source the Ledger run Resolve placed p's last unit in is
// taken at once; any other frame is tested on its bytes.
func (dec *Decoder) extendRunPieces(p *unitRun, r *pieceReader, off, n uint64) uint64 {
	if dec.L.raw || p.CPU < 0 || p.CPU >= len(dec.L.hint) || p.Frame.CPU != p.CPU {
		return off
	}
	h := &dec.L.hint[p.CPU]
	if h.run < 0 || dec.L.cpus[p.CPU][h.run].frame(p.CPU, h.k) != p.last() {
		return off
	}
	lr := &dec.L.cpus[p.CPU][h.run]
	id := traceID(p.CPU)
	for off+2*FrameSize <= n && h.k+1 < h.n {
		next := off + FrameSize
		if s, j, ok := r.frame(next); ok && !s.fs.raw && s.fs.kind == pieceUnits {
			src := s.fs.src
			if k, ok := plainUnit(s, j); ok && src.cpu == p.CPU && id < 0x7f && src.until <= tsMask &&
				src.seq == lr.seq && src.n == lr.n && src.since == lr.since && src.until == lr.until && k == h.k+1 {
				// the plain units k.. of the Ledger run's own source: each
				// frame's timestamp is h.nextTS(), ascending
				m := min(plainLeft(s, j, k), h.n-1-h.k, (n-next)/FrameSize)
				h.tsStep = newTSStep(lr.since, lr.until, lr.n, h.k+m)
				p.n += m
				p.lastTS = h.ts
				off += m * FrameSize
				continue
			}
		}
		if s, j, ok := r.frame(next); ok && !s.fs.raw && s.fs.kind == pieceUnits && s.fs.k0+j < s.fs.src.n {
			k, plain := plainUnit(s, j)
			if !plain {
				break // a synchronisation: its first data byte is not a timestamp header
			}
			if fid := traceID(s.fs.src.cpu); fid < 0x7f {
				ts := s.fs.src.tsAt(k) & tsMask
				if fid != id || ts != h.nextTS() || ts <= p.lastTS {
					break
				}
				h.next()
				p.n++
				p.lastTS = ts
				off += FrameSize
				continue
			}
		}
		fid, ts, ok := plainFormatted((*[FrameSize]byte)(r.bytes(next)))
		if !ok || fid != id || ts != h.nextTS() || ts <= p.lastTS {
			break
		}
		h.next()
		p.n++
		p.lastTS = ts
		off += FrameSize
	}
	return off
}
