package perftool

import (
	"perfsim/rb"
	"perfsim/uapi"
)

// Mmap is struct perf_mmap of tools/lib/perf: the user-space reader of one ring. It
// reads only what user space can see: the user page and the data bytes.
type Mmap struct {
	buf       *rb.Buffer
	overwrite bool
	mask      uint64

	Prev  uint64 // map->prev: where the last read ended (forward) or started (overwrite)
	Start uint64 // map->start
	End   uint64 // map->end
	Flush uint64 // map->flush: read_init returns -EAGAIN below this many bytes

	eventCopy []byte // map->event_copy: bounce buffer for a record that wraps
	out       []byte // the record returned by the last ReadEvent

	// Warnings are the WARN_ONCE/pr_debug lines of mmap.c that tell what happened.
	Warnings []string
	// Tracer, when set, receives what the reader saw (not part of the tool).
	Tracer rb.Tracer
}

// NewMmap maps rb for reading; overwrite is true for a read-only (backward) mapping.
// It fails for a buffer without data pages, which perf never maps for data.
// tools/lib/perf/mmap.c: perf_mmap__mmap()
func NewMmap(buf *rb.Buffer, overwrite bool) (*Mmap, error) {
	if buf == nil || buf.NrPages() == 0 {
		return nil, uapi.EINVAL
	}
	return &Mmap{buf: buf, overwrite: overwrite, mask: buf.Mask(), Flush: 1}, nil
}

// ReadHead loads data_head with acquire semantics.
// tools/include/linux/ring_buffer.h: ring_buffer_read_head()
func (m *Mmap) ReadHead(s rb.Stepper) uint64 {
	m.buf.UserAccess(rb.FieldDataHead, rb.OpMarkedRead, "ring_buffer_read_head") // tools/include/linux/ring_buffer.h: ring_buffer_read_head(): smp_load_acquire(&base->data_head)
	h := m.buf.User.DataHead
	if m.Tracer != nil {
		m.Tracer(rb.TraceEvent{Kind: rb.TraceReadHead, Value: h})
	}
	rb.StepAt(s, "ring_buffer_read_head:loaded")
	markReaderCaller(s) // footprint_record.go
	return h
}

// tools/lib/perf/mmap.c: perf_mmap__write_tail()
func (m *Mmap) writeTail(tail uint64) {
	m.buf.UserAccess(rb.FieldDataTail, rb.OpMarkedWrite, "perf_mmap__write_tail") // tools/lib/perf/mmap.c: perf_mmap__write_tail(): ring_buffer_write_tail() -> smp_store_release(&base->data_tail, tail)
	m.buf.User.DataTail = tail
}

// Consume gives the read space back to the kernel (forward mappings only).
// tools/lib/perf/mmap.c: perf_mmap__consume()
func (m *Mmap) Consume() {
	if !m.overwrite {
		m.writeTail(m.Prev)
	}
}

// overwriteRbFindRange walks the headers from start (the newest record) until it has
// covered a whole buffer or reaches a zero header, and drops the last record when it
// sticks out past the buffer size: it is partly overwritten.
// tools/lib/perf/mmap.c: overwrite_rb_find_range()
func (m *Mmap) overwriteRbFindRange(s rb.Stepper, start uint64, end *uint64) {
	size := m.mask + 1
	evtHead := start
	var hsize uint64
	for {
		if evtHead-start >= size {
			if evtHead-start > size {
				evtHead -= hsize
				m.warn("Finished reading overwrite ring buffer: rewind")
			}
			*end = evtHead
			return
		}
		m.buf.UserAccess(rb.FieldDataPages, rb.OpMarkedRead, "overwrite_rb_find_range") // tools/lib/perf/mmap.c: overwrite_rb_find_range(): pheader = (struct perf_event_header *)(buf + (evt_head & mask))
		hdr, _ := rb.ParseHeader(m.peek(evtHead, rb.HeaderSize))
		rb.StepAt(s, "overwrite_rb_find_range:header")
		hsize = uint64(hdr.Size)
		if hsize == 0 {
			m.warn("Finished reading overwrite ring buffer: get start")
			*end = evtHead
			return
		}
		evtHead += hsize
	}
}

