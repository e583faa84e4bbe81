package rb

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// stepLog is a Stepper that records the step points passed.
type stepLog []string

func (s *stepLog) Step(label string) { *s = append(*s, label) }

// copyAuxC is perf_output_copy_aux() as the C reads, loop for loop: the
// reference OutputCopyAux (through CopyAuxPages) must equal.
// kernel/events/ring_buffer.c: perf_output_copy_aux()
func copyAuxC(s Stepper, data []byte, dst *Handle, from, to uint64) (int, bool) {
	mask := uint64(len(data)) - 1
	from &= mask
	to &= mask
	n := 0
	for {
		tocopy := PageSize - from%PageSize
		if to > from {
			tocopy = min(tocopy, to-from)
		}
		if tocopy == 0 {
			break
		}
		if OutputCopy(dst, data[from:from+tocopy]) != 0 {
			return n, false // -EFAULT
		}
		n += int(tocopy)
		from = (from + tocopy) & mask
		StepAt(s, "perf_output_copy_aux:page")
		if to == from {
			break
		}
	}
	return n, true
}

// Property: OutputCopyAux copies what perf_output_copy_aux()'s loop copies,
// in the same pieces (one step point each), for any from and to (to == from
// is the whole area) and any room in the destination (too little: -EFAULT
// with the pieces that fitted), and the bytes are the area's.
func TestOutputCopyAuxIsTheCLoop(t *testing.T) {
	const pages = 2
	b, ev := auxBuffer(t, pages, RingBufferWritable)
	src := make([]byte, pages*PageSize)
	for i := range src {
		src[i] = byte(i*7 + i>>8)
	}
	b.AuxWrite(0, src)
	var ah AuxHandle
	AuxOutputBegin(NoSteps{}, &ah, b, ev)
	rapid.Check(t, func(rt *rapid.T) {
		from := rapid.Uint64Range(0, 3*pages*PageSize).Draw(rt, "from")
		to := rapid.Uint64Range(0, 3*pages*PageSize).Draw(rt, "to")
		room := 8 * rapid.IntRange(1, pages*PageSize/8).Draw(rt, "room/8")
		type out struct {
			N     int
			OK    bool
			Steps []string
			Bytes []byte
		}
		run := func(cp func(s Stepper, h *Handle) (int, bool)) out {
			dst := mustBuffer(2*pages, 0, RingBufferWritable)
			var h Handle
			if err := OutputBegin(NoSteps{}, &h, dst, nil, ev, room, false); err != nil {
				rt.Fatal(err)
			}
			var steps stepLog
			n, ok := cp(&steps, &h)
			return out{n, ok, steps, dst.pages()[:n]}
		}
		want := run(func(s Stepper, h *Handle) (int, bool) { return copyAuxC(s, src, h, from, to) })
		got := run(func(s Stepper, h *Handle) (int, bool) {
			n, err := OutputCopyAux(s, &ah, h, from, to)
			return n, err == nil
		})
		// cmp.Diff only to say what differs: it is slow on bytes.
		same := want.N == got.N && want.OK == got.OK && slices.Equal(want.Steps, got.Steps) && bytes.Equal(want.Bytes, got.Bytes)
		if !same {
			rt.Fatalf("[%d,%d) room %d (-C loop +OutputCopyAux):\n%s", from, to, room, cmp.Diff(want, got))
		}
		if area := b.AuxCopyOut(from&(uint64(len(src))-1), got.N); !bytes.Equal(area, got.Bytes) {
			rt.Fatalf("[%d,%d): bytes (-area +copied):\n%s", from, to, cmp.Diff(area, got.Bytes))
		}
	})
}

// CopyAuxPages cuts a copy at the area's page boundaries, wherever its bytes
// come from: 10 bytes to the end of the first page, a page, then 20.
func TestCopyAuxPagesPieces(t *testing.T) {
	_, ev := auxBuffer(t, 2, RingBufferWritable)
	dst := mustBuffer(4, 0, RingBufferWritable)
	var h Handle
	n := PageSize + 30
	if err := OutputBegin(NoSteps{}, &h, dst, nil, ev, (n+7)&^7, false); err != nil {
		t.Fatal(err)
	}
	var asked [][2]uint64
	var steps stepLog
	got, err := CopyAuxPages(&steps, &h, 3*PageSize-10, uint64(n), func(k, m uint64) []byte {
		asked = append(asked, [2]uint64{k, m})
		b := make([]byte, m)
		for i := range b {
			b[i] = byte(k + uint64(i))
		}
		return b
	})
	if err != nil || got != n {
		t.Fatalf("copied %d %v, want %d", got, err, n)
	}
	if d := cmp.Diff([][2]uint64{{0, 10}, {10, PageSize}, {PageSize + 10, 20}}, asked); d != "" {
		t.Errorf("pieces (-want +got):\n%s", d)
	}
	if len(steps) != 3 {
		t.Errorf("step points %q, want one per piece", steps)
	}
	for i, c := range dst.pages()[:n] {
		if c != byte(i) {
			t.Fatalf("byte %d is %d, want %d", i, c, byte(i))
		}
	}
}
