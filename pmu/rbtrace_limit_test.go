package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/rb"
)

// TestBufferLogsShareTheLimit: TraceBuffersInAll bounds the events of all
// the logs together. Three buffers with a limit of 5 events each and 10 in
// all: buffer 0 logs 4, buffer 1 logs 4, buffer 2 logs 2 (10 in all); then
// the next event of buffer 0 truncates it, buffer 1 logs nothing more and
// stays judged, and buffer 2's next event truncates it too. A data_head
// store after the limit still counts for HeadBackwards.
func TestBufferLogsShareTheLimit(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
	defer m.Close()
	k := &Kernel{M: m}
	k.TraceBuffers(5)
	k.TraceBuffersInAll(10)
	var bufs []*rb.Buffer
	for i := range 3 {
		b, err := rb.NewBuffer(1, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		k.traceBuffer(b, &Event{id: uint64(i), cpu: i})
		bufs = append(bufs, b)
	}
	head := func(b *rb.Buffer, v uint64) { b.Tracer(rb.TraceEvent{Kind: rb.TraceDataHead, Value: v}) }
	logs := k.BufferLogs()
	for v := range uint64(4) {
		head(bufs[0], 8*(v+1))
		head(bufs[1], 8*(v+1))
	}
	head(bufs[2], 8)
	head(bufs[2], 16)
	type state struct {
		Truncated     []bool
		Len           []int
		HeadBackwards []int
	}
	get := func() state {
		var s state
		for _, l := range logs {
			s.Truncated = append(s.Truncated, l.Truncated)
			n := -1
			if l.chk != nil {
				n = l.chk.Len()
			}
			s.Len = append(s.Len, n)
			s.HeadBackwards = append(s.HeadBackwards, l.HeadBackwards)
		}
		return s
	}
	if d := cmp.Diff(state{[]bool{false, false, false}, []int{4, 4, 2}, []int{0, 0, 0}}, get()); d != "" {
		t.Fatalf("at the limit (-want +got):\n%s", d)
	}
	head(bufs[0], 40)
	// Buffer 2's data_head goes back: counted though its log is over.
	logs[2].add(rb.TraceEvent{Kind: rb.TraceDataHead, Value: 8})
	if d := cmp.Diff(state{[]bool{true, false, true}, []int{-1, 4, -1}, []int{0, 0, 1}}, get()); d != "" {
		t.Fatalf("past the limit (-want +got):\n%s", d)
	}
	if bufs[0].Tracer != nil || bufs[1].Tracer == nil {
		t.Errorf("the truncated buffer 0 still traces (%v) or the judged buffer 1 does not (%v)", bufs[0].Tracer != nil, bufs[1].Tracer != nil)
	}
	if got := logs[1].Check(); len(got) != 0 {
		t.Errorf("buffer 1's log: %v, want no violation", got)
	}
}

// TestBufferLogLimit: TraceBuffers' limit is each log's: a buffer that logs
// past it is truncated, another one goes on.
func TestBufferLogLimit(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, nil)
	defer m.Close()
	k := &Kernel{M: m}
	k.TraceBuffers(3)
	var bufs []*rb.Buffer
	for i := range 2 {
		b, err := rb.NewBuffer(1, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		k.traceBuffer(b, &Event{id: uint64(i), cpu: i})
		bufs = append(bufs, b)
	}
	for v := range uint64(4) {
		bufs[0].Tracer(rb.TraceEvent{Kind: rb.TraceDataHead, Value: 8 * (v + 1)})
	}
	for v := range uint64(3) {
		bufs[1].Tracer(rb.TraceEvent{Kind: rb.TraceDataHead, Value: 8 * (v + 1)})
	}
	var got []bool
	for _, l := range k.BufferLogs() {
		got = append(got, l.Truncated)
	}
	if d := cmp.Diff([]bool{true, false}, got); d != "" {
		t.Errorf("truncated (-want +got):\n%s", d)
	}
}
