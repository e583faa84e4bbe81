package coresight

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
)

// loopAt is the code of the images: a loop at every slot.
func loopAt(_ Context, ip uint64) bool { return pmu.ImageLoopAt(ip) }

// encodeRun is the raw trace of n units of a run at addr, from unit index.
func encodeRun(index uint32, n uint64, addr uint64, user bool, ctxFirst bool) []byte {
	src := &unitSrc{cpu: 0, index: index, n: n, since: 1000, until: 1000 + 100*n, addr: addr, pid: 42, user: user,
		cfg: etmConfig{ts: true, ctxt: true}, ctxFirst: ctxFirst}
	var b []byte
	for k := uint64(0); k < n; k++ {
		b = src.appendUnit(b, k, FrameSize)
	}
	return b
}

// TestFollowEncodedRuns: Follow walks what the encoder writes as OpenCSD
// would: the atoms of the synchronisation unit (before any address) are
// skipped, every E atom after the address and context is one iteration of
// the loop there, a run at a new address (its address with context) moves
// the walk, an address without code stops it until the next address.
func TestFollowEncodedRuns(t *testing.T) {
	user := uint64(pmu.UserText + 5*pmu.ImageSlotSize)
	kernel := uint64(pmu.KernelText + 3*pmu.ImageSlotSize)
	// raw units: sync (A-sync, trace info: no atoms), address with context
	// and 2 atom packets (6 atoms), then a timestamp and 8 atom packets (24
	// atoms) each
	const perUnit, addrUnit = 24, 6
	type want struct {
		Instructions, Branches, Skipped, Tail uint64
		Starts, NACC, Errors, TailStretches   int
		ByIP                                  map[uint64]uint64
	}
	for _, tc := range []struct {
		name string
		b    []byte
		code func(Context, uint64) bool
		want want
	}{
		{"one run", encodeRun(0, 5, user, true, false), loopAt,
			want{Instructions: (addrUnit + 3*perUnit) * LoopInsns, Branches: addrUnit + 3*perUnit, Tail: perUnit, Starts: 1, TailStretches: 1,
				ByIP: map[uint64]uint64{user: (addrUnit + 3*perUnit) * LoopInsns}}},
		{"user then kernel", append(encodeRun(0, 4, user, true, false), encodeRun(4, 3, kernel, false, true)...), loopAt,
			want{Instructions: (2*addrUnit + 4*perUnit) * LoopInsns, Branches: 2*addrUnit + 4*perUnit, Tail: perUnit, Starts: 1, TailStretches: 1,
				ByIP: map[uint64]uint64{user: (addrUnit + 2*perUnit) * LoopInsns, kernel: (addrUnit + 2*perUnit) * LoopInsns}}},
		{"no memory at the user loop", append(encodeRun(0, 4, user, true, false), encodeRun(4, 3, kernel, false, true)...),
			func(_ Context, ip uint64) bool { return ip >= pmu.KernelText },
			// the first user atom stops the walk; the others wait for an address
			want{Instructions: (addrUnit + 2*perUnit) * LoopInsns, Branches: addrUnit + 2*perUnit, Skipped: addrUnit + 2*perUnit - 1,
				Tail: perUnit, Starts: 1, TailStretches: 1, NACC: 1,
				ByIP: map[uint64]uint64{kernel: (addrUnit + 2*perUnit) * LoopInsns}}},
		{"unsynchronised bytes first", encodeRun(250, 10, user, true, false)[3:], loopAt,
			// units 250-255 lack an A-sync; 256 syncs, 257 gives the address
			want{Instructions: (addrUnit + 2*perUnit) * LoopInsns, Branches: addrUnit + 2*perUnit, Tail: perUnit, Starts: 1, TailStretches: 1,
				ByIP: map[uint64]uint64{user: (addrUnit + 2*perUnit) * LoopInsns}}},
	} {
		var tr Trace
		tr.Follow(tc.b, tc.code)
		got := want{tr.Instructions, tr.Branches, tr.Skipped, tr.Tail, tr.Starts, tr.NACC, tr.Errors, tr.TailStretches, tr.ByIP}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestFollowNAtomAndBadPacket: an N atom at a loop is an error (the loop
// would fall into brk) and stops the walk until the next address; a bad
// packet is an error after which the walk resynchronises at the next A-sync.
func TestFollowNAtomAndBadPacket(t *testing.T) {
	b := encodeRun(0, 3, pmu.UserText, true, false)
	b = append(b, 0xf8, 0xff) // atom format 3: N N N, then E E E (no address: skipped)
	b = append(b, 0x0e)       // reserved header
	b = append(b, encodeRun(0, 3, pmu.UserText, true, false)...)
	var tr Trace
	tr.Follow(b, loopAt)
	// each run: 6 atoms in its address unit, 24 in the next
	if tr.Errors != 2 || tr.Skipped != 5 || tr.Branches != 2*30 || tr.Starts != 2 {
		t.Errorf("errors %d (want 2: the first N atom, the reserved header), skipped %d (want 5: two N, three E), branches %d (want 60), starts %d (want 2)",
			tr.Errors, tr.Skipped, tr.Branches, tr.Starts)
	}
}

// FuzzFollow: any bytes follow without a panic; the counts agree with each
// other (LoopInsns per branch, ByIP adds up, the tail within the branches).
func FuzzFollow(f *testing.F) {
	f.Add(encodeRun(0, 4, pmu.UserText, true, false))
	f.Add(append(encodeRun(254, 4, pmu.UserText, true, false), 0x00, 0x05))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x01, 0x00, 0x95, 0x84, 0x01, 0x81, 0x30, 1, 0, 0, 0, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr Trace
		tr.Follow(b, loopAt)
		var sum uint64
		for _, n := range tr.ByIP {
			sum += n
		}
		if tr.Instructions != tr.Branches*LoopInsns || sum != tr.Instructions || tr.Tail > tr.Branches ||
			tr.TailStretches > tr.Starts+tr.NACC+tr.Errors+1 {
			t.Fatalf("inconsistent trace %+v", tr)
		}
	})
}
