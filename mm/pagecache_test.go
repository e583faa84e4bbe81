package mm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestPrevMiss: page_cache_prev_miss() looks at index itself first, then
// below it, maxScan pages in all: the first page not cached, else the last
// it looked at (index-maxScan+1), else ULONG_MAX past page 0.
func TestPrevMiss(t *testing.T) {
	f := &File{folios: map[uint64]*folio{}}
	for i := uint64(0); i < 40; i++ {
		if i != 5 {
			f.folios[i] = &folio{index: i}
		}
	}
	for _, tc := range []struct {
		index, maxScan, want uint64
	}{
		{39, 32, 8},        // 39 down to 8 all cached: the last looked at, 8 (index-maxScan+1; was 7)
		{39, 35, 5},        // 39 down to 5: 5 is the miss
		{20, 32, 5},        // the miss within the scan
		{5, 4, 5},          // index itself missing
		{4, 5, 0},          // 4 down to 0, all cached: 0
		{4, 6, ^uint64(0)}, // and one more step: past page 0
		{45, 3, 45},        // beyond the cached range: index
		{39, 0, 39},        // no scan: index
	} {
		if got := f.prevMiss(tc.index, tc.maxScan); got != tc.want {
			t.Errorf("prevMiss(%d, %d) = %d, want %d", tc.index, tc.maxScan, got, tc.want)
		}
	}
}

// TestAsyncRAWriteback: a reader reaching a PG_readahead folio still under
// writeback reads nothing ahead and leaves the mark (page_cache_async_ra():
// folio_test_writeback(), the bit PG_reclaim shares); once written back the
// next window is read.
func TestAsyncRAWriteback(t *testing.T) {
	fs := NewFS()
	f := fs.Lookup("/var/tmp/f")
	f.Size = 1024 * PageSize
	ra := NewReadAhead(fs)
	fo := &folio{index: 31, readahead: true, writeback: 100}
	f.folios[31] = fo
	type state struct {
		Marked bool
		Cached int
	}
	var got []state
	for _, now := range []int64{50, 150} {
		f.asyncRA(ra, fo, 31, 32, sim.Time(now))
		got = append(got, state{fo.readahead, len(f.folios)})
	}
	if d := cmp.Diff([]state{{true, 1}, {false, 1 + 32}}, got); d != "" {
		t.Errorf("mark and pages cached at 50 (writeback until 100) and 150 (-want +got):\n%s", d)
	}
}
