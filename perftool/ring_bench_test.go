package perftool

import (
	"testing"

	"perfsim/rb"
	"perfsim/uapi"
)

// BenchmarkOverwriteReader: one perf --overwrite read pass (find_range, read_event
// per record, read_done) over a full backward 1-page buffer of 120-byte samples.
func BenchmarkOverwriteReader(b *testing.B) {
	buf := mustBuffer(1, 0, 0)
	ev := &rb.SimpleEvent{}
	s := benchSample()
	for i := 0; i < 100; i++ {
		_ = rb.PerfEventOutput(rb.NoSteps{}, buf, ev, s, true)
	}
	m, _ := NewMmap(buf, true)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		m.Prev = 0
		if err := m.ReadInit(rb.NoSteps{}); err != nil {
			b.Fatal(err)
		}
		for m.ReadEvent(rb.NoSteps{}) != nil {
			n++
		}
		m.ReadDone(rb.NoSteps{})
	}
	b.ReportMetric(float64(n)/float64(b.N), "records/pass")
}

// benchSample is 120 bytes: header 8, ip, tid, time, id, cpu, period (48) and a
// callchain of 7 (64).
func benchSample() *rb.Sample {
	return &rb.Sample{Type: uapi.PERF_SAMPLE_IP | uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_ID | uapi.PERF_SAMPLE_CPU |
		uapi.PERF_SAMPLE_PERIOD | uapi.PERF_SAMPLE_CALLCHAIN, IP: 0xffffffff81000000, Pid: 1, Tid: 2, Time: 3, ID: 4, CPU: 1,
		Period: 1, Callchain: []uint64{1, 2, 3, 4, 5, 6, 7}}
}
