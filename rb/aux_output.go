package rb

import "perfsim/uapi"

// AuxEvent is the part of struct perf_event the AUX output path touches besides
// Event: the in-atomic disable of a full buffer and the PERF_RECORD_AUX that
// perf_aux_output_end() posts (perf_event_aux_event() lives in core.c, which knows
// the sample_id data).
type AuxEvent interface {
	Event
	// DisableInatomic is perf_event_disable_inatomic(handle->event).
	DisableInatomic()
	// AuxRecord is perf_event_aux_event(event, head, size, flags): write
	// PERF_RECORD_AUX {head, size, flags} into the event's data ring.
	AuxRecord(s Stepper, head, size, flags uint64)
}

// AuxHandle is struct perf_output_handle as an AUX writer uses it.
type AuxHandle struct {
	rb       *Buffer
	Event    AuxEvent // handle->event: nil when no AUX transaction is open
	Head     uint64   // handle->head: aux_head at begin (the driver moves it in overwrite mode)
	Size     uint64   // handle->size: room left (0 in overwrite mode)
	AuxFlags uint64   // handle->aux_flags
	Wakeup   uint64   // handle->wakeup: aux_wakeup + aux_watermark
	// Owner is the driver's struct that holds the handle (pt's per-CPU
	// struct pt), by its stable key: the object the footprints of the
	// handle's writes name (footprint_aux.go). nil: nobody named it.
	Owner any
	// CallerAudited: the driver annotates its own code after
	// perf_aux_output_end() returns, to its next step point (or marks it);
	// else the return is marked unaudited (footprint_aux.go).
	CallerAudited bool
}

// Buffer is handle->rb.
func (h *AuxHandle) Buffer() *Buffer { return h.rb }

// The AUX trace kinds (after the data ring's in trace.go).
const (
	// TraceAuxWrite: the hardware stored Size bytes (Rec) at AUX position Pos.
	TraceAuxWrite TraceKind = 64 + iota
	// TraceAuxCommit: perf_aux_output_end() committed [Pos, Pos+Size) with flags
	// Value (Counted: a PERF_RECORD_AUX was posted).
	TraceAuxCommit
	// TraceAuxRefcount: aux_refcount changed to int64(Value).
	TraceAuxRefcount
	// TraceAuxFree: the AUX pages were freed; Counted: from atomic context.
	TraceAuxFree
	// TraceAuxSample: an AUX sample copied Size bytes (Rec) ending at AUX position Pos.
	TraceAuxSample
)

// AuxOutputBegin opens an AUX transaction on rb (output_event->rb) for ev:
// ring_buffer_get, the aux_mmap_count and aux_refcount checks (in that order, so
// this path never frees the pages), the aux_nest WARN, the room in the area unless
// in overwrite mode. It returns rb->aux_priv, or nil: h.Event is then nil (left
// as it was when there is no buffer) and, when the area is full, the event is
// disabled and woken.
// kernel/events/ring_buffer.c: perf_aux_output_begin()
func AuxOutputBegin(s Stepper, h *AuxHandle, rb *Buffer, ev AuxEvent) any {
	if rb != nil && rb.footprinting() {
		rb.accessAuxBegin(h) // footprint_aux.go: up to the aux_refcount step
	}
	if !rb.Get() { // ring_buffer_get(output_event): "if (!rb) return NULL;"
		return nil
	}
	if !rb.HasAux() {
		rb.Put() //nolint: the reference just taken
		h.Event = nil
		return nil
	}
	// "If aux_mmap_count is zero, the aux buffer is in perf_mmap_close(),
	// about to get freed, so we leave immediately."
	if rb.aux.mmapCount == 0 && !rb.Knobs.OldAuxFree {
		rb.Put()
		h.Event = nil
		return nil
	}
	if rb.aux.refcount <= 0 { // refcount_inc_not_zero(&rb->aux_refcount)
		rb.Put()
		h.Event = nil
		return nil
	}
	rb.aux.refcount++
	rb.trace(TraceEvent{Kind: TraceAuxRefcount, Value: uint64(rb.aux.refcount)})
	StepAt(s, "perf_aux_output_begin:aux_refcount")
	if rb.footprinting() {
		rb.accessAuxBeginRest(h) // footprint_aux.go: to the return
	}
	nest := rb.aux.nest
	// "Nesting is not supported for AUX area, make sure nested writers are
	// caught early" (WARN_ON_ONCE).
	if nest != 0 {
		rb.FreeAux(true) //nolint: can't be last
		rb.Put()
		h.Event = nil
		return nil
	}
	rb.aux.nest = nest + 1
	h.rb = rb
	h.Event = ev
	h.Head = rb.aux.head
	h.Size = 0
	h.AuxFlags = 0
	if !rb.aux.overwrite {
		h.Wakeup = rb.aux.wakeup + rb.aux.watermark
		h.Size = rb.auxRoom()
		if h.Size == 0 {
			ev.DisableInatomic()
			ev.Wakeup() // perf_output_wakeup(handle)
			rb.Poll = pollIn
			rb.aux.nest = 0
			rb.FreeAux(true) //nolint: can't be last
			rb.Put()
			h.Event = nil
			return nil
		}
	}
	rb.trace(TraceEvent{Kind: TraceAuxBegin, Pos: h.Head}) // aux-write-in-transaction (aux_txn.go)
	return rb.aux.priv
}

