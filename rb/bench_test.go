package rb

import (
	"testing"

	"perfsim/uapi"
)

// benchSample is 120 bytes: header 8, ip, tid, time, id, cpu, period (48) and a
// callchain of 7 (64).
func benchSample() *Sample {
	return &Sample{Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_CPU |
		uapi.PERF_SAMPLE_PERIOD | uapi.PERF_SAMPLE_CALLCHAIN, IP: 0xffffffff81000000, Pid: 1, Tid: 2, Time: 3, ID: 4, CPU: 1,
		Period: 1, Callchain: []uint64{1, 2, 3, 4, 5, 6, 7}}
}

// BenchmarkForwardOutput: __perf_event_output of 120-byte samples into an overwrite
// (never full) 64-page forward buffer, no interruptions.
func BenchmarkForwardOutput(b *testing.B) {
	rb := mustBuffer(64, 0, 0)
	ev := &SimpleEvent{}
	s := benchSample()
	if n, _ := SampleSize(s); n != 120 {
		b.Fatalf("sample is %d bytes", n)
	}
	b.SetBytes(120)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := PerfEventOutput(NoSteps{}, rb, ev, s, false); err != nil {
			b.Fatal(err)
		}
	}
}
