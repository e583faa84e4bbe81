package sim

import (
	"fmt"
	"math"
)

// Time is virtual time in nanoseconds since the start of the run.
type Time int64

// Duration is a span of virtual time in nanoseconds.
type Duration = Time

// Never is later than any event.
const Never Time = math.MaxInt64

// Units of virtual time.
const (
	Nanosecond  Duration = 1
	Microsecond          = 1000 * Nanosecond
	Millisecond          = 1000 * Microsecond
	Second               = 1000 * Millisecond
)

// String formats t in the largest unit that shows it exactly, like the scenario
// language writes durations (5us, 1.5ms).
func (t Time) String() string {
	switch {
	case t == Never:
		return "never"
	case t < 0:
		return "-" + (-t).String()
	case t == 0:
		return "0"
	}
	for _, u := range []struct {
		d    Duration
		name string
	}{{Second, "s"}, {Millisecond, "ms"}, {Microsecond, "us"}} {
		if t >= u.d {
			if t%u.d == 0 {
				return fmt.Sprintf("%d%s", t/u.d, u.name)
			}
			return fmt.Sprintf("%g%s", float64(t)/float64(u.d), u.name)
		}
	}
	return fmt.Sprintf("%dns", int64(t))
}

// Stamp formats t as a fixed-width seconds.nanoseconds stamp, as perf script does.
func (t Time) Stamp() string {
	return fmt.Sprintf("%d.%09d", int64(t)/int64(Second), int64(t)%int64(Second))
}