// needAuxWakeup is rbNeedAuxWakeup's answer, without its update.
func (rb *Buffer) needAuxWakeup() bool {
	return !rb.aux.overwrite && rb.aux.head-rb.aux.wakeup >= rb.aux.watermark
}

// rbNeedAuxWakeup reports that aux_head crossed an aux_watermark boundary.
// kernel/events/ring_buffer.c: rb_need_aux_wakeup()
func (rb *Buffer) rbNeedAuxWakeup() bool {
	if rb.aux.overwrite {
		return false
	}
	if rb.aux.head-rb.aux.wakeup >= rb.aux.watermark {
		rb.aux.wakeup = rb.aux.head - rb.aux.head%rb.aux.watermark // rounddown()
		return true
	}
	return false
}

// auxRoom is the room perf_aux_output_begin() finds in a (not overwrite)
// area now: CIRC_SPACE(aux_head, aux_tail, size), 0 when full.
// kernel/events/ring_buffer.c: perf_aux_output_begin()
func (rb *Buffer) auxRoom() uint64 {
	tail := rb.User.AuxTail // READ_ONCE(rb->user_page->aux_tail)
	size := rb.AuxSize()
	if rb.aux.head-tail >= size {
		return 0
	}
	return (tail - (rb.aux.head + 1)) & (size - 1) // CIRC_SPACE(aux_head, aux_tail, size)
}

// AuxOutputEnd commits size bytes (or, in overwrite mode, moves aux_head to
// h.Head), posts PERF_RECORD_AUX when there is something to tell (a size, or a
// flag other than OVERWRITE), publishes aux_head, wakes (and, when TRUNCATED,
// disables) the event, and drops the transaction's references.
// kernel/events/ring_buffer.c: perf_aux_output_end()
func AuxOutputEnd(s Stepper, h *AuxHandle, size uint64) error {
	rb := h.rb
	if rb == nil || h.Event == nil {
		return &Oops{Func: "perf_aux_output_end", What: "no AUX transaction open (handle->rb is NULL)"}
	}
	if rb.footprinting() {
		rb.accessAuxEndHead(h) // footprint_aux.go: up to the record (or the nest-zero step)
	}
	wakeup := h.AuxFlags&uapi.PERF_AUX_FLAG_TRUNCATED != 0
	var auxHead uint64
	if rb.aux.overwrite {
		h.AuxFlags |= uapi.PERF_AUX_FLAG_OVERWRITE
		auxHead = h.Head
		rb.aux.head = auxHead
	} else {
		h.AuxFlags &^= uapi.PERF_AUX_FLAG_OVERWRITE
		auxHead = rb.aux.head
		rb.aux.head += size
	}
	posted := size != 0 || h.AuxFlags&^uint64(uapi.PERF_AUX_FLAG_OVERWRITE) != 0
	rb.trace(TraceEvent{Kind: TraceAuxCommit, Pos: auxHead, Size: int(size), Value: h.AuxFlags, Counted: posted,
		Backward: rb.aux.overwrite})
	if posted {
		h.Event.AuxRecord(s, auxHead, size, h.AuxFlags)
	}
	if rb.footprinting() {
		// what follows the record, up to nest-zero (footprint_aux.go)
		rb.accessAuxEndTail(h, wakeup || rb.needAuxWakeup(), h.AuxFlags&uapi.PERF_AUX_FLAG_TRUNCATED != 0)
	}
	rb.User.AuxHead = rb.aux.head // WRITE_ONCE(rb->user_page->aux_head, rb->aux_head)
	if rb.rbNeedAuxWakeup() {
		wakeup = true
	}
	if wakeup {
		if h.AuxFlags&uapi.PERF_AUX_FLAG_TRUNCATED != 0 {
			h.Event.DisableInatomic()
		}
		rb.Poll = pollIn
		h.Event.Wakeup()
	}
	h.Event = nil
	rb.aux.nest = 0
	StepAt(s, "perf_aux_output_end:nest-zero")
	if rb.footprinting() {
		rb.accessAuxEndPut(h) // footprint_aux.go: to the return
	}
	err := rb.FreeAux(true) // "can't be last"
	if _, perr := rb.Put(); err == nil {
		err = perr
	}
	h.rb = nil
	return err
}

