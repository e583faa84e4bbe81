package coresight

import (
	"slices"
	"sync"

	"perfsim/rb"
)

// Decoding described trace. A chunk whose bytes are described (Chunk.Pieces:
// the AUX area's descriptions, frames.go, as perf copied them) is decoded
// without making most of its bytes (pieceReader is decodeRunsOf's
// frameReader): a span of zero or barrier slots, or of a source's units
// whose identities are certain (decode_take.go), is one run at once; a
// 16-byte frame that is a plain unit of a unitSrc (a full timestamp, then
// atoms) decodes to what decodeUnit finds in its bytes, worked out from the
// unit (its ETM, its timestamp), and a stretch of them that extendRun would
// take is taken at once; a synchronisation unit is decoded from its bytes
// once per shape (syncUnit); every other frame (frames across pieces,
// sources the package does not know) is made into its bytes and decoded as
// such. decodeRunsPieces's runs are counted by the Analyzer exactly as
// decodeRuns's runs of the bytes are (the same units, the same identities).

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
	run   int // decode_take.go's ledgerRunOf: 0 not asked, -1 none, else the Ledger run's index + 1
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
	for _, i := range [2]int{r.i, r.i + 1} { // the last span, the next one
		if i < len(r.sp) && r.sp[i].at <= at && at < r.sp[i].at+r.sp[i].n {
			r.i = i
			return &r.sp[i]
		}
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
	return k, k < s.fs.src.n && s.fs.src.plain(k)
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

// decodeUnitAt is decodeUnit of the frame at byte off: from its
// description when the frame is whole in a known span (a plain formatted
// unit through formattedUnit, as decodeUnit takes plainFormatted's), else
// from its bytes.
func (dec *Decoder) decodeUnitAt(bufCPU int, r *pieceReader, off uint64) Unit {
	if s, j, ok := r.frame(off); ok && dec.L != nil {
		switch s.fs.kind {
		case pieceZero:
			return Unit{Kind: KindZero, CPU: -1}
		case pieceBarrier:
			return Unit{Kind: KindBarrier, CPU: -1}
		}
		if k, plain := plainUnit(s, j); k < s.fs.src.n { // pieceUnits
			switch {
			case !plain:
				return dec.syncUnit(bufCPU, r, off, s, k)
			case s.fs.raw != dec.L.raw:
			case s.fs.raw:
				return Unit{Kind: KindData, CPU: bufCPU, TS: s.fs.src.tsAt(k) & tsMask, HasTS: true}
			default:
				if id, ts, ok := s.plainFormatted(k); ok {
					return dec.formattedUnit(id, ts)
				}
			}
		}
	}
	return dec.decodeUnit(bufCPU, r.bytes(off))
}

// plainFormatted is plainFormatted of the bytes of unit k of the span's
// source, a plain unit, worked out from the unit: its ETM's trace ID and
// its timestamp; ok false when the bytes must be read (a raw unit, a trace
// ID the formatter's 7 bits cannot carry).
func (s *span) plainFormatted(k uint64) (id byte, ts uint64, ok bool) {
	if id = traceID(s.fs.src.cpu); s.fs.raw || id >= 0x7f {
		return 0, 0, false
	}
	return id, s.fs.src.tsAt(k) & tsMask, true
}

// syncUnit is decodeUnit of the frame at byte off, unit k of span s's
// source, a synchronisation unit: its bytes are a function of unitMemo's
// fields, so it is decoded once per key and decoder shape (syncMemo).
func (dec *Decoder) syncUnit(bufCPU int, r *pieceReader, off uint64, s *span, k uint64) Unit {
	key := syncKey{unitMemo: unitKeyOf(s.fs.src, k, s.fs.raw, bufCPU), cpus: dec.CPUs, decRaw: dec.L.raw}
	last := &dec.lastMemo[key.class]
	for _, l := range last {
		if l.ok && l.k == key {
			return l.u
		}
	}
	syncMemo.Lock()
	u, ok := syncMemo.m[key]
	syncMemo.Unlock()
	if !ok {
		u = dec.decodeUnit(bufCPU, r.bytes(off))
		syncMemo.remember(key, u)
	}
	copy(last[1:], last[:])
	last[0] = memoHit{k: key, u: u, ok: true}
	return u
}

// syncKey is a unitMemo and what of the decoder decodeUnit's result
// depends on (its CPUs, its Ledger's raw; syncUnit's decoders have a
// Ledger).
type syncKey struct {
	unitMemo
	cpus   int
	decRaw bool
}

// syncMemo is syncUnit's memo, shared by every decoder (an exploration's
// schedules each have their own, and see the same few synchronisation
// units).
var syncMemo memo

type memo struct {
	sync.Mutex
	m map[syncKey]Unit
}

// unitMemo is what a unit's bytes (appendUnit's) are a function of, when it
// is not a plain one, and the buffer's CPU: decodeUnit's result depends on
// nothing else but the decoder (syncKey).
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

// memoHit is a unit of a unitMemo class syncUnit returned lately.
type memoHit struct {
	k  syncKey
	u  Unit
	ok bool
}

// remember keeps u for key.
func (m *memo) remember(key syncKey, u Unit) {
	m.Lock()
	defer m.Unlock()
	if m.m == nil || len(m.m) >= maxMemo {
		m.m = make(map[syncKey]Unit)
	}
	m.m[key] = u
}

// decodeRunsPieces is decodeRuns of the bytes the pieces describe (n bytes).
func (dec *Decoder) decodeRunsPieces(bufCPU int, ps []rb.AuxPiece, total uint64) []unitRun {
	dec.pr = pieceReader{sp: spans(dec.pr.sp[:0], ps)}
	return decodeRunsOf(dec, bufCPU, &dec.pr, total)
}

func (r *pieceReader) unit(dec *Decoder, bufCPU int, off uint64) Unit {
	return dec.decodeUnitAt(bufCPU, r, off)
}

// plain is plainFormatted of the frame at byte off: a described plain unit
// from its source, a synchronisation unit not (its first data byte is not a
// timestamp header), any other frame from its bytes.
func (r *pieceReader) plain(off uint64) (byte, uint64, bool) {
	if s, j, ok := r.frame(off); ok && !s.fs.raw && s.fs.kind == pieceUnits {
		if k, plain := plainUnit(s, j); k < s.fs.src.n {
			if !plain {
				return 0, 0, false
			}
			if id, ts, ok := s.plainFormatted(k); ok {
				return id, ts, true
			}
		}
	}
	return plainFormatted((*[FrameSize]byte)(r.bytes(off)))
}

// stretch: the plain units from byte off on, when they are units h.k+1..
// of the Ledger run's own source (formatted, p's ETM): each frame's
// timestamp is the next one of the run.
func (r *pieceReader) stretch(p *unitRun, lr *ledgerRun, h *ledgerHint, off, max uint64) uint64 {
	s, j, ok := r.frame(off)
	if !ok || s.fs.raw || s.fs.kind != pieceUnits {
		return 0
	}
	src := s.fs.src
	k, ok := plainUnit(s, j)
	if !ok || src.cpu != p.CPU || traceID(src.cpu) >= 0x7f || src.until > tsMask || k != h.k+1 ||
		src.seq != lr.seq || src.n != lr.n || src.since != lr.since || src.until != lr.until {
		return 0
	}
	return min(plainLeft(s, j, k), max)
}

// take: the whole frames from byte off in its span at once when they are
// zero or barrier slots (one run of them), or units of a source the Ledger
// resolves one to one (takeUnits).
func (r *pieceReader) take(dec *Decoder, bufCPU int, off, total uint64, runs []unitRun) ([]unitRun, uint64, bool) {
	s, j, ok := r.frame(off)
	if !ok {
		return runs, 0, false
	}
	m := min((s.off+s.n)/FrameSize-j, (total-off)/FrameSize)
	switch s.fs.kind {
	case pieceZero:
		return append(runs, unitRun{Unit: Unit{Kind: KindZero, CPU: -1}, n: m}), off + (m-1)*FrameSize, true
	case pieceBarrier:
		return append(runs, unitRun{Unit: Unit{Kind: KindBarrier, CPU: -1}, n: m}), off + (m-1)*FrameSize, true
	}
	return dec.takeUnits(bufCPU, r, s, j, off, m, runs)
}
