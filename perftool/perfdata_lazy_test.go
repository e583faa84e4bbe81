package perftool

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/rb"
)

// TestPerfDataPiecesSameAsBytes: a data section with AUXTRACE payloads
// kept as descriptions (writePieces) has the same chunks, records (Process
// walks over the payloads it does not hold), stretches (bytesFrom) and,
// made (materialize), the same bytes as one written with the bytes.
func TestPerfDataPiecesSameAsBytes(t *testing.T) {
	payload := func(n int, seed byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = seed + byte(i)
		}
		return b
	}
	type w struct {
		hdr   []byte
		p1    []byte
		p2    []byte
		extra []byte // a record after the payload (a FINISHED_ROUND-like user record)
	}
	round := []byte{RecordFinishedRound, 0, 0, 0, 0, 0, 8, 0}
	var ws []w
	for i, n := range []int{64, 4096, 16, 4096 + 32} {
		p := payload(n, byte(i))
		ev := AuxtraceEvent{Size: uint64(n), Offset: uint64(1000 * i), Idx: uint32(i), CPU: uint32(i)}
		ws = append(ws, w{hdr: ev.Append(nil), p1: p[:n/2], p2: p[n/2:], extra: round})
	}
	plain, lazy := &PerfData{}, &PerfData{}
	starts := []int{}
	for _, x := range ws {
		starts = append(starts, plain.size())
		for _, d := range []*PerfData{plain, lazy} {
			d.write(x.hdr, -1, 0, 0, false)
		}
		plain.write(x.p1, -1, 0, 0, false)
		plain.write(x.p2, -1, 0, 0, false)
		lazy.writePieces([]rb.AuxPiece{rb.BytesPiece(x.p1)}, -1, 0, 0, false)
		lazy.writePieces([]rb.AuxPiece{rb.BytesPiece(x.p2[:3]), rb.BytesPiece(x.p2[3:])}, -1, 0, 0, false)
		for _, d := range []*PerfData{plain, lazy} {
			d.write(x.extra, -1, 0, 0, false)
		}
	}
	if len(lazy.Data) >= len(plain.Data) || lazy.size() != len(plain.Data) {
		t.Fatalf("lazy data section: %d bytes held of %d, want fewer held of %d", len(lazy.Data), lazy.size(), len(plain.Data))
	}
	if d := cmp.Diff(plain.Chunks, lazy.Chunks); d != "" {
		t.Errorf("chunks (-bytes +pieces):\n%s", d)
	}
	for _, s := range append(starts, 0, 5, len(plain.Data)) {
		if !bytes.Equal(lazy.bytesFrom(s), plain.Data[s:]) {
			t.Errorf("bytesFrom(%d) differs", s)
		}
	}
	plain.Process()
	lazy.Process()
	if len(lazy.lazy) == 0 {
		t.Error("Process made the payloads' bytes")
	}
	if d := cmp.Diff(plain.Records, lazy.Records); d != "" || plain.ProcessErr != nil || lazy.ProcessErr != nil {
		t.Errorf("records (-bytes +pieces):\n%s\nerrors %v, %v", d, plain.ProcessErr, lazy.ProcessErr)
	}
	if len(plain.Records) != 2*len(ws) {
		t.Errorf("%d records, want %d", len(plain.Records), 2*len(ws))
	}
	lazy.materialize()
	if !bytes.Equal(lazy.Data, plain.Data) || len(lazy.lazy) != 0 {
		t.Error("materialize: the data section differs from the one written with the bytes")
	}
}
