package rb

import (
	"errors"
)

// Oops is a model-level kernel crash or WARN (a refcount going below zero, a use
// after free). It is returned as an error, never raised as a Go panic, so the
// simulator can report it with the schedule that led to it.
type Oops struct {
	Func string // the C function that would have crashed or warned
	What string
}

func (o *Oops) Error() string { return "oops: " + o.Func + ": " + o.What }

// ErrRecordTooBig is returned when a record would not fit perf_event_header.size (u16).
var ErrRecordTooBig = errors.New("record larger than 65535 bytes (perf_event_header.size is u16)")

// errReadMisfit: AppendSample of a sample whose PERF_SAMPLE_READ part does not
// fit what its record reserved (only OutputSample can write such a record).
var errReadMisfit = errors.New("PERF_SAMPLE_READ part does not fit its reservation (Sample.ReadReserved)")
