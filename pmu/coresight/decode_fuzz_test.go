package coresight

import (
	"fmt"
	"testing"
)

// FuzzParsePackets: any bytes parse without a panic; every packet lies
// inside the input, back to back from the first A-sync.
func FuzzParsePackets(f *testing.F) {
	src := &unitSrc{cpu: 1, index: 255, n: 4, since: 100, until: 500, addr: SpanAddr(false, 7), pid: 7,
		cfg: etmConfig{ts: true, ctxt: true}}
	var seed []byte
	for k := uint64(0); k < 4; k++ {
		seed = src.appendUnit(seed, k, FrameSize)
	}
	f.Add(seed, false)
	f.Add(seed[3:], false)
	f.Add([]byte{0x03, 0x80, 0x80, 0x01, 0x81, 0x7f}, true)
	f.Add([]byte{0x81, 0xc0, 1, 2, 3, 4, 5}, true)
	f.Fuzz(func(t *testing.T, b []byte, synced bool) {
		pkts, skipped, err := ParsePackets(b, synced)
		if skipped < 0 || skipped > len(b) || (synced && skipped != 0) {
			t.Fatalf("skipped %d of %d", skipped, len(b))
		}
		off := skipped
		for _, p := range pkts {
			if p.Off != off || p.Len <= 0 || p.Off+p.Len > len(b) {
				t.Fatalf("packet %+v at %d of %d bytes", p, off, len(b))
			}
			off += p.Len
		}
		if err == nil && len(pkts) > 0 && off != len(b) {
			t.Fatalf("parsed %d of %d bytes without an error", off, len(b))
		}
	})
}

// FuzzDeformat: any 16 bytes deformat without a panic into at most 15 data
// bytes, none for the null or reserved IDs; a frame putFormatted wrote
// comes back as written.
func FuzzDeformat(f *testing.F) {
	var fr [FrameSize]byte
	data := make([]byte, formattedBytes)
	for i := range data {
		data[i] = byte(0xf1 + i)
	}
	putFormatted(fr[:], 0x12, data)
	f.Add(fr[:], byte(0x10))
	f.Add(barrierFrame[:], byte(0))
	f.Add([]byte{0x21, 1, 0x23, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 0x02}, byte(0x10))
	f.Fuzz(func(t *testing.T, b []byte, cur byte) {
		df := Deformatter{ID: cur & 0x7f}
		segs, err := df.Frame(b)
		if err != nil {
			return
		}
		n := 0
		for _, s := range segs {
			if s.ID == 0 || s.ID == 0x7f {
				t.Fatalf("data of ID %#x", s.ID)
			}
			n += len(s.Data)
		}
		if n > FrameSize-1 {
			t.Fatalf("%d data bytes from a frame", n)
		}
		if len(b) >= FrameSize && [FrameSize]byte(b[:FrameSize]) == fr {
			if len(segs) != 1 || segs[0].ID != 0x12 || string(segs[0].Data) != string(data) {
				t.Fatalf("round trip: %+v", segs)
			}
		}
	})
}

// FuzzDecode: the unit decoder takes any AUX bytes without a panic and
// classifies every 16-byte slot once.
func FuzzDecode(f *testing.F) {
	l := newLedger(2, false)
	l.add(1, ledgerRun{period: 1, n: 4, since: 100, until: 500})
	src := &unitSrc{cpu: 1, n: 4, since: 100, until: 500, addr: SpanAddr(true, 3), pid: 3, user: true,
		cfg: etmConfig{ts: true, ctxt: true}}
	var seed []byte
	for k := uint64(0); k < 4; k++ {
		var fr [FrameSize]byte
		putFormatted(fr[:], traceID(1), src.appendUnit(nil, k, formattedBytes))
		seed = append(seed, fr[:]...)
	}
	f.Add(seed, false)
	f.Add(append(barrierFrame[:], seed[FrameSize:]...), true)
	f.Fuzz(func(t *testing.T, b []byte, raw bool) {
		l.raw = raw
		dec := &Decoder{L: l, CPUs: 2}
		units := dec.Decode(1, b)
		if len(units) != len(b)/FrameSize {
			t.Fatalf("%d units from %d bytes", len(units), len(b))
		}
		for _, u := range units {
			if u.Known && (u.Frame.CPU != 1 || u.Frame.Seq >= 4) {
				t.Fatalf("unit %+v not in the ledger", u)
			}
		}
	})
}

// FuzzDeformatOneSource: Frame (with its one-source fast path) splits any
// frame exactly as the general byte-by-byte loop does.
func FuzzDeformatOneSource(f *testing.F) {
	var fr [FrameSize]byte
	putFormatted(fr[:], 0x12, []byte{0xff, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Add(fr[:])
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < FrameSize {
			return
		}
		var fast Deformatter
		got, err := fast.Frame(b)
		if err != nil {
			return
		}
		var slow Deformatter
		want := slow.general(b[:FrameSize])
		if fmt.Sprint(got) != fmt.Sprint(want) || fast.ID != slow.ID {
			t.Fatalf("fast %v (ID %#x), general loop %v (ID %#x)", got, fast.ID, want, slow.ID)
		}
	})
}
