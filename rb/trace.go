package rb

// TraceKind says what a TraceEvent records.
type TraceKind uint8

// The trace kinds: the writer-side log and the reader's observations that the
// invariants (invariants.go) check. None of them changes the model.
const (
	// TraceReserve: a writer moved rb->head; the reservation is [Pos, Pos+Size).
	TraceReserve TraceKind = iota + 1
	// TraceCommit: a record at [Pos, Pos+Size) is completely written (Rec holds its
	// bytes); perf_output_end() is about to publish it.
	TraceCommit
	// TraceLost: an output was dropped; Counted says whether rb->lost and
	// event->lost_samples were incremented.
	TraceLost
	// TraceDataHead: the kernel stored Value into user_page->data_head.
	TraceDataHead
	// TraceReadHead: a reader loaded data_head (Value).
	TraceReadHead
	// TraceRead: a reader returned the record Rec, read at position Pos.
	TraceRead
	// TraceReadPass: a reader started a new pass (perf_mmap__read_init).
	TraceReadPass
	// TraceMisfit: the writer of the record reserved at Pos wrote Value bytes
	// for a reservation of Size (a PERF_SAMPLE_READ group read that did not
	// match the event's cached read_size).
	TraceMisfit
)

// TraceEvent is one entry of the log.
type TraceEvent struct {
	Kind     TraceKind
	Pos      uint64
	Size     int
	Value    uint64
	Counted  bool
	Backward bool
	Rec      []byte
}

// Tracer receives trace events; the slices in them are copies the tracer may keep.
type Tracer func(TraceEvent)
