package rb

// Event is the part of struct perf_event that ring_buffer.c touches. The pmu package
// implements it; SimpleEvent is a self-contained implementation for tests and tools.
// For an inherited event the caller passes the parent (output goes to event->parent).
type Event interface {
	// ID is event->id, written into PERF_RECORD_LOST.
	ID() uint64
	// SampleType is attr.sample_type; with SampleIDAll it decides the sample_id
	// trailer and so event->id_header_size (see IDHeaderSize).
	SampleType() uint64
	// SampleIDAll is attr.sample_id_all.
	SampleIDAll() bool
	// WakeupEvents is attr.wakeup_events, or 0 when attr.watermark is set
	// (perf_output_sample() counts rb->events only then).
	WakeupEvents() int
	// LostSamplesInc is atomic64_inc(&event->lost_samples).
	LostSamplesInc()
	// Wakeup is the event side of perf_output_wakeup(): pending_wakeup = 1,
	// pending_kill = POLL_IN if fasync, irq_work_queue(&event->pending_irq).
	Wakeup()
}

// SimpleEvent is an Event with plain fields and counters.
type SimpleEvent struct {
	EventID     uint64
	Type        uint64 // attr.sample_type
	IDAll       bool   // attr.sample_id_all
	WakeupEvts  int    // attr.wakeup_events (0 when attr.watermark)
	LostSamples uint64 // event->lost_samples
	Wakeups     int    // how many times perf_output_wakeup() ran
}

// ID implements Event.
func (e *SimpleEvent) ID() uint64 { return e.EventID }

// SampleType implements Event.
func (e *SimpleEvent) SampleType() uint64 { return e.Type }

// SampleIDAll implements Event.
func (e *SimpleEvent) SampleIDAll() bool { return e.IDAll }

// WakeupEvents implements Event.
func (e *SimpleEvent) WakeupEvents() int { return e.WakeupEvts }

// LostSamplesInc implements Event.
func (e *SimpleEvent) LostSamplesInc() { e.LostSamples++ }

// Wakeup implements Event.
func (e *SimpleEvent) Wakeup() { e.Wakeups++ }
