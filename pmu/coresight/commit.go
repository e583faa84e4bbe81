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
// (plus one; 0 for none: never written, or a barrier packet) of the unit in
// each 16-byte slot, kept as the bytes are written so that a commit needs no
// decoding to say which units it holds. It also keeps the highest Seq the
// area's commits declared so far.
type auxShadow struct {
	data  []byte   // the AUX area it shadows (a new area starts a new shadow)
	slots []uint64 // per 16-byte slot of the area: Seq+1 of its unit, 0 none
	top   uint64   // highest Seq committed
	had   bool     // a unit was committed
}

// shadowOf is buf's shadow (nil for a buffer without an AUX area).
func (d *Device) shadowOf(buf *rb.Buffer) *auxShadow {
	data := buf.AuxData()
	if len(data) == 0 {
		return nil
	}
	if d.shadows == nil {
		d.shadows = map[*rb.Buffer]*auxShadow{}
	}
	sh := d.shadows[buf]
	if sh == nil || len(sh.data) != len(data) || &sh.data[0] != &data[0] {
		sh = &auxShadow{data: data, slots: make([]uint64, len(data)/FrameSize)}
		d.shadows[buf] = sh
	}
	return sh
}

// storeRun records that the k units from Seq seq were written at AUX
// position pos, one per slot.
func (sh *auxShadow) storeRun(pos, seq, k uint64) {
	n := uint64(len(sh.slots))
	i := (pos / FrameSize) % n
	for j := uint64(0); j < k; j++ {
		sh.slots[i] = seq + j + 1
		if i++; i == n {
			i = 0
		}
	}
}

// store records that the units src (Seq+1 each, 0 none) were written at AUX
// position pos.
func (sh *auxShadow) store(pos uint64, src []uint64) {
	n := uint64(len(sh.slots))
	for len(src) > 0 {
		i := (pos / FrameSize) % n
		k := copy(sh.slots[i:], src)
		src = src[k:]
		pos += uint64(k) * FrameSize
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
		nslots := uint64(len(sh.slots))
		i := ((pos + size) / FrameSize) % nslots
		i = (i + nslots - n%nslots) % nslots
		// Commits into one buffer are in emission order, so a unit committed
		// a second time has a Seq at or below the highest committed before.
		for range n {
			if v := sh.slots[i]; v != 0 {
				if seq := v - 1; sh.had && seq <= sh.top {
					re++
				} else {
					sh.top, sh.had = seq, true
				}
			}
			if i++; i == nslots {
				i = 0
			}
		}
	}
	c := Commit{CPU: cpu, Buf: buf, Pos: pos, Size: size, Recommit: re}
	d.Commits = append(d.Commits, c)
	d.Stats.Recommitted += uint64(re) * FrameSize
	if d.commitHook != nil {
		d.commitHook(c)
	}
}
