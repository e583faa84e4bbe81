package coresight

import "perfsim/rb"

// Commit is one perf_aux_output_end() the driver made with a non-zero size:
// the AUX bytes it declared written and what they held at that moment.
type Commit struct {
	CPU      int
	Buf      *rb.Buffer
	Pos      uint64 // free-running AUX position of the first byte
	Size     uint64
	Recommit int // units in it that an earlier commit into the same buffer already declared
}

// auxShadow is what the sinks stored in one AUX area, unit by unit: the Seq
// of the unit in each 16-byte slot (as pieces, frames.go; a barrier packet
// or a slot never written has none), kept as the sinks write so that a
// commit needs no decoding to say which units it holds. It also keeps the
// highest Seq the area's commits declared so far.
type auxShadow struct {
	priv  any    // the AUX area it shadows (rb->aux_priv: a new area starts a new shadow)
	slots uint64 // the area's 16-byte slots
	m     frameMap
	top   uint64  // highest Seq committed
	had   bool    // a unit was committed
	got   []piece // auxOutputEnd's pieces of the committed range, reused
}

// shadowOf is buf's shadow (nil for a buffer without an AUX area).
func (d *Device) shadowOf(buf *rb.Buffer) *auxShadow {
	size := buf.AuxSize()
	if size == 0 {
		return nil
	}
	if d.shadows == nil {
		d.shadows = map[*rb.Buffer]*auxShadow{}
	}
	sh := d.shadows[buf]
	if sh == nil || sh.slots != size/FrameSize || sh.priv != buf.AuxPriv() {
		sh = &auxShadow{priv: buf.AuxPriv(), slots: size / FrameSize}
		d.shadows[buf] = sh
	}
	return sh
}

// storeRun records that the k units from src's first were written at AUX
// position pos, one per slot, raw.
func (sh *auxShadow) storeRun(pos uint64, src *unitSrc, k uint64) {
	sh.store(pos, etrSource{{lo: 0, hi: k, kind: pieceUnits, raw: true, src: src}})
}

// store records that the slots of src were written at AUX position pos.
func (sh *auxShadow) store(pos uint64, src etrSource) {
	if len(src) == 0 {
		return
	}
	base := src[0].lo
	for _, p := range src {
		for lo, hi := range rb.RingSpans(pos/FrameSize+p.lo-base, p.hi-p.lo, sh.slots) {
			q := p
			q.lo, q.hi = lo, hi
			sh.m.set(q)
			p = p.from(p.lo + hi - lo)
		}
	}
}

// auxOutputEnd is perf_aux_output_end(handle, size) plus the oracle's log:
// it counts the units in the committed range that an earlier commit into
// the same buffer declared.
func (d *Device) auxOutputEnd(cpu int, s rb.Stepper, h *rb.AuxHandle, size uint64) {
	buf := h.Buffer()
	var pos uint64
	if buf != nil {
		if buf.AuxOverwrite() {
			pos = h.Head - size
		} else {
			pos = buf.AuxHead()
		}
	}
	_ = rb.AuxOutputEnd(s, h, size)
	if buf == nil || size == 0 {
		return
	}
	re := 0
	if sh := d.shadowOf(buf); sh != nil {
		n := min(size, buf.AuxSize()) / FrameSize
		// Commits into one buffer are in emission order, so a unit committed
		// a second time has a Seq at or below the highest committed before.
		ps := sh.got[:0]
		for lo, hi := range rb.RingSpans((pos+size)/FrameSize+sh.slots-n%sh.slots, n, sh.slots) {
			ps = sh.m.get(ps, lo, hi)
		}
		sh.got = ps
		for _, p := range ps {
			if p.kind != pieceUnits {
				continue
			}
			first, m := p.seq1(0)-1, p.hi-p.lo
			switch {
			case !sh.had || first > sh.top:
			case first+m-1 <= sh.top:
				re += int(m)
			default:
				re += int(sh.top - first + 1)
			}
			sh.top, sh.had = max(sh.top, first+m-1), true
		}
	}
	c := Commit{CPU: cpu, Buf: buf, Pos: pos, Size: size, Recommit: re}
	d.Commits = append(d.Commits, c)
	d.Stats.Recommitted += uint64(re) * FrameSize
	if d.commitHook != nil {
		d.commitHook(c)
	}
}
