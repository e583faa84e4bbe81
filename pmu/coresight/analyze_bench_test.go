package coresight

import "testing"

// BenchmarkAnalyzeDescribed is the cost of analysing one snapshot of seed
// 004's shape from the AUX areas' descriptions: dd's 10 ms periods at
// 300 MiB/s on four CPUs behind the ETR, each CPU's 4 MiB AUX area read
// whole (ns/op, B/op and allocs/op are per snapshot, a fresh Analyzer
// each, as each schedule of an exploration has).
func BenchmarkAnalyzeDescribed(b *testing.B) {
	d, chunks := describedSnapshot(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := d.NewAnalyzer().Analyze(chunks)
		if r.Frames == 0 {
			b.Fatalf("nothing decoded: %v", r)
		}
	}
}
