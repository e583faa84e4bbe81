package perftool

import "perfsim/rb"

// ReadVerified reads a backward overwrite buffer without pausing it, with the
// copy-then-verify loop Wang Nan sketched for PATCH 4/4 (seed 002, 2016-03-29): copy
// the header, re-read data_head, check the header was not overwritten; copy the whole
// record, re-read data_head, check again; stop at the first record that fails. It
// returns copies of the records, newest first, and sets Prev so that the next call
// stops where this one started.
//
// Caveat, from the model: data_head only moves when the outermost writer finishes, so
// the check cannot see a writer that has reserved space (rb->head) and is still
// copying into it. It is safe against completed bursts, not against a writer that is
// in flight on the buffer's CPU while this runs on another.
func (m *Mmap) ReadVerified(s rb.Stepper) [][]byte {
	if m.Tracer != nil {
		m.Tracer(rb.TraceEvent{Kind: rb.TraceReadPass, Backward: true})
	}
	size := m.mask + 1
	// intact: the bytes [p, p+n) are not below the newest head by more than a buffer.
	intact := func(n, p, head uint64) bool { return p+n-head <= size }

	first := m.ReadHead(s)
	p, end := first, m.Prev
	var out [][]byte
	var hb [rb.HeaderSize]byte
	for int64(end-p) >= rb.HeaderSize && p-first < size {
		hdr, _ := rb.ParseHeader(m.copyRing(hb[:], p))
		rb.StepAt(s, "read_verified:header-copied")
		if !intact(rb.HeaderSize, p, m.ReadHead(s)) {
			break
		}
		n := uint64(hdr.Size)
		if n < rb.HeaderSize || p+n-first > size || int64(end-p) < int64(n) {
			break
		}
		rec := m.copyRing(make([]byte, n), p)
		rb.StepAt(s, "read_verified:record-copied")
		if !intact(n, p, m.ReadHead(s)) {
			break
		}
		out = append(out, rec)
		if m.Tracer != nil {
			m.Tracer(rb.TraceEvent{Kind: rb.TraceRead, Pos: p, Size: int(n), Rec: append([]byte(nil), rec...), Backward: true})
		}
		p += n
	}
	m.Prev = first
	return out
}
