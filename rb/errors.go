package rb

import (
	"errors"
	"fmt"
)

// Errno is a kernel error number as a Go error, so a caller can compare against the
// value the C function returns (-ENOSPC, -EINVAL).
type Errno int

// The kernel error numbers rb returns.
const (
	ENOSPC Errno = 28
	EINVAL Errno = 22
	EAGAIN Errno = 11
	ENOENT Errno = 2
)

func (e Errno) Error() string {
	switch e {
	case ENOSPC:
		return "ENOSPC"
	case EINVAL:
		return "EINVAL"
	case EAGAIN:
		return "EAGAIN"
	case ENOENT:
		return "ENOENT"
	}
	return fmt.Sprintf("errno %d", int(e))
}

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
