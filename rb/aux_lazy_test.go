package rb

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// lazyPair is one AUX area made up front and one with lazy pages, the same
// size and mode, each with its own log.
func lazyPair(t interface{ Fatal(...any) }, pages, flags int, noSnap bool) (eager, lazy *Buffer, logE, logL *[]TraceEvent) {
	var le, ll []TraceEvent
	mk := func(lz bool, log *[]TraceEvent) *Buffer {
		b, err := NewBuffer(2, 0, RingBufferWritable)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		ops := &AuxOps{SetupAux: func(data []byte, _ int, _ bool) any { got = data; return 1 }, Lazy: lz, NoSnapshotAux: noSnap}
		if err := b.AllocAux(ops, 2, pages, 0, flags); err != nil {
			t.Fatal(err)
		}
		if lz && got != nil {
			t.Fatal("a lazy area handed SetupAux its pages")
		}
		b.AuxMmapSet(1)
		b.Tracer = func(e TraceEvent) { *log = append(*log, e) }
		return b
	}
	return mk(false, &le), mk(true, &ll), &le, &ll
}

// Property: an AUX area with lazy pages is indistinguishable from one made
// up front: after any sequence of byte writes, described writes,
// AuxCopyOut, AuxPieces and perf_output_copy_aux() reads (with their step
// points), and finally AuxData, every read returns the same bytes, the
// logs are the same, and the lazy area made only the pages written.
func TestAuxLazyPagesSameAsEager(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pages := 1 << rapid.IntRange(0, 3).Draw(rt, "log2 pages")
		flags := rapid.SampledFrom([]int{0, RingBufferWritable}).Draw(rt, "flags")
		noSnap := rapid.Bool().Draw(rt, "noSnapshotAux")
		size := uint64(pages * PageSize)
		eager, lazy, logE, logL := lazyPair(rt, pages, flags, noSnap)
		written := map[uint64]bool{}
		joined := false
		for i, n := 0, rapid.IntRange(1, 16).Draw(rt, "ops"); i < n; i++ {
			pos := rapid.Uint64Range(0, 3*size).Draw(rt, "pos")
			k := rapid.Uint64Range(0, size+100).Draw(rt, "len")
			switch op := rapid.IntRange(0, 4).Draw(rt, "op"); op {
			case 0, 1: // a byte write, or a described one (stored as bytes)
				src := seqSource{seed: byte(i + 1)}
				b := make([]byte, k)
				src.AuxBytes(b, 0)
				if op == 0 {
					eager.AuxWrite(pos, b)
					lazy.AuxWrite(pos, b)
				} else {
					eager.AuxWriteSource(pos, k, src)
					lazy.AuxWriteSource(pos, k, src)
				}
				for j := range min(k, size) {
					written[(pos+k-1-j)%size/PageSize] = true
				}
			case 2:
				if got, want := lazy.AuxCopyOut(pos, int(k)), eager.AuxCopyOut(pos, int(k)); !bytes.Equal(got, want) {
					rt.Fatalf("op %d: AuxCopyOut(%#x, %d) differs", i, pos, k)
				}
			case 3:
				if got, want := PiecesBytes(lazy.AuxPieces(pos, k)), PiecesBytes(eager.AuxPieces(pos, k)); !bytes.Equal(got, want) {
					rt.Fatalf("op %d: AuxPieces(%#x, %d) differs", i, pos, k)
				}
			case 4:
				to := pos + k
				room := 8 * rapid.IntRange(1, int(size)/8).Draw(rt, "room/8")
				copyOut := func(b *Buffer) string {
					dst := mustBuffer(2*pages, 0, RingBufferWritable)
					var h Handle
					if err := OutputBegin(NoSteps{}, &h, dst, nil, &auxEv{rb: dst}, room, false); err != nil {
						rt.Fatal(err)
					}
					ah := AuxHandle{rb: b}
					var steps stepLog
					n, err := OutputCopyAux(&steps, &ah, &h, pos, to)
					return fmt.Sprintf("%d %v %v %x", n, err, steps, dst.pages()[:n])
				}
				if got, want := copyOut(lazy), copyOut(eager); got != want {
					rt.Fatalf("op %d: OutputCopyAux(%#x, %#x) differs:\nlazy  %s\neager %s", i, pos, to, got, want)
				}
			}
			if !joined && lazy.AuxDescribed() {
				rt.Fatal("a lazy area says it is described")
			}
			if !joined {
				made := 0
				for _, pg := range lazy.aux.pages {
					if pg != nil {
						made++
					}
				}
				if made != len(written) {
					rt.Fatalf("op %d: %d pages made, %d written", i, made, len(written))
				}
			}
			if rapid.IntRange(0, 9).Draw(rt, "join") == 0 { // read as one slice midway
				if !bytes.Equal(lazy.AuxData(), eager.AuxData()) {
					rt.Fatalf("op %d: AuxData differs", i)
				}
				joined = true
			}
		}
		if !bytes.Equal(lazy.AuxData(), eager.AuxData()) {
			rt.Fatal("AuxData differs")
		}
		if d := cmp.Diff(*logE, *logL); d != "" {
			rt.Fatalf("log (-eager +lazy):\n%s", d)
		}
	})
}

// TestAuxLazyFree: freeing a lazy area drops its pages; a new allocation
// starts with none written (reads zeroes).
func TestAuxLazyFree(t *testing.T) {
	_, b, _, _ := lazyPair(t, 4, RingBufferWritable, true)
	b.AuxWrite(PageSize+5, []byte{1, 2, 3})
	if err := b.FreeAux(false); err != nil {
		t.Fatal(err)
	}
	if b.aux.pages != nil || b.HasAux() {
		t.Fatalf("after the last rb_free_aux: pages %v, HasAux %v", b.aux.pages, b.HasAux())
	}
	ops := &AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }, Lazy: true}
	if err := b.AllocAux(ops, 2, 4, 0, RingBufferWritable); err != nil {
		t.Fatal(err)
	}
	if got := b.AuxCopyOut(PageSize, 8); !bytes.Equal(got, make([]byte, 8)) {
		t.Fatalf("a new area reads %x, want zeroes", got)
	}
}

// BenchmarkAuxAllocWrite: an 8-page AUX area allocated, written a few KiB
// (as one PT schedule of aux-pause-resume-nmi does) and read back.
func BenchmarkAuxAllocWrite(b *testing.B) {
	for _, lz := range []bool{false, true} {
		b.Run(fmt.Sprintf("lazy=%v", lz), func(b *testing.B) {
			b.ReportAllocs()
			chunk := make([]byte, 96)
			ops := &AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }, Lazy: lz, NoSnapshotAux: true}
			for range b.N {
				buf, _ := NewBuffer(1, 0, RingBufferWritable)
				if err := buf.AllocAux(ops, 2, 8, 0, RingBufferWritable); err != nil {
					b.Fatal(err)
				}
				for pos := uint64(0); pos < 2560; pos += uint64(len(chunk)) {
					buf.AuxWrite(pos, chunk)
				}
				_ = buf.AuxPieces(0, 2560)
			}
		})
	}
}
