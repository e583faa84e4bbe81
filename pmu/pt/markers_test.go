package pt

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/rb"
	"perfsim/uapi"
)

// TestResetMarkers: STOP and INT where pt_buffer_reset_markers() puts them,
// counted in pages and placed on the entry before the one holding the page
// (a 16K area of 4K output regions; aux_head, the free space from
// perf_aux_output_begin()'s CIRC_SPACE, the wakeup point).
func TestResetMarkers(t *testing.T) {
	const size = 16 << 10
	type want struct {
		OK        bool
		Stop, Int uint64
		Flags     uint64
	}
	for _, tc := range []struct {
		name               string
		head, tail, wakeup uint64
		want               want
		proposed           *want // with pt-reset-markers=proposed, when it differs
	}{
		{"empty area", 0, 0, 4 << 10, want{OK: true, Stop: 16 << 10, Int: 4 << 10}, nil},
		// head+size+1 on a page boundary: one more page
		{"free space ends at the area's end", 8<<10 + 100, 0, 12 << 10, want{OK: true, Stop: 16 << 10, Int: 12 << 10}, nil},
		// The free space ends at 18384, inside the region [16K, 20K): the
		// driver stops at 16K, short of it, never past it into unread bytes.
		{"free space ends inside a region", 5000, 2000, 8 << 10, want{OK: true, Stop: 16 << 10, Int: 8 << 10}, nil},
		// INT one page before STOP when the wakeup point is further
		{"wakeup past the stop", 4 << 10, 4 << 10, 40 << 10, want{OK: true, Stop: 20 << 10, Int: 16 << 10}, nil},
		// a wakeup point already behind: INT a lap away, so only STOP interrupts
		{"wakeup behind", 8 << 10, 4 << 10, 4 << 10, want{OK: true, Stop: 20 << 10}, nil},
		// Less than a page of room (0xfff), crossing a page boundary: npages
		// counts the pages of the size alone and drops the carry of the two
		// in-page offsets (0x3001 + 0xfff), so STOP and INT both go on
		// entries behind the hardware, reached a lap later: the output runs
		// over 8K of unread trace before the PMI. Upstream as read (v6.17).
		// The proposed count takes head's page and the room's end page: STOP
		// at 16K, where the room (16K + 1 bytes on) ends, INT on STOP's entry.
		{"carry", 12<<10 + 1, 1, 16 << 10, want{OK: true, Stop: 28 << 10, Int: 24 << 10}, &want{OK: true, Stop: 16 << 10}},
		// "can't stop in the middle of an output region"
		{"less room than the region's rest", 19 << 10, 19<<10 + 1001 - size, 0, want{Flags: uapi.PERF_AUX_FLAG_TRUNCATED}, nil},
	} {
		for _, proposed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/proposed=%v", tc.name, proposed), func(t *testing.T) {
				var pt ptCtx
				pt.handle.Head = tc.head
				pt.handle.Size = (tc.tail - (tc.head + 1)) & (size - 1) // CIRC_SPACE
				pt.handle.Wakeup = tc.wakeup
				buf := &ptBuffer{size: size, region: 4 << 10, hwPos: tc.head}
				ok := resetMarkers(&pt, buf, proposed)
				got := want{OK: ok, Flags: pt.handle.AuxFlags}
				if ok {
					got.Stop, got.Int = buf.stopPos, buf.intPos
				}
				w := tc.want
				if proposed && tc.proposed != nil {
					w = *tc.proposed
				}
				if d := cmp.Diff(w, got); d != "" {
					t.Errorf("head %#x tail %#x size %#x (-want +got):\n%s", tc.head, tc.tail, pt.handle.Size, d)
				}
			})
		}
	}
}

