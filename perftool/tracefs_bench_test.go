package perftool

import "testing"

// BenchmarkReadTracefs is what loading the package costs for the catalogue:
// every embedded format file parsed.
func BenchmarkReadTracefs(b *testing.B) {
	for b.Loop() {
		if n := len(mustReadTracefs(tracefsFS, "testdata/tracefs")); n < 722 {
			b.Fatalf("%d entries", n)
		}
	}
}
