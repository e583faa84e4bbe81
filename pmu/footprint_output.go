package pmu

import "perfsim/cpu"

// The footprint of the ring buffer's output path (kernel/events/ring_buffer.c,
// rb/output.go, rb/record_sample.go), declared complete (cpu.DeclareComplete)
// from each of its step points: rb annotates every access its writer makes to
// the buffer (through rbAccessor: rb->nest, rb->head, rb->wakeup, rb->lost,
// rb->events, rb->poll, user_page->data_head and data_tail, the data pages
// it copies a record into), and the event side here (event->lost_samples,
// perf_output_wakeup()'s pending state). From each step point the writer
// reaches its next one inside rb, or returns into its caller with none
// between, which rb marks unaudited (rb.Accessor.Unaudited): the
// perf_output_end() that publishes the record (nest-zero's fragment, or a
// nested writer's whose put_handle only decrements rb->nest), the
// __perf_output_begin() that found no room, and a PMU's snapshot_aux() copy
// of a PERF_SAMPLE_AUX part (perf_aux_sample_output()). The record's fields
// come from perf_prepare_sample(), before perf_output_begin(): no fragment
// here reads the event, the task or the regs. A successful begin returns
// into rb's own callers (rb.PerfEventOutput, rb.PerfOutputSideband), whose
// code up to the next step point is annotated. The old put_handle
// (rb-put-handle=pre-1b038c6e05ff) is annotated too, its nest-dec step
// point with it. The write audit (explore's TestWriteAuditOutput) checks
// their writes.
func init() {
	cpu.DeclareComplete(
		"perf_output_get_handle:nest-inc",         // -> the space check, __perf_output_begin:cmpxchg; or the lost record and put_handle
		"__perf_output_begin:cmpxchg",             // -> rb->head reserved, rb->wakeup: __perf_output_begin:reserved; or a retry
		"__perf_output_begin:reserved",            // -> the PERF_RECORD_LOST; or the caller's record, up to its header or put_handle
		"__perf_output_begin:lost-written",        // -> the caller's record, up to its header or put_handle
		"perf_output_sample:header",               // -> the fields, PERF_SAMPLE_AUX, wakeup_events, put_handle
		"perf_output_put_handle:head-read",        // -> data_head stored (today); rb->nest dropped (the old one)
		"perf_output_put_handle:nest-dec",         // -> data_head stored (the old one)
		"perf_output_put_handle:data-head-stored", // -> rb->nest cleared (today); the recheck (the old one)
		"perf_output_put_handle:nest-zero",        // -> the recheck, the wakeup, back into the caller (marked)
	)
}

// annotateOutputWakeup annotates the event side of perf_output_wakeup(),
// rb.Event.Wakeup: the event's pending state, which its irq_work handler
// (perf_pending_irq()) and the fasync fcntl() of another CPU read and
// write. Plain accesses in the kernel, heard by the footprint listeners
// only, as the model's data-race oracle never heard them.
func (e *Event) annotateOutputWakeup() {
	c := e.k.curCPU()
	fe := e
	if e.parent != nil {
		fe = e.parent
	}
	c.AccessMarkedOnly(fe, "event->fasync", cpu.PlainRead, "perf_output_wakeup")         // ring_buffer.c: perf_output_wakeup(): if (*perf_event_fasync(handle->event) && ...)
	c.AccessMarkedOnly(e, "event->pending_kill", cpu.PlainWrite, "perf_output_wakeup")   // ring_buffer.c: perf_output_wakeup(): ... && !handle->event->pending_kill) handle->event->pending_kill = POLL_IN
	c.AccessMarkedOnly(e, "event->pending_wakeup", cpu.PlainWrite, "perf_output_wakeup") // ring_buffer.c: perf_output_wakeup(): handle->event->pending_wakeup = 1
	c.AccessMarkedOnly(e, "event->pending_irq", cpu.MarkedWrite, "irq_work_queue")       // kernel/irq_work.c: irq_work_queue(): irq_work_claim(&event->pending_irq)
}