// ReadInit computes the range to read: [prev, head) forward, [head, prev) for an
// overwrite mapping, narrowed by overwriteRbFindRange when a backward buffer wrapped.
// A forward reader that fell a whole buffer behind skips to head (-EAGAIN).
// tools/lib/perf/mmap.c: __perf_mmap__read_init()
func (m *Mmap) ReadInit(s rb.Stepper) error {
	if m.Tracer != nil {
		m.Tracer(rb.TraceEvent{Kind: rb.TraceReadPass, Backward: m.overwrite})
	}
	head := m.ReadHead(s)
	old := m.Prev
	if m.overwrite {
		m.Start, m.End = head, old
	} else {
		m.Start, m.End = old, head
	}
	if m.End-m.Start < m.Flush {
		return uapi.EAGAIN
	}
	size := m.End - m.Start
	if size > m.mask+1 {
		if !m.overwrite {
			m.warn("failed to keep up with mmap data. (warn only once)")
			m.Prev = head
			m.Consume()
			return uapi.EAGAIN
		}
		// Backward ring buffer is full: we still have a chance to read most of it.
		m.overwriteRbFindRange(s, m.Start, &m.End)
	}
	return nil
}

// ReadEvent returns the next record as bytes, or nil at the end of the range or when
// the header does not fit what is left. The slice is valid until the next call (perf
// returns a pointer into the ring or into its bounce buffer).
// tools/lib/perf/mmap.c: perf_mmap__read_event()
func (m *Mmap) ReadEvent(s rb.Stepper) []byte {
	if !m.overwrite {
		m.End = m.ReadHead(s) // non-overwrite doesn't pause the ring buffer
	}
	rec := m.read(s, &m.Start, m.End)
	if !m.overwrite {
		m.Prev = m.Start
	}
	return rec
}

// tools/lib/perf/mmap.c: perf_mmap__read()
func (m *Mmap) read(s rb.Stepper, startp *uint64, end uint64) []byte {
	diff := int32(end - *startp) // int diff = end - *startp
	if diff < rb.HeaderSize {
		return nil
	}
	pos := *startp
	m.buf.UserAccess(rb.FieldDataPages, rb.OpMarkedRead, "perf_mmap__read") // tools/lib/perf/mmap.c: perf_mmap__read(): event = (union perf_event *)&data[*startp & map->mask]
	hdr, _ := rb.ParseHeader(m.peek(pos, rb.HeaderSize))
	rb.StepAt(s, "perf_mmap__read:header-read")
	size := int(hdr.Size)
	if size < rb.HeaderSize || int(diff) < size {
		return nil
	}
	m.buf.UserAccess(rb.FieldDataPages, rb.OpMarkedRead, "perf_mmap__read") // tools/lib/perf/mmap.c: perf_mmap__read(): memcpy(map->event_copy, ...) of a record that wraps, or a pointer into the ring
	off := pos & m.mask
	if off+uint64(size) != (pos+uint64(size))&m.mask {
		// The event straddles the mmap boundary: copy it into event_copy.
		if size > len(m.eventCopy) {
			m.eventCopy = make([]byte, size)
		}
		m.out = m.copyRing(m.eventCopy[:size], pos)
	} else {
		// In place: perf hands out a pointer; the model copies the bytes now, so a
		// record overwritten from here on does not change what was returned.
		m.out = append(m.out[:0], m.buf.Bytes(int(off), size)...)
	}
	*startp += uint64(size)
	if m.Tracer != nil {
		m.Tracer(rb.TraceEvent{Kind: rb.TraceRead, Pos: pos, Size: size, Rec: append([]byte(nil), m.out...), Backward: m.overwrite})
	}
	return m.out
}

// ReadDone records where the next overwrite read must stop: the current head.
// tools/lib/perf/mmap.c: perf_mmap__read_done()
func (m *Mmap) ReadDone(s rb.Stepper) {
	m.Prev = m.ReadHead(s)
}

// copyRing copies len(dst) bytes at free-running position pos, wrapping.
func (m *Mmap) copyRing(dst []byte, pos uint64) []byte {
	return m.buf.CopyAt(dst, pos)
}

// peek returns n bytes at pos, copied if they wrap (a garbage position need not be
// 8-aligned, so even a header can wrap).
func (m *Mmap) peek(pos uint64, n int) []byte {
	off := pos & m.mask
	if off+uint64(n) <= m.buf.DataSize() {
		return m.buf.Bytes(int(off), n)
	}
	return m.copyRing(make([]byte, n), pos)
}

func (m *Mmap) warn(s string) {
	if len(m.Warnings) < 64 {
		m.Warnings = append(m.Warnings, s)
	}
}

// ReadAll runs one read pass the way perf does (read_init, read_event and consume
// until the end, read_done) and returns copies of the records.
// tools/lib/perf/mmap.c: perf_mmap__read_init() .. perf_mmap__read_done()
func (m *Mmap) ReadAll(s rb.Stepper) ([][]byte, error) {
	if err := m.ReadInit(s); err != nil {
		return nil, err
	}
	var out [][]byte
	for {
		rec := m.ReadEvent(s)
		if rec == nil {
			break
		}
		out = append(out, append([]byte(nil), rec...))
		m.Consume()
	}
	m.ReadDone(s)
	return out, nil
}
