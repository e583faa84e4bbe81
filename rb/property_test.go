package rb

import (
	"fmt"
	"perfsim/uapi"
	"testing"

	"pgregory.net/rapid"
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
		flags := RingBufferWritable
		if backward {
			flags = 0
		}
		rb := mustBuffer(pages, 0, flags)
		l := &logger{}
		rb.Tracer = l.trace
		const idType = uapi.PERF_SAMPLE_TID | uapi.PERF_SAMPLE_TIME
		ev := &SimpleEvent{EventID: 7, Type: uapi.PERF_SAMPLE_IP | idType | uapi.PERF_SAMPLE_CALLCHAIN | uapi.PERF_SAMPLE_RAW, IDAll: true}
		m, _ := NewMmap(rb, backward)
		m.Tracer = l.trace
		parse := func(recs [][]byte) {
			for _, r := range recs {
				if _, err := Decode(r, ev.Type, true); err != nil {
					t.Fatalf("record does not parse: %v", err)
				}
			}
		}
		read := func() {
			if backward {
				_ = rb.PauseOutput(true)
				defer func() { _ = rb.PauseOutput(false) }()
			}
			recs, _ := m.ReadAll(NoSteps{})
			parse(recs)
		}
		seq := uint64(0)
		ops := rapid.IntRange(1, 120).Draw(t, "ops")
		for i := 0; i < ops; i++ {
			seq++
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 6:
				s := &Sample{Type: ev.Type, IP: seq, Pid: 1, Tid: 2, Time: seq,
					Callchain: make([]uint64, rapid.IntRange(0, 40).Draw(t, "callchain")),
					Raw:       make([]byte, rapid.IntRange(0, 300).Draw(t, "raw"))}
				_ = PerfEventOutput(NoSteps{}, rb, ev, s, backward)
			case op == 6:
				c := &Comm{Pid: 1, Tid: uint32(seq), Comm: fmt.Sprint("t", seq)}
				_ = PerfOutputSideband(NoSteps{}, rb, ev, c, &SampleID{Pid: 1, Tid: 2, Time: seq}, backward)
			case op == 7:
				_ = PerfOutputSideband(NoSteps{}, rb, ev, &Switch{Out: seq%2 == 0}, &SampleID{Time: seq}, backward)
			case op == 8:
				read()
			case op == 9:
				rb.TogglePaused(!rb.Paused())
			}
		}
		rb.TogglePaused(false)
		// A record counted lost is reported by the next LOST record: write one more.
		_ = PerfOutputSideband(NoSteps{}, rb, ev, &Switch{}, nil, backward)
		read()
		vs := Check(l.log, Final{DataSize: rb.DataSize(), Backward: backward, Overwrite: rb.Overwrite(),
			Head: rb.Head(), Lost: rb.Lost(), Drained: true})
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
		typ = typ&(SampleSupported&^uapi.PERF_SAMPLE_IDENTIFIER) | uint64(rapid.SampledFrom([]int{0, uapi.PERF_SAMPLE_IDENTIFIER}).Draw(t, "identifier"))
		typ &^= uapi.PERF_SAMPLE_READ | 1<<11
		// Padding is skipped by the kernel (stale bytes), so only payloads that need no
		// padding (4 + 8k bytes) round-trip byte for byte.
		rawLen := 4 + 8*rapid.IntRange(0, 8).Draw(t, "raw8")
		s := &Sample{Type: typ, ID: 1, IP: 2, Pid: 3, Tid: 4, Time: 5, Addr: 6, StreamID: 7, CPU: 8, Period: 9,
			Callchain: make([]uint64, rapid.IntRange(0, 9).Draw(t, "cc")), Raw: make([]byte, rawLen)}
		for i := range s.Raw {
			s.Raw[i] = byte(i + 1)
		}
		want, err := AppendSample(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		rb := mustBuffer(1, 0, 0)
		offset := rapid.IntRange(0, 511).Draw(t, "offset") * 8
		rb.head = uint64(offset)
		if err := PerfEventOutput(NoSteps{}, rb, &SimpleEvent{}, s, false); err != nil {
			t.Fatal(err)
		}
		m, _ := NewMmap(rb, false)
		m.Prev = uint64(offset)
		got, _ := m.ReadAll(NoSteps{})
		if len(got) != 1 || string(got[0]) != string(want) {
			t.Fatalf("ring bytes %x, want %x", got, want)
		}
		d, err := DecodeSample(got[0], typ)
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

func mustAppend(t *rapid.T, s *Sample) []byte {
	b, err := AppendSample(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
