package mm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
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
			m.Populate(v, func() sim.Time { return 0 }, func(FaultResult) {})
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

// simulatePopulate runs a case of mm/testdata/populate/workload.c, every
// read done at once: the faults MAP_POPULATE counts (all minor).
func simulatePopulate(raKB, n, pmdoff int, kind string) (minor int) {
	fs := NewFS()
	fs.RAPages = uint64(raKB) * 1024 / PageSize
	m := New()
	var f *File
	if !strings.HasPrefix(kind, "anon") {
		f = fs.Lookup("/var/tmp/populate")
		f.Size = int64(n) * PageSize
		if kind == "hot-ro" {
			h := New()
			v, _ := h.Mmap(0x7e0000000000, uint64(n)*PageSize, uapi.PROT_READ, uapi.MAP_SHARED|uapi.MAP_FIXED, f, 0)
			for a := v.Start; a < v.End; a += PageSize {
				h.Access(a, false)
			}
		}
	}
	prot, flags := uint64(uapi.PROT_READ), uint64(uapi.MAP_PRIVATE|uapi.MAP_FIXED|uapi.MAP_POPULATE)
	if strings.Contains(kind, "rw") || strings.Contains(kind, "shared") {
		prot |= uapi.PROT_WRITE
	}
	if strings.Contains(kind, "shared") {
		flags = uapi.MAP_SHARED | uapi.MAP_FIXED | uapi.MAP_POPULATE
	}
	if f == nil {
		flags |= uapi.MAP_ANONYMOUS
	}
	v, err := m.Mmap(0x7f0000000000+uint64(pmdoff)*PageSize, uint64(n)*PageSize, prot, flags, f, 0)
	if err != 0 {
		panic(err)
	}
	return len(m.Populate(v, func() sim.Time { return 0 }, func(FaultResult) {}))
}

// TestPopulateReal: MAP_POPULATE faults as the real kernel's GUP does in
// every run of mm/testdata/populate/real.txt (6.18, ext4, read_ahead_kb 128
// and 8192; 16, 100 and 1000 pages at the address each run's mapping had):
// one minor fault a page of anon memory (a write's page or the zero page)
// and of a private writable file mapping (each page copied), a file's
// fault-around windows for a read-only or shared one, and never a major
// fault, a cold file's too (a fault that waits for the disk is retried
// afresh, uncounted). A cold read may count up to 3 more on the real disk
// (fault-around skips a folio still being read).
func TestPopulateReal(t *testing.T) {
	inFlight := 0
	runs := realRuns(t, "testdata/populate/real.txt", func(raKB int, line string) {
		var n, pmdoff, minor, major int
		var kind string
		if _, err := fmt.Sscanf(line, "%d %s pmdoff=%d minflt=%d majflt=%d", &n, &kind, &pmdoff, &minor, &major); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got := simulatePopulate(raKB, n, pmdoff, kind)
		if strings.HasPrefix(kind, "cold") && minor > got && minor <= got+3 {
			inFlight++
			t.Logf("%s: the model %d", line, got)
			got = minor
		}
		if d := cmp.Diff([2]int{minor, major}, [2]int{got, 0}); d != "" {
			t.Errorf("read_ahead_kb %d, %s: minor and major faults (-real +model):\n%s", raKB, line, d)
		}
	})
	t.Logf("%d runs, %d cold ones with more faults than the model", runs, inFlight)
	if runs < 100 {
		t.Fatalf("%d runs in real.txt", runs)
	}
}
