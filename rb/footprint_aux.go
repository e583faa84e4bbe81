package rb

// The footprint of perf_aux_output_end() after its PERF_RECORD_AUX
// (kernel/events/ring_buffer.c): the record is written by
// perf_event_aux_event() through PerfOutputSidebandAudited (pmu's
// Event.AuxRecord), whose fragment from perf_output_put_handle:nest-zero
// returns here and runs to perf_aux_output_end:nest-zero: aux_head
// published to the user page, rb_need_aux_wakeup() (aux_head,
// aux_wakeup), the wakeup (rb->poll; the event's side annotates itself:
// pmu's Event.Wakeup; a TRUNCATED transaction's
// perf_event_disable_inatomic() is marked), handle->event cleared (the
// handle's owner: AuxHandle.Owner, the driver's per-CPU struct; a handle
// with none is marked) and aux_nest cleared.

// accessAuxEndTail annotates perf_aux_output_end() from the record to
// the nest-zero step, before the code it describes runs.
func (rb *Buffer) accessAuxEndTail(h *AuxHandle, wakeup, truncated bool) {
	const fn = "perf_aux_output_end"
	rb.acc.Annotate(rb, FieldAuxHead, OpMarkedWrite, fn)     // ring_buffer.c: perf_aux_output_end(): WRITE_ONCE(rb->user_page->aux_head, rb->aux_head)
	rb.acc.Annotate(rb, "rb->aux_head", OpMarkedRead, fn)    // ring_buffer.c: rb_need_aux_wakeup(): if (rb->aux_head - rb->aux_wakeup >= rb->aux_watermark)
	rb.acc.Annotate(rb, "rb->aux_wakeup", OpMarkedWrite, fn) // ring_buffer.c: rb_need_aux_wakeup(): rb->aux_wakeup = rounddown(rb->aux_head, rb->aux_watermark)
	if wakeup {
		if truncated {
			rb.acc.Unaudited("perf_event_disable_inatomic") // ring_buffer.c: perf_aux_output_end(): if (handle->aux_flags & PERF_AUX_FLAG_TRUNCATED) perf_event_disable_inatomic(handle->event)
		}
		rb.acc.Annotate(rb, "rb->poll", OpMarkedWrite, "perf_output_wakeup") // ring_buffer.c: perf_output_wakeup(): atomic_set(&handle->rb->poll, EPOLLIN | EPOLLRDNORM)
	}
	if h.Owner == nil {
		rb.acc.Unaudited("perf_aux_output_end (a handle with no owner)") // the driver's handle, whose owner nobody named
	} else {
		rb.acc.Annotate(h.Owner, "handle->event", OpMarkedWrite, fn) // ring_buffer.c: perf_aux_output_end(): handle->event = NULL
	}
	rb.acc.Annotate(rb, "rb->aux_nest", OpMarkedWrite, fn) // ring_buffer.c: perf_aux_output_end(): WRITE_ONCE(rb->aux_nest, 0)
}

// accessHandle annotates an access to the driver's AUX handle h (its
// owner's), or marks a handle with no owner.
func (rb *Buffer) accessHandle(h *AuxHandle, field string, op uint8, fn string) {
	if h.Owner == nil {
		rb.acc.Unaudited(fn + " (a handle with no owner)") // the driver's handle, whose owner nobody named
		return
	}
	rb.acc.Annotate(h.Owner, field, op, fn)
}

// accessAuxBegin annotates perf_aux_output_begin() up to its aux_refcount
// step: ring_buffer_get(), rb_has_aux() (the area's setup, which
// rb_alloc_aux() writes: FieldAuxSize), aux_mmap_count and
// refcount_inc_not_zero(&rb->aux_refcount); a failure's
// ring_buffer_put() is the same refcount, and handle->event = NULL the
// owner's. (The output event's event->rb read is its caller's: the driver
// passes the buffer.)
func (rb *Buffer) accessAuxBegin(h *AuxHandle) {
	const fn = "perf_aux_output_begin"
	rb.acc.Annotate(rb, "rb->refcount", OpMarkedWrite, "ring_buffer_get") // core.c: ring_buffer_get(): refcount_inc_not_zero(&rb->refcount); its put on the error path
	rb.acc.Annotate(rb, FieldAuxSize, OpMarkedRead, fn)                   // ring_buffer.c: perf_aux_output_begin(): if (!rb_has_aux(rb)) goto err
	rb.acc.Annotate(rb, "rb->aux_mmap_count", OpMarkedRead, fn)           // ring_buffer.c: perf_aux_output_begin(): if (!refcount_read(&rb->aux_mmap_count)) goto err
	rb.acc.Annotate(rb, "rb->aux_refcount", OpMarkedWrite, fn)            // ring_buffer.c: perf_aux_output_begin(): if (!refcount_inc_not_zero(&rb->aux_refcount)) goto err
	rb.accessHandle(h, "handle->event", OpMarkedWrite, fn)                // ring_buffer.c: perf_aux_output_begin(): err: handle->event = NULL
}

// accessAuxEndHead annotates perf_aux_output_end() up to its
// PERF_RECORD_AUX (or, with nothing to tell, to the tail after it,
// accessAuxEndTail): the handle's flags, the area's mode (aux_overwrite,
// set with the area: FieldAuxSize) and aux_head advanced.
func (rb *Buffer) accessAuxEndHead(h *AuxHandle) {
	const fn = "perf_aux_output_end"
	rb.accessHandle(h, "handle->aux_flags", OpMarkedWrite, fn) // ring_buffer.c: perf_aux_output_end(): handle->aux_flags |= PERF_AUX_FLAG_OVERWRITE (or &= ~)
	rb.acc.Annotate(rb, FieldAuxSize, OpMarkedRead, fn)        // ring_buffer.c: perf_aux_output_end(): if (rb->aux_overwrite)
	rb.acc.Annotate(rb, "rb->aux_head", OpMarkedWrite, fn)     // ring_buffer.c: perf_aux_output_end(): rb->aux_head = handle->head (overwrite) / rb->aux_head += size
}

