package rb_test

import (
	"fmt"
	"strings"

	"perfsim/rb"
)

// RingSpans splits a stretch of a ring at the ring's end: 10 units from
// free-running position 13 of an 8-unit ring are units 5..7 and then 0..6;
// 20 units go round more than once.
func ExampleRingSpans() {
	for _, n := range []uint64{10, 20} {
		var spans []string
		for lo, hi := range rb.RingSpans(13, n, 8) {
			spans = append(spans, fmt.Sprintf("[%d, %d)", lo, hi))
		}
		fmt.Println(strings.Join(spans, " "))
	}
	// Output:
	// [5, 8) [0, 7)
	// [5, 8) [0, 8) [0, 8) [0, 1)
}
