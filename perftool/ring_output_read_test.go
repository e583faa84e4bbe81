package perftool

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
	"perfsim/uapi"
)

func TestOutputWrapsAcrossTheEnd(t *testing.T) {
	buf := mustBuffer(1, 0, rb.RingBufferWritable)
	ev := &rb.SimpleEvent{}
	m, _ := NewMmap(buf, false)
	filler := seqSample(0, 0) // 40 bytes
	fs := sampleBytes(t, filler)
	for i := 0; i < 100; i++ { // 4000 bytes, 96 left before the end
		if err := rb.PerfEventOutput(rb.NoSteps{}, buf, ev, filler, false); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := m.ReadAll(rb.NoSteps{}); len(got) != 100 || !cmp.Equal(got[99], fs) {
		t.Fatalf("read %d fillers", len(got))
	}
	big := seqSample(7, 14) // 40 + 112 = 152 bytes: 96 before the end, 56 after
	if err := rb.PerfEventOutput(rb.NoSteps{}, buf, ev, big, false); err != nil {
		t.Fatal(err)
	}
	want := sampleBytes(t, big)
	if diff := cmp.Diff(want[:96], buf.Data()[4000:]); diff != "" {
		t.Errorf("tail of the area (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[96:], buf.Data()[:56]); diff != "" {
		t.Errorf("start of the area (-want +got):\n%s", diff)
	}
	got, err := m.ReadAll(rb.NoSteps{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]byte{want}, got); diff != "" {
		t.Errorf("reader through the bounce buffer (-want +got):\n%s", diff)
	}
}

func TestNoSpaceCountsLostAndEmitsLostFirst(t *testing.T) {
	buf := mustBuffer(1, 0, rb.RingBufferWritable)
	const idType = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME
	ev := &rb.SimpleEvent{EventID: 42, Type: uapi.PERF_SAMPLE_IP | idType, IDAll: true}
	s := &rb.Sample{Type: ev.Type, IP: 1, Pid: 5, Tid: 6, Time: 7} // 32 bytes
	n := 0
	for rb.PerfEventOutput(rb.NoSteps{}, buf, ev, s, false) == nil {
		n++
	}
	// CIRC_SPACE keeps one byte free: 4095/32 = 127 records fit.
	if n != 127 {
		t.Errorf("%d records fitted, want 127", n)
	}
	for i := 0; i < 2; i++ {
		if err := rb.PerfEventOutput(rb.NoSteps{}, buf, ev, s, false); !errors.Is(err, uapi.ENOSPC) {
			t.Fatalf("err = %v, want ENOSPC", err)
		}
	}
	if buf.Lost() != 3 || ev.LostSamples != 3 {
		t.Errorf("rb->lost %d, lost_samples %d; want 3, 3", buf.Lost(), ev.LostSamples)
	}
	m, _ := NewMmap(buf, false)
	if got, _ := m.ReadAll(rb.NoSteps{}); len(got) != 127 {
		t.Fatalf("read %d", len(got))
	}
	s2 := &rb.Sample{Type: ev.Type, IP: 2, Pid: 5, Tid: 6, Time: 8}
	if err := rb.PerfEventOutput(rb.NoSteps{}, buf, ev, s2, false); err != nil {
		t.Fatal(err)
	}
	got, _ := m.ReadAll(rb.NoSteps{})
	// LOST {id 42, lost 3} with the sample_id of the sample being written.
	want := [][]byte{bs(hdr(2, 0, 40), 42, 3, [2]uint32{5, 6}, uint64(8)), sampleBytes(t, s2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if buf.Lost() != 0 {
		t.Errorf("rb->lost %d after the LOST record, want 0", buf.Lost())
	}
}
