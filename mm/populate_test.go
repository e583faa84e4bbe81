package mm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// TestPopulate: MAP_POPULATE faults a mapping in as populate_vma_page_range()
// does: a private writable file mapping with writes (anon copies: the file
// pages stay unmapped, so a DONTNEED can drop them), a read-only one with
// reads (the page cache's pages, mapped read-only), and none past i_size.
func TestPopulate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prot     uint64
		size     int64
		present  int
		mapsFile bool
	}{
		{"private read-only", uapi.PROT_READ, 8 * PageSize, 8, true},
		{"private writable", uapi.PROT_READ | uapi.PROT_WRITE, 8 * PageSize, 8, false},
		{"past EOF", uapi.PROT_READ, 3 * PageSize, 3, true},
		{"inaccessible", uapi.PROT_NONE, 8 * PageSize, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := NewFS()
			f := fs.Lookup("/var/tmp/p")
			f.Size = tc.size
			m := New()
			v, err := m.Mmap(0, 8*PageSize, tc.prot, uapi.MAP_PRIVATE|uapi.MAP_POPULATE, f, 0)
			if err != 0 {
				t.Fatal(err)
			}
			present := 0
			for a := v.Start; a < v.End; a += PageSize {
				if m.Present(a) {
					present++
				}
			}
			got := []any{present, m.MapsFilePage(f, 0), len(f.folios)}
			want := []any{tc.present, tc.mapsFile, tc.present}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("present pages, page 0 mapped from the page cache, pages cached (-want +got):\n%s", d)
			}
		})
	}
}
