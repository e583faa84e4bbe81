package rb

import "perfsim/uapi"

// PageSize is PAGE_SIZE of the modelled machine (x86-64).
const PageSize = 4096

// RingBufferWritable is RING_BUFFER_WRITABLE: the mmap had VM_WRITE, so user space owns
// data_tail and the kernel must not overwrite unread data.
const RingBufferWritable = 0x01

// UserPage is the part of struct perf_event_mmap_page that the data ring and the AUX
// area (aux.go) use.
type UserPage struct {
	DataHead   uint64 // written by the kernel (perf_output_put_handle), read with acquire by user space
	DataTail   uint64 // written by user space (perf_mmap__consume) when the mapping is writable
	DataOffset uint64 // where the data area starts in the mapping: one page
	DataSize   uint64 // perf_data_size(rb)

	AuxHead, AuxTail, AuxOffset, AuxSize uint64 // the AUX area: aux_head by the kernel, aux_tail by user space
}

// Knobs select earlier kernel behaviour. The zero value is today's upstream.
type Knobs struct {
	// OldPutHandle models perf_output_put_handle() before commit 1b038c6e05ff
	// ("perf/ring_buffer: Fix exposing a temporarily decreased data_head", Yabin Cui,
	// 2019): the writer decremented rb->nest with local_dec_and_test() and only then
	// stored data_head, so an NMI writer between the two publishes a newer head that the
	// outer writer then overwrites with its older one: data_head goes backwards.
	// Scenario name: rb-put-handle=pre-1b038c6e05ff (default: today).
	OldPutHandle bool
	// OldAuxFree models the AUX area before 57ffc5ca679f ("perf: Fix AUX buffer
	// refcounting"): no aux_mmap_count check in perf_aux_output_begin(), no
	// writer stop in perf_mmap_close(), and the pages freed by whoever drops the
	// last aux_refcount, an NMI included. Scenario name: aux-free=pre-57ffc5ca679f.
	OldAuxFree bool
}

// Buffer is struct perf_buffer (kernel/events/internal.h); the AUX area is in aux.go.
type Buffer struct {
	Knobs Knobs
	key   string   // its stable name for partial-order reduction (footprint_key.go)
	acc   Accessor // who hears its code's footprints (footprint.go)

	// nr_pages, overwrite and paused are read through methods: changing them behind
	// the model's back (an unpaused buffer without pages) would index an empty area.
	refcount  int32  // refcount_t refcount
	nrPages   int    // nr_pages: number of data pages, a power of two or 0
	overwrite bool   // overwrite: the mapping is read-only, data_tail is ignored
	paused    bool   // paused: __perf_output_begin() drops everything and counts it lost
	Poll      uint32 // poll: EPOLLIN|EPOLLRDNORM after a wakeup

	head      uint64 // head (local_t): the reservation point, free-running
	nest      uint32 // nest: nesting depth of writers on this CPU
	events    int64  // events (local_t): samples since the last wakeup_events wakeup
	wakeup    uint64 // wakeup (local_t): wakeup stamp; put_handle wakes when it changed
	lost      uint64 // lost (local_t): records dropped since the last PERF_RECORD_LOST
	Watermark uint64 // watermark: bytes between wakeups

	User UserPage
	data []byte // the data pages, contiguous (as with CONFIG_PERF_USE_VMALLOC)
	mask uint64

	aux auxArea // the rb->aux_* fields (aux.go)

	// Tracer, when set, receives the writer-side log the invariants observe. It is
	// not part of the kernel and changes nothing in the model.
	Tracer Tracer
	// TraceInPlace says the Tracer reads the Rec of a TraceCommit during the
	// call only, keeping none (the invariant checker hashes it): Rec is then
	// the record where it lies in the data area (a scratch copy when it
	// wraps), not a copy of its own.
	TraceInPlace bool
	// traceSlab is where copyOut carves the records it gives the Tracer from
	// (one allocation for many records).
	traceSlab []byte
	// traceScratch holds a wrapped record for a TraceInPlace Tracer.
	traceScratch []byte
}

// NewBuffer is rb_alloc() followed by ring_buffer_init(). watermark is what perf_mmap()
// passes: attr.wakeup_watermark if attr.watermark is set, else 0. flags is
// RingBufferWritable or 0 (a read-only mapping: overwrite mode).
// kernel/events/ring_buffer.c: rb_alloc()
func NewBuffer(nrPages int, watermark int64, flags int) (*Buffer, error) {
	// perf_mmap() refuses a data size that is not a power of two.
	if nrPages < 0 || nrPages&(nrPages-1) != 0 || nrPages > 1<<20 {
		return nil, uapi.EINVAL
	}
	rb := &Buffer{nrPages: nrPages}
	if nrPages > 0 {
		rb.mask = uint64(nrPages*PageSize) - 1 // the pages come at the first touch (pages())
	}
	rb.init(watermark, flags)
	return rb, nil
}

// kernel/events/ring_buffer.c: ring_buffer_init()
func (rb *Buffer) init(watermark int64, flags int) {
	maxSize := int64(rb.DataSize())
	if watermark > 0 {
		rb.Watermark = uint64(min(maxSize, watermark))
	}
	if rb.Watermark == 0 {
		rb.Watermark = uint64(maxSize / 2)
	}
	rb.overwrite = flags&RingBufferWritable == 0
	rb.refcount = 1
	// perf_output_begin() only checks rb->paused, so a buffer without data pages
	// (an AUX-only mapping) must be paused for good (86e7972f690c).
	if rb.nrPages == 0 {
		rb.paused = true
	}
	rb.User.DataOffset = PageSize
	rb.User.DataSize = rb.DataSize()
}

