package rb

// The AUX trace kinds the core logs around its calls into the driver (after
// aux_output.go's). They observe; the model does not read them.
const (
	// TraceAuxCallbackEnter: the core entered pmu->stop(PERF_EF_PAUSE) (Value
	// PERF_EF_PAUSE) or pmu->start(PERF_EF_RESUME) (Value PERF_EF_RESUME) of
	// the AUX event with id Pos, on CPU Size.
	TraceAuxCallbackEnter TraceKind = 80 + iota
	// TraceAuxCallbackExit: that callback returned.
	TraceAuxCallbackExit
	// TraceAuxSampleBegin: a driver's snapshot_aux, having stopped the trace
	// (or not), begins copying the newest Size bytes of an AUX area of Value
	// bytes into a sample; the TraceAuxSample the core logs after it holds
	// what was copied.
	TraceAuxSampleBegin
)

// Trace logs e to the buffer's tracer (the invariants' log), if any.
func (rb *Buffer) Trace(e TraceEvent) {
	if rb != nil {
		rb.trace(e)
	}
}

// Tail returns the last n bytes written through the handle (the data area
// wraps), or fewer when the handle has no buffer.
func (h *Handle) Tail(n int) []byte {
	rb := h.rb
	if rb == nil || rb.nrPages == 0 || n <= 0 {
		return nil
	}
	size := rb.nrPages * PageSize
	n = min(n, size)
	start := ((h.addr-n)%size + size) % size
	return rb.CopyAt(make([]byte, n), uint64(start))
}