// TestResetMarkersNeverPastTail: wherever aux_head and aux_tail are, the first
// marker (INT or STOP) lies ahead of the hardware and no further than the
// reader's aux_tail a buffer later, so the PMI comes before the output reaches
// unread trace; INT, when placed, comes before STOP. Except, as upstream
// computes it, when the page count falls short into the current region (the
// "carry" case of TestResetMarkers): then STOP is at the start of the current
// region a lap later, past the room unless one region is the whole area.
func TestResetMarkersNeverPastTail(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pages := uint64(1) << rapid.IntRange(1, 6).Draw(t, "log2 pages")
		size := pages * uint64(rb.PageSize)
		region := uint64(rb.PageSize) << rapid.IntRange(0, 2).Draw(t, "log2 region pages")
		region = min(region, size)
		tail := rapid.Uint64Range(0, 1<<30).Draw(t, "tail")
		head := tail + rapid.Uint64Range(0, size-1).Draw(t, "used")
		var pt ptCtx
		pt.handle.Head = head
		pt.handle.Size = (tail - (head + 1)) & (size - 1)
		pt.handle.Wakeup = head + rapid.Uint64Range(0, 2*size).Draw(t, "wakeup ahead")
		buf := &ptBuffer{size: size, region: region, hwPos: head}
		if !resetMarkers(&pt, buf, false) {
			return
		}
		first := buf.stopPos
		if buf.intPos != 0 {
			first = buf.intPos
		}
		// Upstream counts the pages to STOP as head's page plus the size's,
		// dropping the carry of their in-page offsets: one page short of the
		// page that holds the end of the room. That only stops early, unless
		// the page it lands on is in the region the hardware is writing:
		// then STOP (on the entry before) is behind it, a lap away.
		h := &pt.handle
		room := h.Head + h.Size + 1 // tail + size
		short := h.Head/rb.PageSize+h.Size/rb.PageSize < room/rb.PageSize && room%rb.PageSize != 0
		behind := short && (h.Head/rb.PageSize+h.Size/rb.PageSize)*rb.PageSize/region == head/region
		if first <= head || (!behind && first > room) || (behind && buf.stopPos != head/region*region+size) {
			t.Fatalf("INT at %#x, STOP at %#x: head %#x, tail %#x, size %#x (short %v, behind %v)", buf.intPos, buf.stopPos, head, tail, size, short, behind)
		}
		if buf.intPos != 0 && (buf.intPos <= head || buf.intPos >= buf.stopPos) {
			t.Fatalf("INT at %#x, STOP at %#x, head %#x", buf.intPos, buf.stopPos, head)
		}
	})
}

// TestResetMarkersProposedNeverPastTail: with the proposed page count
// (pt-reset-markers=proposed) there is no exception left: wherever aux_head
// and aux_tail are and whatever the region size, the first marker lies ahead
// of the hardware and at or before the room's end (aux_tail + the area's
// size), and INT, when placed, comes before STOP.
func TestResetMarkersProposedNeverPastTail(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pages := uint64(1) << rapid.IntRange(1, 6).Draw(t, "log2 pages")
		size := pages * uint64(rb.PageSize)
		region := uint64(rb.PageSize) << rapid.IntRange(0, 2).Draw(t, "log2 region pages")
		region = min(region, size)
		tail := rapid.Uint64Range(0, 1<<30).Draw(t, "tail")
		head := tail + rapid.Uint64Range(0, size-1).Draw(t, "used")
		var pt ptCtx
		pt.handle.Head = head
		pt.handle.Size = (tail - (head + 1)) & (size - 1)
		pt.handle.Wakeup = head + rapid.Uint64Range(0, 2*size).Draw(t, "wakeup ahead")
		buf := &ptBuffer{size: size, region: region, hwPos: head}
		if !resetMarkers(&pt, buf, true) {
			return
		}
		first := buf.stopPos
		if buf.intPos != 0 {
			first = buf.intPos
		}
		room := head + pt.handle.Size + 1 // tail + size
		if first <= head || first > room || buf.stopPos > room {
			t.Fatalf("INT at %#x, STOP at %#x: head %#x, tail %#x, size %#x, region %#x", buf.intPos, buf.stopPos, head, tail, size, region)
		}
		if buf.intPos != 0 && (buf.intPos <= head || buf.intPos >= buf.stopPos) {
			t.Fatalf("INT at %#x, STOP at %#x, head %#x", buf.intPos, buf.stopPos, head)
		}
	})
}
