package rb

// Footprints: rb never imports the CPU model, so it annotates the accesses
// its code makes through the Accessor its owner gave the buffer (pmu's
// annotates them on the running CPU: cpu.CPU.AccessMarkedOnly). The kinds
// are numbered as cpu.AccessOp numbers them (pmu's tests check they agree),
// and only marked ones exist: every field rb annotates is touched with
// READ_ONCE()/WRITE_ONCE()/local_*() in ring_buffer.c, so KCSAN, and the
// data-race oracle, could report no race on them (explore's
// TestRingBufferFootprintsMarked checks nothing annotates them plainly).
// The one exception is rb->data_pages, the records' bytes: __output_copy()
// writes them with memcpy(), but only into the span this writer reserved
// (no other kernel writer touches it) and for a reader in user space, which
// KCSAN does not see; it is annotated as a marked write, so that a writer
// and a reader of the same buffer conflict. Where the writer returns into
// code rb does not annotate (its caller), it says so (Accessor.Unaudited).
// pmu/footprint_output.go declares the output path complete from its step
// points; TestOutputFootprints pins what each fragment annotates.

// Accessor hears the footprints of a buffer's code.
type Accessor interface {
	// Annotate: the running code touches field of obj (op as cpu.AccessOp
	// numbers it) in the kernel function fn.
	Annotate(obj any, field string, op uint8, fn string)
	// Footprinting reports whether anybody hears them now (asked once per
	// writer's entry, so that nobody listening costs a check there).
	Footprinting() bool
	// Unaudited: the running code goes on into code whose accesses rb does
	// not annotate, fn (the caller it returns into, a callback it calls):
	// the fragment running counts as touching everything (cpu.CPU.Unaudited).
	Unaudited(fn string)
}

// The access kinds rb annotates, numbered as cpu.AccessOp numbers them.
const (
	OpMarkedRead  uint8 = 2 // READ_ONCE(), local_read()
	OpMarkedWrite uint8 = 3 // WRITE_ONCE(), local_set(), local_cmpxchg(), local_add()
	OpAtomicAdd   uint8 = 7 // local_inc(), whose result the code does not use: commutes with another
)

// SetAccessor makes a hear the footprints of b's code (nil: nobody).
func (b *Buffer) SetAccessor(a Accessor) { b.acc = a }

// footprinting reports whether anybody hears b's code's footprints now.
func (b *Buffer) footprinting() bool { return b.acc != nil && b.acc.Footprinting() }

// unaudited tells b's Accessor, when on, that the running code goes on into
// fn, which rb does not annotate.
func (b *Buffer) unaudited(on bool, fn string) {
	if on {
		b.acc.Unaudited(fn)
	}
}

// access annotates an access by b's code when on (footprinting's answer).
func (b *Buffer) access(on bool, obj any, field string, op uint8, fn string) {
	if on {
		b.acc.Annotate(obj, field, op, fn)
	}
}
