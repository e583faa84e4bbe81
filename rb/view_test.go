package rb

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"
)

// Property: View returns the bytes CopyAt copies, for any position and
// length (wrapping or not), whether or not the area was written that far;
// a view that does not wrap is the area's own bytes.
func TestViewIsCopyAt(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pages := 1 << rapid.IntRange(0, 2).Draw(rt, "log2 pages")
		b := mustBuffer(pages, 0, RingBufferWritable)
		size := uint64(pages * PageSize)
		w := rapid.IntRange(0, int(size)).Draw(rt, "written")
		d := b.span(0, w)
		for i := range d {
			d[i] = byte(i*7 + i>>8)
		}
		pos := rapid.Uint64Range(0, 3*size).Draw(rt, "pos")
		n := rapid.IntRange(0, int(size)).Draw(rt, "n")
		got := b.View(pos, n, make([]byte, rapid.IntRange(0, 64).Draw(rt, "scratch")))
		want := b.CopyAt(make([]byte, n), pos)
		if !bytes.Equal(got, want) || len(got) != n {
			rt.Fatalf("View(%#x, %d) = %d bytes, differs from CopyAt", pos, n, len(got))
		}
		if off := pos & b.mask; off+uint64(n) <= size && n > 0 && &got[0] != &b.span(int(off), n)[0] {
			rt.Fatalf("View(%#x, %d) copied bytes that do not wrap", pos, n)
		}
	})
}
