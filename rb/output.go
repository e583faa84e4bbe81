package rb

import (
	"encoding/binary"

	"perfsim/uapi"
)

// Handle is struct perf_output_handle for the data ring.
type Handle struct {
	rb     *Buffer
	ev     Event
	wakeup uint64 // rb->wakeup when the handle was taken
	addr   int    // handle->addr, as an index into the data area
	size   int    // handle->size: bytes left before the end of the data area

	// For the trace only: the reservation and the PERF_RECORD_LOST in front of it.
	pos      uint64
	total    int
	lostSize int

	// callerAudited: the caller annotates its own code after the record
	// (from perf_output_end(), or a failed begin, to its next step point),
	// so the return into it is not marked unaudited (PerfEventOutputAudited).
	callerAudited bool
}

// Buffer reports the buffer the handle writes to (nil after a failed begin).
func (h *Handle) Buffer() *Buffer { return h.rb }

// EPOLLIN|EPOLLRDNORM, what perf_output_wakeup() stores into rb->poll.
const pollIn = 0x001 | 0x040

// kernel/events/ring_buffer.c: perf_output_wakeup()
func outputWakeup(h *Handle) {
	h.rb.access(h.rb.footprinting(), h.rb, "rb->poll", OpMarkedWrite, "perf_output_wakeup") // ring_buffer.c: perf_output_wakeup(): atomic_set(&handle->rb->poll, EPOLLIN | EPOLLRDNORM)
	h.rb.Poll = pollIn
	h.ev.Wakeup()
}

// kernel/events/ring_buffer.c: perf_output_get_handle()
func getHandle(s Stepper, h *Handle) {
	rb := h.rb
	fp := rb.footprinting()
	rb.access(fp, rb, "rb->nest", OpMarkedWrite, "perf_output_get_handle") // ring_buffer.c: perf_output_get_handle(): (*(volatile unsigned int *)&rb->nest)++
	rb.nest++
	rb.access(fp, rb, "rb->wakeup", OpMarkedRead, "perf_output_get_handle") // ring_buffer.c: perf_output_get_handle(): handle->wakeup = local_read(&rb->wakeup)
	h.wakeup = rb.wakeup
	StepAt(s, "perf_output_get_handle:nest-inc")
}

