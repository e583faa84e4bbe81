package rb

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// seqSource is n bytes whose byte i is a function of (seed, i).
type seqSource struct{ seed byte }

func (s seqSource) AuxBytes(dst []byte, off uint64) {
	for i := range dst {
		dst[i] = s.seed ^ byte((off+uint64(i))*7)
	}
}

func newAuxArea(t interface {
	Fatal(...any)
}, pages int, described bool) *Buffer {
	buf, err := NewBuffer(1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ops := &AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }, Described: described, NoSnapshotAux: true}
	if err := buf.AllocAux(ops, 2, pages, 0, 0); err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestAuxWriteSourceSameBytes: writes described with AuxWriteSource (kept
// as descriptions) read back, piece by piece, as bytes, and made into the
// area's bytes, exactly as the same writes stored as bytes with AuxWrite;
// the log's TraceAuxWrite events are the same too (no bytes kept: the area
// has no AUX sampler).
func TestAuxWriteSourceSameBytes(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		const pages = 2
		size := uint64(pages * PageSize)
		desc, plain := newAuxArea(rt, pages, true), newAuxArea(rt, pages, false)
		var logD, logP []TraceEvent
		desc.Tracer = func(e TraceEvent) { logD = append(logD, e) }
		plain.Tracer = func(e TraceEvent) { logP = append(logP, e) }
		for i, n := 0, rapid.IntRange(1, 12).Draw(rt, "writes"); i < n; i++ {
			pos := rapid.Uint64Range(0, 4*size).Draw(rt, "pos")
			k := rapid.Uint64Range(1, size+100).Draw(rt, "len")
			src := seqSource{seed: byte(i + 1)}
			desc.AuxWriteSource(pos, k, src)
			b := make([]byte, k)
			src.AuxBytes(b, 0)
			plain.AuxWrite(pos, b)
			from := rapid.Uint64Range(0, 2*size).Draw(rt, "from")
			m := rapid.Uint64Range(0, size).Draw(rt, "n")
			if got, want := PiecesBytes(desc.AuxPieces(from, m)), plain.AuxCopyOut(from, int(m)); !bytes.Equal(got, want) {
				rt.Fatalf("AuxPieces(%#x, %d) after write %d differs from the bytes", from, m, i)
			}
		}
		if !desc.AuxDescribed() {
			rt.Fatal("an area only written with AuxWriteSource is not described")
		}
		if !bytes.Equal(desc.AuxData(), plain.AuxData()) {
			rt.Fatal("the described area's bytes differ from the plain one's")
		}
		if desc.AuxDescribed() {
			rt.Fatal("AuxData left the area described")
		}
		if d := cmp.Diff(logP, logD); d != "" {
			rt.Fatalf("TraceAuxWrite log (-plain +described):\n%s", d)
		}
	})
}

// TestAuxWriteKeepsBytesForSamplers: the log keeps a write's bytes only for
// an area an AUX sample may copy (aux-sample-is-newest reads them).
func TestAuxWriteKeepsBytesForSamplers(t *testing.T) {
	for _, noSnap := range []bool{false, true} {
		buf, err := NewBuffer(1, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		ops := &AuxOps{SetupAux: func([]byte, int, bool) any { return 1 }, NoSnapshotAux: noSnap}
		if err := buf.AllocAux(ops, 2, 1, 0, 0); err != nil {
			t.Fatal(err)
		}
		var log []TraceEvent
		buf.Tracer = func(e TraceEvent) { log = append(log, e) }
		buf.AuxWrite(8, []byte{1, 2, 3})
		want := TraceEvent{Kind: TraceAuxWrite, Pos: 8, Size: 3}
		if !noSnap {
			want.Rec = []byte{1, 2, 3}
		}
		if d := cmp.Diff([]TraceEvent{want}, log); d != "" {
			t.Errorf("NoSnapshotAux=%v: log (-want +got):\n%s", noSnap, d)
		}
	}
}