// DataSize is perf_data_size(rb): the size of the data area in bytes.
// kernel/events/internal.h: perf_data_size()
func (rb *Buffer) DataSize() uint64 { return uint64(rb.nrPages) * PageSize }

// TogglePaused is rb_toggle_paused(): a buffer without data pages stays paused.
// kernel/events/internal.h: rb_toggle_paused()
func (rb *Buffer) TogglePaused(pause bool) {
	rb.paused = pause || rb.nrPages == 0
}

// PauseOutput is the rb part of the PERF_EVENT_IOC_PAUSE_OUTPUT ioctl: -EINVAL without
// data pages, else rb_toggle_paused().
// kernel/events/core.c: _perf_ioctl() case PERF_EVENT_IOC_PAUSE_OUTPUT
func (rb *Buffer) PauseOutput(pause bool) error {
	if rb == nil || rb.nrPages == 0 {
		return uapi.EINVAL
	}
	rb.TogglePaused(pause)
	return nil
}

// Get takes a reference if the buffer is still alive (refcount_inc_not_zero), as
// ring_buffer_get() does after rcu_dereference(event->rb). It reports false for a nil
// or dead buffer.
// kernel/events/core.c: ring_buffer_get()
func (rb *Buffer) Get() bool {
	if rb == nil || rb.refcount <= 0 {
		return false
	}
	rb.refcount++
	return true
}

// Put drops a reference; freed reports that it was the last one (the kernel then
// call_rcu()s rb_free). Dropping a reference that is not held is a refcount underflow,
// which the kernel reports with a WARN (refcount_t saturates): an *Oops here.
// kernel/events/core.c: ring_buffer_put()
func (rb *Buffer) Put() (freed bool, err error) {
	if rb == nil {
		return false, &Oops{Func: "ring_buffer_put", What: "NULL pointer dereference"}
	}
	if rb.refcount <= 0 {
		return false, &Oops{Func: "ring_buffer_put", What: "refcount_t: underflow; use-after-free"}
	}
	rb.refcount--
	return rb.refcount == 0, nil
}

// Refcount reports rb->refcount.
func (rb *Buffer) Refcount() int32 { return rb.refcount }

// Head reports rb->head, the reservation point (ahead of data_head while writers run).
func (rb *Buffer) Head() uint64 { return rb.head }

// Nest reports rb->nest.
func (rb *Buffer) Nest() uint32 { return rb.nest }

// Lost reports rb->lost: records dropped and not yet reported by a PERF_RECORD_LOST.
func (rb *Buffer) Lost() uint64 { return rb.lost }

// WakeupStamp reports rb->wakeup.
func (rb *Buffer) WakeupStamp() uint64 { return rb.wakeup }

// Data is the data area as user space maps it (read-only use expected). It
// makes the whole area present; Bytes and CopyAt touch only what they read.
func (rb *Buffer) Data() []byte { return rb.pages() }

// pages returns the whole data area (see span).
func (rb *Buffer) pages() []byte { return rb.span(0, rb.nrPages*PageSize) }

// span returns the n bytes of the data area at offset off (off+n at most the
// data size). The area is zeroed, as the kernel's pages are, and present only
// up to the highest byte anything wrote or read so far: it grows (doubling) on
// demand, so a ring nothing writes, such as perf's BPF side-band ring, costs no
// memory and a short run writing a few records into a 512 KiB ring allocates
// and clears a few KiB, not the ring.
func (rb *Buffer) span(off, n int) []byte {
	if end := off + n; end > len(rb.data) {
		size := rb.nrPages * PageSize
		grow := min(max(end, 2*len(rb.data), 4096), size)
		if grow > cap(rb.data) {
			d := make([]byte, grow)
			copy(d, rb.data)
			rb.data = d
		} else {
			rb.data = rb.data[:grow]
		}
	}
	return rb.data[off : off+n]
}

// Bytes returns the n bytes of the data area at offset off (not wrapping:
// off+n at most DataSize), as user space reads them through its mapping.
func (rb *Buffer) Bytes(off, n int) []byte { return rb.span(off, n) }

// CopyAt copies len(dst) bytes of the data area at free-running position pos
// into dst, wrapping at the end of the area, and returns dst.
func (rb *Buffer) CopyAt(dst []byte, pos uint64) []byte {
	size := uint64(rb.nrPages * PageSize)
	if size == 0 {
		return dst
	}
	for i := 0; i < len(dst); {
		off := (pos + uint64(i)) & rb.mask
		i += copy(dst[i:], rb.span(int(off), int(min(uint64(len(dst)-i), size-off))))
	}
	return dst
}

// View returns the n bytes of the data area at free-running position pos:
// the area's own bytes where they do not wrap (read only: the kernel may
// write them again), else a copy into scratch (CopyAt, scratch grown to n).
func (rb *Buffer) View(pos uint64, n int, scratch []byte) []byte {
	size := uint64(rb.nrPages * PageSize)
	if off := pos & rb.mask; size != 0 && off+uint64(n) <= size {
		return rb.span(int(off), n)[:n:n]
	}
	if cap(scratch) < n {
		scratch = make([]byte, n)
	}
	return rb.CopyAt(scratch[:n], pos)
}

// Mask is data_size - 1, the mask readers apply to free-running positions.
func (rb *Buffer) Mask() uint64 { return rb.mask }

// NrPages reports rb->nr_pages.
func (rb *Buffer) NrPages() int { return rb.nrPages }

// Overwrite reports rb->overwrite: the mapping is read-only and data_tail is ignored.
func (rb *Buffer) Overwrite() bool { return rb.overwrite }

// Paused reports rb->paused.
func (rb *Buffer) Paused() bool { return rb.paused }
