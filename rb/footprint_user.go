package rb

// The user-space side of a buffer's footprints: the perf tool's reader
// (perftool's Mmap) reads data_head and the data pages and writes
// data_tail, which the kernel's output code writes and reads; its AUX
// reader reads aux_head and the AUX area and writes aux_tail. rb's own
// code annotates the kernel's side (footprint.go); UserAccess lets the
// reader annotate its side on the same object, with the same field names.

// The fields of a buffer user space touches, as the annotations name them.
const (
	FieldDataHead  = "user_page->data_head"  // perf_output_put_handle() stores it; the reader loads it
	FieldDataTail  = "user_page->data_tail"  // the reader stores it; __perf_output_begin() loads it
	FieldDataPages = "rb->data_pages"        // the records: the output copies them in, the reader out
	FieldAuxHead   = "user_page->aux_head"   // perf_aux_output_end() stores it; the AUX reader loads it
	FieldAuxTail   = "user_page->aux_tail"   // the AUX reader stores it; perf_aux_output_begin() loads it
	FieldAuxPages  = "rb->aux_pages"         // the AUX area's bytes: the driver writes them, the reader copies them out
	FieldAuxSize   = "rb->aux_nr_pages"      // the AUX area's size: rb_alloc_aux() sets it, rb_free_aux() clears it
	FieldAuxOffset = "user_page->aux_offset" // where perf maps the AUX area: perf writes it, perf_mmap() reads it
	FieldAuxLen    = "user_page->aux_size"   // ... and its length
)

// UserAccess annotates an access by the user-space reader of b (op as
// cpu.AccessOp numbers it, OpMarkedRead or OpMarkedWrite: KCSAN does not
// see user space, and the tool reads with READ_ONCE()/smp_load_acquire()
// and writes with smp_store_release()) on the running CPU, when anybody
// listens. fn is the tool's function.
func (b *Buffer) UserAccess(field string, op uint8, fn string) {
	b.access(b.footprinting(), b, field, op, fn)
}

// SetUserAux is the tool's store of the AUX area it is about to map into
// b's user page, annotated: aux_offset and aux_size, which perf_mmap()
// reads. fn is the tool's function.
// tools/perf/util/auxtrace.c: auxtrace_mmap__mmap(): pc->aux_offset = mp->offset; pc->aux_size = mp->len
func (b *Buffer) SetUserAux(offset, size uint64, fn string) {
	b.UserAccess(FieldAuxOffset, OpMarkedWrite, fn)
	b.UserAccess(FieldAuxLen, OpMarkedWrite, fn)
	b.User.AuxOffset, b.User.AuxSize = offset, size
}
