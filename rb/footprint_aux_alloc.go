package rb

// The footprint of rb_alloc_aux() (kernel/events/ring_buffer.c), which
// perf_mmap_aux() calls from its rb_alloc_aux step with rb->aux_mutex held
// (pmu/footprint_mmap_aux.go annotates the caller and the driver's
// setup_aux): the area's page array and pages (rb->aux_pages), rb->free_aux,
// rb->aux_nr_pages, rb->aux_priv, rb->aux_overwrite, rb->aux_watermark and
// rb->aux_pgoff (the area's setup, which rb_has_aux() and the writers read:
// FieldAuxSize), and refcount_set(&rb->aux_refcount, 1); a failure's
// __rb_free_aux() writes the same fields (its driver's free_aux() is not
// called: aux_priv is NULL then). The model also writes the user page's
// aux_offset and aux_size, which perf_mmap_aux() found equal to them.

// accessAllocAux annotates rb_alloc_aux(), before the code it describes
// runs.
func (rb *Buffer) accessAllocAux() {
	const fn = "rb_alloc_aux"
	rb.acc.Annotate(rb, FieldAuxPages, OpMarkedWrite, fn)      // ring_buffer.c: rb_alloc_aux(): rb->aux_pages = kcalloc_node(...); rb->aux_pages[rb->aux_nr_pages] = page_address(page++)
	rb.acc.Annotate(rb, FieldAuxSize, OpMarkedWrite, fn)       // ring_buffer.c: rb_alloc_aux(): rb->free_aux; rb->aux_nr_pages++; rb->aux_priv = event->pmu->setup_aux(...); rb->aux_overwrite; rb->aux_watermark; rb->aux_pgoff = pgoff
	rb.acc.Annotate(rb, "rb->aux_refcount", OpMarkedWrite, fn) // ring_buffer.c: rb_alloc_aux(): refcount_set(&rb->aux_refcount, 1)
	rb.acc.Annotate(rb, FieldAuxOffset, OpMarkedWrite, fn)     // the model's user page: aux_offset, as perf_mmap_aux() found it
	rb.acc.Annotate(rb, FieldAuxLen, OpMarkedWrite, fn)        // ... and aux_size
}