// accessAuxEndPut annotates perf_aux_output_end() from its nest-zero step
// to its return: rb_free_aux() (aux_refcount; the last reference's free
// of the AUX pages marked), ring_buffer_put() (refcount; the last one's
// free marked), handle->rb cleared; the return into the driver is marked
// unless the driver annotates it (AuxHandle.CallerAudited).
func (rb *Buffer) accessAuxEndPut(h *AuxHandle) {
	const fn = "perf_aux_output_end"
	rb.acc.Annotate(rb, "rb->aux_refcount", OpMarkedWrite, "rb_free_aux") // ring_buffer.c: rb_free_aux(): if (refcount_dec_and_test(&rb->aux_refcount))
	if rb.aux.refcount <= 1 {
		rb.acc.Unaudited("__rb_free_aux") // ring_buffer.c: rb_free_aux(): the last reference: __rb_free_aux()
	}
	rb.acc.Annotate(rb, "rb->refcount", OpMarkedWrite, "ring_buffer_put") // core.c: ring_buffer_put(): if (!refcount_dec_and_test(&rb->refcount))
	if rb.refcount <= 1 {
		rb.acc.Unaudited("rb_free_rcu") // core.c: ring_buffer_put(): the last reference: call_rcu(&rb->rcu_head, rb_free_rcu)
	}
	rb.accessHandle(h, "handle->rb", OpMarkedWrite, fn) // ring_buffer.c: perf_aux_output_end(): handle->rb = NULL
	if !h.CallerAudited {
		rb.acc.Unaudited("perf_aux_output_end's caller") // the driver's code after it, nobody annotated
	}
}

// accessAuxBeginRest annotates perf_aux_output_begin() from its
// aux_refcount step to its return: aux_nest, the handle's fields, the
// area's mode and watermark (set with the area: FieldAuxSize), aux_tail
// from the user page, aux_wakeup, and when there is no room the wakeup
// (rb->poll; the event's side annotates itself; perf_event_disable_inatomic()
// marked) and the references dropped; rb->aux_priv returned. The return
// into the driver is marked unless the driver annotates it
// (AuxHandle.CallerAudited).
func (rb *Buffer) accessAuxBeginRest(h *AuxHandle) {
	const fn = "perf_aux_output_begin"
	rb.acc.Annotate(rb, "rb->aux_nest", OpMarkedWrite, fn) // ring_buffer.c: perf_aux_output_begin(): nest = READ_ONCE(rb->aux_nest); WRITE_ONCE(rb->aux_nest, nest + 1)
	for _, f := range []string{"handle->rb", "handle->event", "handle->aux_flags", "handle->head"} {
		rb.accessHandle(h, f, OpMarkedWrite, fn) // ring_buffer.c: perf_aux_output_begin(): handle->rb = rb; handle->event = event; handle->head = aux_head; handle->size = 0; handle->aux_flags = 0; handle->wakeup
	}
	rb.acc.Annotate(rb, FieldAuxSize, OpMarkedRead, fn) // ring_buffer.c: perf_aux_output_begin(): if (!rb->aux_overwrite); rb->aux_watermark; perf_aux_size(rb); return rb->aux_priv
	full := false
	if !rb.aux.overwrite {
		rb.acc.Annotate(rb, "rb->aux_head", OpMarkedRead, fn)   // ring_buffer.c: perf_aux_output_begin(): aux_head = rb->aux_head
		rb.acc.Annotate(rb, FieldAuxTail, OpMarkedRead, fn)     // ring_buffer.c: perf_aux_output_begin(): aux_tail = READ_ONCE(rb->user_page->aux_tail)
		rb.acc.Annotate(rb, "rb->aux_wakeup", OpMarkedRead, fn) // ring_buffer.c: perf_aux_output_begin(): handle->wakeup = rb->aux_wakeup + rb->aux_watermark
		full = rb.auxRoom() == 0
	}
	if rb.aux.nest == 0 && full {
		rb.acc.Unaudited("perf_event_disable_inatomic")                      // ring_buffer.c: perf_aux_output_begin(): if (!handle->size) { perf_event_disable_inatomic(handle->event); ...
		rb.acc.Annotate(rb, "rb->poll", OpMarkedWrite, "perf_output_wakeup") // ring_buffer.c: perf_output_wakeup(handle)
	}
	if rb.aux.nest != 0 || full {
		rb.acc.Annotate(rb, "rb->aux_refcount", OpMarkedWrite, "rb_free_aux") // ring_buffer.c: perf_aux_output_begin(): err_put: rb_free_aux(rb) ("can't be last")
		rb.acc.Annotate(rb, "rb->refcount", OpMarkedWrite, "ring_buffer_put") // ring_buffer.c: perf_aux_output_begin(): err: ring_buffer_put(rb)
	}
	rb.accessAuxBeginReturn(h)
}

// accessAuxBeginReturn marks perf_aux_output_begin()'s return into a
// driver that does not annotate its code after it.
func (rb *Buffer) accessAuxBeginReturn(h *AuxHandle) {
	if !h.CallerAudited {
		rb.acc.Unaudited("perf_aux_output_begin's caller") // the driver's code after it, nobody annotated
	}
}
