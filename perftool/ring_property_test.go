package perftool

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"perfsim/rb"
	"perfsim/uapi"
)

// TestInvariantsOverRandomSequences drives one buffer with random writes (samples of
// random size, COMM, SWITCH), read passes, consumes and pauses, then drains it, and
// checks every invariant over the trace. Forward buffers are read unpaused (perf
// record); backward overwrite buffers are read between PAUSE_OUTPUT(1) and (0)
// (perf record --overwrite).
func TestInvariantsOverRandomSequences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		backward := rapid.Bool().Draw(t, "backward")
		pages := rapid.SampledFrom([]int{1, 2}).Draw(t, "pages")
		flags := rb.RingBufferWritable
		if backward {
			flags = 0
		}
		buf := mustBuffer(pages, 0, flags)
		l := &logger{}
		buf.Tracer = l.trace
		const idType = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME
		ev := &rb.SimpleEvent{EventID: 7, Type: uapi.PERF_SAMPLE_IP | idType | uapi.PERF_SAMPLE_CALLCHAIN | uapi.PERF_SAMPLE_RAW, IDAll: true}
		m, _ := NewMmap(buf, backward)
		m.Tracer = l.trace
		parse := func(recs [][]byte) {
			for _, r := range recs {
				if _, err := rb.Decode(r, ev.Type, true); err != nil {
					t.Fatalf("record does not parse: %v", err)
				}
			}
		}
		read := func() {
			if backward {
				_ = buf.PauseOutput(true)
				defer func() { _ = buf.PauseOutput(false) }()
			}
			recs, _ := m.ReadAll(rb.NoSteps{})
			parse(recs)
		}
		seq := uint64(0)
		ops := rapid.IntRange(1, 120).Draw(t, "ops")
		for i := 0; i < ops; i++ {
			seq++
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 6:
				s := &rb.Sample{Type: ev.Type, IP: seq, Pid: 1, Tid: 2, Time: seq,
					Callchain: make([]uint64, rapid.IntRange(0, 40).Draw(t, "callchain")),
					Raw:       make([]byte, rapid.IntRange(0, 300).Draw(t, "raw"))}
				_ = rb.PerfEventOutput(rb.NoSteps{}, buf, ev, s, backward)
			case op == 6:
				c := &rb.Comm{Pid: 1, Tid: uint32(seq), Comm: fmt.Sprint("t", seq)}
				_ = rb.PerfOutputSideband(rb.NoSteps{}, buf, ev, c, &rb.SampleID{Pid: 1, Tid: 2, Time: seq}, backward)
			case op == 7:
				_ = rb.PerfOutputSideband(rb.NoSteps{}, buf, ev, &rb.Switch{Out: seq%2 == 0}, &rb.SampleID{Time: seq}, backward)
			case op == 8:
				read()
			case op == 9:
				buf.TogglePaused(!buf.Paused())
			}
		}
		buf.TogglePaused(false)
		// A record counted lost is reported by the next LOST record: write one more.
		_ = rb.PerfOutputSideband(rb.NoSteps{}, buf, ev, &rb.Switch{}, nil, backward)
		read()
		vs := rb.Check(l.log, rb.Final{DataSize: buf.DataSize(), Backward: backward, Overwrite: buf.Overwrite(),
			Head: buf.Head(), Lost: buf.Lost(), Drained: true})
		if len(vs) > 0 {
			t.Fatalf("violations: %v", vs)
		}
	})
}

// TestSampleEncodingsAgree: what OutputSample writes into the ring (wrapping anywhere)
// is what AppendSample produces, and it decodes back to the sample.
func TestSampleEncodingsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		typ := uint64(rapid.IntRange(0, 1<<11-1).Draw(t, "bits"))
		typ = typ&(rb.SampleSupported&^uapi.PERF_SAMPLE_IDENTIFIER) | uint64(rapid.SampledFrom([]int{0, uapi.PERF_SAMPLE_IDENTIFIER}).Draw(t, "identifier"))
		typ &^= uapi.PERF_SAMPLE_READ | 1<<11
		// Padding is skipped by the kernel (stale bytes), so only payloads that need no
		// padding (4 + 8k bytes) round-trip byte for byte.
		rawLen := 4 + 8*rapid.IntRange(0, 8).Draw(t, "raw8")
		s := &rb.Sample{Type: typ, ID: 1, IP: 2, Pid: 3, Tid: 4, Time: 5, Addr: 6, StreamID: 7, CPU: 8, Period: 9,
			Callchain: make([]uint64, rapid.IntRange(0, 9).Draw(t, "cc")), Raw: make([]byte, rawLen)}
		for i := range s.Raw {
			s.Raw[i] = byte(i + 1)
		}
		want, err := rb.AppendSample(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		buf := mustBuffer(1, 0, 0)
		offset := rapid.IntRange(0, 511).Draw(t, "offset") * 8
		if offset > 0 { // move the ring's head there with a filler record the reader skips
			var h rb.Handle
			if err := rb.OutputBegin(rb.NoSteps{}, &h, buf, nil, &rb.SimpleEvent{}, offset, false); err != nil {
				t.Fatal(err)
			}
			filler := make([]byte, offset)
			rb.PutHeader(filler, rb.Header{Type: uapi.PERF_RECORD_MMAP2, Size: uint16(offset)})
			rb.OutputCopy(&h, filler)
			rb.OutputEnd(rb.NoSteps{}, &h)
		}
		if err := rb.PerfEventOutput(rb.NoSteps{}, buf, &rb.SimpleEvent{}, s, false); err != nil {
			t.Fatal(err)
		}
		m, _ := NewMmap(buf, false)
		m.Prev = uint64(offset)
		got, _ := m.ReadAll(rb.NoSteps{})
		if len(got) != 1 || string(got[0]) != string(want) {
			t.Fatalf("ring bytes %x, want %x", got, want)
		}
		d, err := rb.DecodeSample(got[0], typ)
		if err != nil {
			t.Fatal(err)
		}
		if typ&uapi.PERF_SAMPLE_RAW == 0 {
			s.Raw = nil
		}
		if typ&uapi.PERF_SAMPLE_CALLCHAIN == 0 {
			s.Callchain = nil
		}
		if string(mustAppend(t, d)) != string(want) {
			t.Fatalf("decoded %+v re-encodes differently", d)
		}
	})
}

func mustAppend(t *rapid.T, s *rb.Sample) []byte {
	b, err := rb.AppendSample(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
