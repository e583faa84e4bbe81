package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
)

// TestCmpxchgRetry: an NMI writer between the read of rb->head and the cmpxchg makes
// the task's cmpxchg fail; the task retries and reserves after the NMI's record.
func TestCmpxchgRetry(t *testing.T) {
	buf := mustBuffer(1, 0, rb.RingBufferWritable)
	l := &logger{}
	buf.Tracer = l.trace
	nmiSample, taskSample := seqSample(100, 0), seqSample(1, 1)
	in := &interrupter{fireAt: "__perf_output_begin:cmpxchg", fireOcc: 1, pending: []func(rb.Stepper){
		func(s rb.Stepper) { _ = rb.PerfEventOutput(s, buf, &rb.SimpleEvent{}, nmiSample, false) },
	}}
	if err := rb.PerfEventOutput(in, buf, &rb.SimpleEvent{}, taskSample, false); err != nil {
		t.Fatal(err)
	}
	var reserves []uint64
	for _, e := range l.log {
		if e.Kind == rb.TraceReserve {
			reserves = append(reserves, e.Pos)
		}
	}
	// The NMI reserved at 0 (40 bytes); the task, which had read head 0, retried at 40.
	if diff := cmp.Diff([]uint64{0, 40}, reserves); diff != "" {
		t.Errorf("reservations (-want +got):\n%s", diff)
	}
	want := append(sampleBytes(t, nmiSample), sampleBytes(t, taskSample)...)
	if diff := cmp.Diff(want, buf.Data()[:len(want)]); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
}

// TestVerifyReaderMissesInflightWriter documents a limit of the seed thread's
// copy-verify reader that the model shows: data_head moves only when the outermost
// writer finishes, so a writer that has reserved space (rb->head) and is still copying
// into it on the buffer's CPU is invisible to the check. The reader, on another CPU,
// returns a record whose header is new and whose body is old.
func TestVerifyReaderMissesInflightWriter(t *testing.T) {
	buf := mustBuffer(1, 0, 0)
	l := &logger{}
	buf.Tracer = l.trace
	ev := &rb.SimpleEvent{}
	for i := 0; i < 100; i++ { // 5600 bytes: wrapped
		_ = rb.PerfEventOutput(rb.NoSteps{}, buf, ev, seqSample(uint64(i), i%5), true)
	}
	m, _ := NewMmap(buf, true)
	m.Tracer = l.trace
	in := &interrupter{fireAt: "perf_output_sample:header", fireOcc: 1, pending: []func(rb.Stepper){
		func(rb.Stepper) { m.ReadVerified(rb.NoSteps{}) },
	}}
	big := seqSample(1000, 40) // 360 bytes, header written before the reader runs
	_ = rb.PerfEventOutput(in, buf, ev, big, true)
	vs := rb.Check(l.log, rb.Final{DataSize: buf.DataSize(), Backward: true, Overwrite: true, Head: buf.Head()})
	if !hasAny(vs, "read-record-was-written", "no-early-visibility") {
		t.Errorf("violations %v; want the verify reader to return a torn record", vs)
	}
	t.Logf("%v", vs)
}
