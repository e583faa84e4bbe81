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

// auxOutputEnd is perf_aux_output_end(handle, size) plus the oracle's log:
// it decodes the committed range and counts units committed before.
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
	n := min(size, buf.AuxSize())
	data := buf.AuxCopyOut(pos+size-n, int(n))
	// Commits into one buffer are in emission order, so a frame committed a
	// second time has a Seq at or below the highest committed before.
	if d.committed == nil {
		d.committed = map[*rb.Buffer]uint64{}
	}
	top, had := d.committed[buf]
	re := 0
	if d.commitDec == nil {
		d.commitDec = d.NewDecoder()
	}
	for _, u := range d.commitDec.Decode(cpu, data) {
		if !u.Known {
			continue
		}
		if had && u.Frame.Seq <= top {
			re++
			continue
		}
		top, had = u.Frame.Seq, true
	}
	if had {
		d.committed[buf] = top
	}
	d.Commits = append(d.Commits, Commit{CPU: cpu, Buf: buf, Pos: pos, Size: size, Recommit: re})
	d.Stats.Recommitted += uint64(re) * FrameSize
}