// Only the outermost writer publishes data_head; it publishes first, then clears
// nest, then rechecks rb->head so that an NMI that advanced it is not missed.
// kernel/events/ring_buffer.c: perf_output_put_handle()
func putHandle(s Stepper, h *Handle) {
	rb := h.rb
	if rb.Knobs.OldPutHandle {
		putHandleOld(s, h)
		return
	}
	fp := rb.footprinting()
	rb.access(fp, rb, "rb->nest", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): nest = READ_ONCE(rb->nest)
	nest := rb.nest
	if nest > 1 {
		rb.access(fp, rb, "rb->nest", OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): WRITE_ONCE(rb->nest, nest - 1)
		rb.nest = nest - 1
		return
	}
	for {
		rb.access(fp, rb, "rb->head", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): head = local_read(&rb->head)
		head := rb.head
		// IRQ/NMI can happen here and advance rb->head.
		StepAt(s, "perf_output_put_handle:head-read")
		rb.access(fp, rb, FieldDataHead, OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): WRITE_ONCE(rb->user_page->data_head, head)
		rb.storeDataHead(head)
		StepAt(s, "perf_output_put_handle:data-head-stored")
		rb.access(fp, rb, "rb->nest", OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): WRITE_ONCE(rb->nest, 0)
		rb.nest = 0
		StepAt(s, "perf_output_put_handle:nest-zero")
		rb.access(fp, rb, "rb->head", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): if (unlikely(head != local_read(&rb->head)))
		if head == rb.head {
			break
		}
		rb.access(fp, rb, "rb->nest", OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): WRITE_ONCE(rb->nest, 1)
		rb.nest = 1
	}
	rb.access(fp, rb, "rb->wakeup", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c: perf_output_put_handle(): if (handle->wakeup != local_read(&rb->wakeup))
	if h.wakeup != rb.wakeup {
		outputWakeup(h)
	}
}

// putHandleOld is perf_output_put_handle() before 1b038c6e05ff: nest is decremented
// (local_dec_and_test) before data_head is stored, so an NMI writer in between sees
// nest == 0, publishes its newer head, and the outer writer then stores its older one.
// kernel/events/ring_buffer.c: perf_output_put_handle() (v5.1 and earlier)
func putHandleOld(s Stepper, h *Handle) {
	rb := h.rb
	fp := rb.footprinting()
	for {
		rb.access(fp, rb, "rb->head", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c (v5.1): perf_output_put_handle(): head = local_read(&rb->head)
		head := rb.head
		StepAt(s, "perf_output_put_handle:head-read")
		rb.access(fp, rb, "rb->nest", OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c (v5.1): perf_output_put_handle(): if (!local_dec_and_test(&rb->nest))
		rb.nest--
		if rb.nest != 0 {
			return
		}
		StepAt(s, "perf_output_put_handle:nest-dec")
		rb.access(fp, rb, FieldDataHead, OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c (v5.1): perf_output_put_handle(): rb->user_page->data_head = head
		rb.storeDataHead(head)
		StepAt(s, "perf_output_put_handle:data-head-stored")
		rb.access(fp, rb, "rb->head", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c (v5.1): perf_output_put_handle(): if (unlikely(head != local_read(&rb->head)))
		if head == rb.head {
			break
		}
		rb.access(fp, rb, "rb->nest", OpMarkedWrite, "perf_output_put_handle") // ring_buffer.c (v5.1): perf_output_put_handle(): local_inc(&rb->nest)
		rb.nest++
	}
	rb.access(fp, rb, "rb->wakeup", OpMarkedRead, "perf_output_put_handle") // ring_buffer.c (v5.1): perf_output_put_handle(): if (handle->wakeup != local_read(&rb->wakeup))
	if h.wakeup != rb.wakeup {
		outputWakeup(h)
	}
}

func (rb *Buffer) storeDataHead(head uint64) {
	rb.User.DataHead = head // smp_wmb(); WRITE_ONCE(user_page->data_head, head)
	if rb.Tracer != nil {
		rb.Tracer(TraceEvent{Kind: TraceDataHead, Value: head})
	}
}

// kernel/events/ring_buffer.c: ring_buffer_has_space()
func hasSpace(head, tail, dataSize uint64, size int, backward bool) bool {
	if !backward {
		return (tail-(head+1))&(dataSize-1) >= uint64(size) // CIRC_SPACE(head, tail, size)
	}
	return (head-(tail+1))&(dataSize-1) >= uint64(size) // CIRC_SPACE(tail, head, size)
}

// lostRecordSize is sizeof(lost_event): header, id, lost.
const lostRecordSize = 24

// OutputBegin reserves size bytes (a whole record) in rb for ev and fills h. It
// returns ENOSPC when there is no buffer, the buffer is paused, or (not in overwrite
// mode) there is no room; the last two count the record lost. data is the sample_id
// data of the record being written, used for the trailer of a PERF_RECORD_LOST that
// is emitted first when rb->lost is not zero.
// kernel/events/ring_buffer.c: __perf_output_begin()
func OutputBegin(s Stepper, h *Handle, rb *Buffer, data *SampleID, ev Event, size int, backward bool) error {
	h.rb = nil
	if rb == nil {
		return uapi.ENOSPC
	}
	if size < 0 || size > MaxRecordSize {
		return ErrRecordTooBig
	}
	fp := rb.footprinting()
	rb.access(fp, rb, "rb->paused", OpMarkedRead, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): if (unlikely(READ_ONCE(rb->paused)))
	if rb.paused {
		counted := rb.nrPages != 0
		if counted {
			rb.access(fp, rb, "rb->lost", OpAtomicAdd, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): local_inc(&rb->lost)
			rb.lost++
			ev.LostSamplesInc()
		}
		if rb.Tracer != nil {
			rb.Tracer(TraceEvent{Kind: TraceLost, Counted: counted, Size: size, Backward: backward})
		}
		return uapi.ENOSPC
	}
	h.rb = rb
	h.ev = ev
	callerSize := size

	rb.access(fp, rb, "rb->lost", OpMarkedRead, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): have_lost = local_read(&rb->lost)
	haveLost := rb.lost
	h.lostSize = 0
	if haveLost != 0 {
		h.lostSize = lostRecordSize
		if ev.SampleIDAll() {
			h.lostSize += IDHeaderSize(ev.SampleType())
		}
		size += h.lostSize
	}

	getHandle(s, h)

	dataSize := rb.DataSize()
	rb.access(fp, rb, "rb->head", OpMarkedRead, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): offset = local_read(&rb->head)
	offset := rb.head
	var head uint64
	for {
		head = offset
		rb.access(fp, rb, FieldDataTail, OpMarkedRead, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): tail = READ_ONCE(rb->user_page->data_tail)
		tail := rb.User.DataTail
		if !rb.overwrite && !hasSpace(head, tail, dataSize, size, backward) {
			goto fail
		}
		if !backward {
			head += uint64(size)
		} else {
			head -= uint64(size)
		}
		// An NMI writer here moves rb->head and makes the cmpxchg fail.
		StepAt(s, "__perf_output_begin:cmpxchg")
		rb.access(fp, rb, "rb->head", OpMarkedWrite, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): local_try_cmpxchg(&rb->head, &offset, head)
		if rb.head == offset {
			rb.head = head
			break
		}
		offset = rb.head
	}
	if backward {
		offset = head
		head = -head
	}

	rb.access(fp, rb, "rb->wakeup", OpMarkedWrite, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): local_read(&rb->wakeup), local_add(rb->watermark, &rb->wakeup)
	if head-rb.wakeup > rb.Watermark {
		rb.wakeup += rb.Watermark
	}

	h.addr = int(offset & rb.mask)
	h.size = int(rb.DataSize()) - h.addr
	h.pos = offset
	h.total = size
	if rb.Tracer != nil {
		rb.Tracer(TraceEvent{Kind: TraceReserve, Pos: offset, Size: size, Backward: backward})
	}
	StepAt(s, "__perf_output_begin:reserved")

	if haveLost != 0 {
		var buf [lostRecordSize + 48]byte
		b := buf[:HeaderSize]
		PutHeader(b, Header{Type: uapi.PERF_RECORD_LOST, Size: uint16(h.lostSize)})
		b = binary.LittleEndian.AppendUint64(b, ev.ID())
		rb.access(fp, rb, "rb->lost", OpMarkedWrite, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): lost_event.lost = local_xchg(&rb->lost, 0)
		b = binary.LittleEndian.AppendUint64(b, rb.lost)
		rb.lost = 0
		if ev.SampleIDAll() {
			b = appendSampleID(b, ev.SampleType(), data)
		}
		OutputCopy(h, b)
		StepAt(s, "__perf_output_begin:lost-written")
	}
	_ = callerSize
	return nil

fail:
	rb.access(fp, rb, "rb->lost", OpAtomicAdd, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): fail: local_inc(&rb->lost)
	rb.lost++
	ev.LostSamplesInc()
	if rb.Tracer != nil {
		rb.Tracer(TraceEvent{Kind: TraceLost, Counted: true, Size: callerSize, Backward: backward})
	}
	putHandle(s, h)
	// Back into the caller (a record it could not write) with no step
	// point: code rb does not annotate (footprint_output.go), unless the
	// caller does (pmu/footprint_overflow.go).
	rb.unaudited(fp && !h.callerAudited, "__perf_output_begin's caller")
	h.rb = nil
	return uapi.ENOSPC
}

// OutputBeginForward is perf_output_begin_forward().
// kernel/events/ring_buffer.c: perf_output_begin_forward()
func OutputBeginForward(s Stepper, h *Handle, rb *Buffer, data *SampleID, ev Event, size int) error {
	return OutputBegin(s, h, rb, data, ev, size, false)
}

// OutputBeginBackward is perf_output_begin_backward() (attr.write_backward).
// kernel/events/ring_buffer.c: perf_output_begin_backward()
func OutputBeginBackward(s Stepper, h *Handle, rb *Buffer, data *SampleID, ev Event, size int) error {
	return OutputBegin(s, h, rb, data, ev, size, true)
}

// OutputEnd publishes what the handle wrote (if it is the outermost writer).
// kernel/events/ring_buffer.c: perf_output_end()
func OutputEnd(s Stepper, h *Handle) {
	rb := h.rb
	if rb == nil {
		return
	}
	if rb.Tracer != nil {
		h.traceCommit()
	}
	putHandle(s, h)
	// Back into the caller with no step point: code rb does not annotate
	// (footprint_output.go), unless the caller does (a handle taken by
	// PerfEventOutputAudited: pmu/footprint_overflow.go).
	rb.unaudited(!h.callerAudited && rb.footprinting(), "perf_output_end's caller")
	h.rb = nil
}

// traceCommit logs the records of the reservation with their bytes as they are now.
func (h *Handle) traceCommit() {
	rb := h.rb
	pos := h.pos
	if h.lostSize > 0 {
		rb.Tracer(TraceEvent{Kind: TraceCommit, Pos: pos, Size: h.lostSize, Rec: rb.commitRec(pos, h.lostSize)})
		pos += uint64(h.lostSize)
	}
	n := h.total - h.lostSize
	rb.Tracer(TraceEvent{Kind: TraceCommit, Pos: pos, Size: n, Rec: rb.commitRec(pos, n)})
}

// commitRec is the Rec of a TraceCommit of n bytes at pos: a copy the
// Tracer may keep, or for a TraceInPlace Tracer the bytes where they lie
// (copied to a scratch buffer only when they wrap at the end of the data
// area). A run traced with 64 buffers otherwise copied every record it
// wrote for a checker that only hashes it.
func (rb *Buffer) commitRec(pos uint64, n int) []byte {
	size := uint64(rb.nrPages * PageSize)
	if !rb.TraceInPlace || size == 0 {
		return rb.copyOut(pos, n)
	}
	if off := pos & rb.mask; off+uint64(n) <= size {
		return rb.span(int(off), n)[:n:n] // capacity n: a Tracer's append cannot write into the ring
	}
	if n > cap(rb.traceScratch) {
		rb.traceScratch = make([]byte, n)
	}
	return rb.CopyAt(rb.traceScratch[:n], pos)
}

// copyOut copies n bytes at free-running position pos out of the data area,
// into a slice of its own (capacity n) carved from rb.traceSlab.
func (rb *Buffer) copyOut(pos uint64, n int) []byte {
	const slab = 8 << 10
	if n > slab/4 {
		return rb.CopyAt(make([]byte, n), pos)
	}
	if n > len(rb.traceSlab) {
		rb.traceSlab = make([]byte, slab)
	}
	dst := rb.traceSlab[:n:n]
	rb.traceSlab = rb.traceSlab[n:]
	return rb.CopyAt(dst, pos)
}

// OutputCopy copies buf at the handle, wrapping at the end of the data area, and
// returns how many bytes it could not copy (0 unless the handle is not valid). Like
// the kernel it does not check the reservation: a writer that copies more than it
// reserved writes over the next record.
// kernel/events/ring_buffer.c: perf_output_copy() (internal.h: __output_copy())
func OutputCopy(h *Handle, buf []byte) int {
	rb := h.rb
	if rb == nil || rb.nrPages == 0 {
		return len(buf)
	}
	rb.access(rb.footprinting(), rb, FieldDataPages, OpMarkedWrite, "__output_copy") // internal.h: __output_copy(): memcpy() into the reserved span (footprint_output.go)
	for len(buf) > 0 {
		n := copy(rb.span(h.addr, min(h.size, len(buf))), buf)
		buf = buf[n:]
		h.advance(n)
	}
	return 0
}

// OutputSkip moves the handle on by n bytes without writing them: what was in the
// buffer there stays (the kernel uses it for RAW padding).
// kernel/events/ring_buffer.c: perf_output_skip() (internal.h: __output_skip())
func OutputSkip(h *Handle, n int) int {
	rb := h.rb
	if rb == nil || rb.nrPages == 0 || n < 0 {
		return n
	}
	for n > 0 {
		k := min(h.size, n)
		n -= k
		h.advance(k)
	}
	return 0
}

// advance is the tail of __DEFINE_OUTPUT_COPY_BODY: move on, wrap to the start.
func (h *Handle) advance(n int) {
	h.addr += n
	h.size -= n
	if h.size == 0 {
		h.addr = 0
		h.size = int(h.rb.DataSize())
	}
}

// put64 is perf_output_put() of a u64; records are 8-aligned, so it only straddles
// the end of the area after a misaligned write (RAW).
func put64(h *Handle, v uint64) {
	h.rb.access(h.rb.footprinting(), h.rb, FieldDataPages, OpMarkedWrite, "perf_output_put") // internal.h: __output_copy() of perf_output_put() (footprint_output.go)
	if h.size >= 8 {
		binary.LittleEndian.PutUint64(h.rb.span(h.addr, 8), v)
		h.advance(8)
		return
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	OutputCopy(h, b[:])
}
