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