// AuxOutputSkip skips size bytes of the area (hardware alignment): -ENOSPC when
// there is not that much room.
// kernel/events/ring_buffer.c: perf_aux_output_skip()
func AuxOutputSkip(h *AuxHandle, size uint64) error {
	rb := h.rb
	if rb == nil {
		return uapi.EINVAL
	}
	if size > h.Size {
		return uapi.ENOSPC
	}
	rb.aux.head += size
	rb.User.AuxHead = rb.aux.head
	if rb.rbNeedAuxWakeup() {
		rb.Poll = pollIn
		h.Event.Wakeup()
		h.Wakeup = rb.aux.wakeup + rb.aux.watermark
	}
	h.Head = rb.aux.head
	h.Size -= size
	return nil
}

// AuxOutputFlag ors flags into the handle; OVERWRITE is refused (the kernel
// WARNs: perf_aux_output_end() decides it) and AuxOutputFlag reports false.
// kernel/events/ring_buffer.c: perf_aux_output_flag()
func AuxOutputFlag(h *AuxHandle, flags uint64) bool {
	if flags&uapi.PERF_AUX_FLAG_OVERWRITE != 0 {
		return false
	}
	h.AuxFlags |= flags
	return true
}

// GetAux is perf_get_aux(): rb->aux_priv while a transaction is open, else nil.
// kernel/events/ring_buffer.c: perf_get_aux()
func GetAux(h *AuxHandle) any {
	if h.Event == nil || h.rb == nil {
		return nil
	}
	return h.rb.aux.priv
}

// OutputCopyAux copies the AUX bytes [from, to) (positions masked to the area)
// through the data-ring handle dst, page by page, and returns how many it
// copied. When from == to the whole area is copied (the kernel's do-while).
// kernel/events/ring_buffer.c: perf_output_copy_aux()
func OutputCopyAux(s Stepper, aux *AuxHandle, dst *Handle, from, to uint64) (int, error) {
	rb := aux.rb
	if rb == nil || rb.aux.nrPages == 0 {
		return 0, uapi.EFAULT
	}
	if rb.aux.pages == nil {
		rb.auxMaterialize()
	}
	size := rb.AuxSize()
	mask := size - 1
	from &= mask
	to &= mask
	n := (to - from) & mask
	if n == 0 {
		n = size // "do { ... } while (to != from)"
	}
	return CopyAuxPages(s, dst, from, n, func(k, m uint64) []byte {
		p := (from + k) & mask // a piece never crosses the area's end, nor a page's
		if rb.aux.pages != nil {
			return rb.aux.pageBytes(p, m)
		}
		return rb.aux.data[p : p+m]
	})
}

// CopyAuxPages is perf_output_copy_aux()'s loop: n bytes starting at AUX
// position from go through dst a piece at a time, no piece crossing a page
// boundary of the area, with the step point perf_output_copy_aux:page after
// each. src(k, m) gives the m bytes at offset k of the copy (what the area
// held when the memcpy read them). It returns the bytes copied, and -EFAULT
// when dst had no room for a piece (the pieces before it stay copied).
// kernel/events/ring_buffer.c: perf_output_copy_aux()
func CopyAuxPages(s Stepper, dst *Handle, from, n uint64, src func(k, m uint64) []byte) (int, error) {
	done := uint64(0)
	for done < n {
		tocopy := min(PageSize-(from+done)%PageSize, n-done) // "PAGE_SIZE - offset_in_page(from)", "min(tocopy, to - from)"
		if OutputCopy(dst, src(done, tocopy)) != 0 {
			return int(done), uapi.EFAULT
		}
		done += tocopy
		StepAt(s, "perf_output_copy_aux:page")
	}
	return int(done), nil
}

// auxStepPoints are the step labels of the AUX paths (see StepPoints).
var auxStepPoints = []string{
	"perf_aux_output_begin:aux_refcount",
	"perf_aux_output_end:nest-zero",
	"perf_output_copy_aux:page",
}

func init() { StepPoints = append(StepPoints, auxStepPoints...) }
