package mm

import (
	"testing"

	"pgregory.net/rapid"

	"perfsim/uapi"
)

// TestAddressSpaceProperties: under any sequence of mmap, munmap and
// accesses, the VMAs stay sorted, page-aligned and disjoint; an access
// faults at most once per page until that page is unmapped; an address no
// VMA holds is a bad access; Dup gives an equal, independent copy.
func TestAddressSpaceProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		fs := NewFS()
		m := New()
		faulted := map[uint64]bool{}
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for i := 0; i < steps; i++ {
			switch rapid.IntRange(0, 3).Draw(rt, "op") {
			case 3:
				at := MmapBase - uint64(rapid.IntRange(1, 32).Draw(rt, "at"))*PageSize
				n := uint64(rapid.IntRange(1, 8).Draw(rt, "n")) * PageSize
				_, _ = m.Mprotect(at, n, uapi.PROT_READ|uapi.PROT_WRITE|uint64(rapid.IntRange(0, 1).Draw(rt, "x"))*uapi.PROT_EXEC)
			case 0:
				pages := uint64(rapid.IntRange(1, 8).Draw(rt, "pages"))
				flags := uint64(uapi.MAP_PRIVATE | uapi.MAP_ANONYMOUS)
				var f *File
				if rapid.Bool().Draw(rt, "file") {
					f, flags = fs.Lookup("/f"+string(rune('a'+rapid.IntRange(0, 2).Draw(rt, "name")))), uapi.MAP_PRIVATE
				}
				addr := uint64(0)
				if rapid.Bool().Draw(rt, "fixed") {
					addr = MmapBase - uint64(rapid.IntRange(1, 32).Draw(rt, "at"))*PageSize
					flags |= uapi.MAP_FIXED
				}
				if _, err := m.Mmap(addr, pages*PageSize, uapi.PROT_READ|uapi.PROT_WRITE, flags, f, 0); err != 0 {
					rt.Fatalf("mmap: %v", err)
				}
				if flags&uapi.MAP_FIXED != 0 {
					for a := addr; a < addr+pages*PageSize; a += PageSize {
						delete(faulted, a)
					}
				}
			case 1:
				at := MmapBase - uint64(rapid.IntRange(1, 32).Draw(rt, "at"))*PageSize
				n := uint64(rapid.IntRange(1, 8).Draw(rt, "n")) * PageSize
				if err := m.Munmap(at, n); err != 0 {
					rt.Fatalf("munmap: %v", err)
				}
				for a := at; a < at+n; a += PageSize {
					delete(faulted, a)
				}
			case 2:
				a := MmapBase - uint64(rapid.IntRange(1, 32).Draw(rt, "at"))*PageSize + 8
				r := m.Access(a, true)
				page := a &^ (PageSize - 1)
				switch {
				case m.Find(a) == nil && r != BadAccess:
					rt.Fatalf("access to unmapped %#x: %v", a, r)
				case r == MinorFault || r == MajorFault:
					if faulted[page] {
						rt.Fatalf("page %#x faulted twice", page)
					}
					faulted[page] = true
				case r == NoFault && !faulted[page]:
					rt.Fatalf("page %#x present without a fault", page)
				}
			}
			for j, v := range m.VMAs {
				if v.Start%PageSize != 0 || v.End%PageSize != 0 || v.Start >= v.End {
					rt.Fatalf("bad VMA %#x-%#x", v.Start, v.End)
				}
				if j > 0 && m.VMAs[j-1].End > v.Start {
					rt.Fatalf("VMAs overlap or are out of order: %#x-%#x, %#x-%#x", m.VMAs[j-1].Start, m.VMAs[j-1].End, v.Start, v.End)
				}
			}
		}
		c := m.Dup()
		if len(c.VMAs) != len(m.VMAs) {
			rt.Fatalf("Dup: %d VMAs, want %d", len(c.VMAs), len(m.VMAs))
		}
		if len(c.VMAs) > 0 {
			c.VMAs[0].Start++
			if m.VMAs[0].Start == c.VMAs[0].Start {
				rt.Fatal("Dup shares VMAs with the parent")
			}
		}
	})
}

// TestPageCacheProperties: under any mix of reads and writes of file
// mappings (private and shared, at any place in a page table, of a file
// of any size, with any read_ahead_kb), the page cache stays a set of
// disjoint folios each naming itself at every page it holds; every page a
// file mapping has a PTE for is cached (a read maps only cached pages, a
// write reads the page before copying it); an access past i_size is
// SIGBUS and one before it never is; a page with a PTE never faults on a
// read; a read pass over a cached file faults at most once per page.
func TestPageCacheProperties(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		fs := NewFS()
		fs.RAPages = uint64(rapid.SampledFrom([]int{0, 1, 4, 32, 2048}).Draw(rt, "ra_pages"))
		f := fs.Lookup("/f")
		size := uint64(rapid.IntRange(1, 300).Draw(rt, "pages"))
		f.Size = int64(size) * PageSize
		m := New()
		var vmas []*VMA
		for i, n := 0, rapid.IntRange(1, 3).Draw(rt, "mappings"); i < n; i++ {
			flags := uint64(uapi.MAP_PRIVATE)
			if rapid.Bool().Draw(rt, "shared") {
				flags = uapi.MAP_SHARED
			}
			off := uint64(rapid.IntRange(0, int(size)-1).Draw(rt, "pgoff"))
			pages := uint64(rapid.IntRange(1, int(size-off)+8).Draw(rt, "len"))
			at := uint64(0x7f0000000000) + uint64(i)<<30 + uint64(rapid.IntRange(0, 511).Draw(rt, "pmdoff"))*PageSize
			v, err := m.Mmap(at, pages*PageSize, uapi.PROT_READ|uapi.PROT_WRITE, flags|uapi.MAP_FIXED, f, off*PageSize)
			if err != 0 {
				rt.Fatalf("mmap: %v", err)
			}
			vmas = append(vmas, v)
		}
		for i, n := 0, rapid.IntRange(1, 200).Draw(rt, "accesses"); i < n; i++ {
			v := vmas[rapid.IntRange(0, len(vmas)-1).Draw(rt, "vma")]
			addr := v.Start + uint64(rapid.IntRange(0, int(v.Len()/PageSize)-1).Draw(rt, "page"))*PageSize
			write := rapid.Bool().Draw(rt, "write")
			present := m.Present(addr)
			r := m.Access(addr, write)
			past := v.pgoffOf(addr) >= size
			switch {
			case past != (r == BadAccess):
				rt.Fatalf("access at pgoff %d of a %d-page file: %v", v.pgoffOf(addr), size, r)
			case present && !write && r != NoFault:
				rt.Fatalf("a read of a page with a PTE faulted: %v", r)
			}
		}
		for pg, fo := range f.folios {
			if pg < fo.index || pg >= fo.next() {
				rt.Fatalf("page %d holds folio %d+%d", pg, fo.index, fo.pages())
			}
			for p := fo.index; p < fo.next(); p++ {
				if f.folios[p] != fo {
					rt.Fatalf("folio %d+%d: page %d holds another", fo.index, fo.pages(), p)
				}
			}
			if fo.next() > size {
				rt.Fatalf("folio %d+%d past EOF (%d pages)", fo.index, fo.pages(), size)
			}
		}
		for _, v := range vmas {
			for a := v.Start; a < v.End; a += PageSize {
				if m.Present(a) && f.lookup(v.pgoffOf(a)) == nil {
					rt.Fatalf("pgoff %d has a PTE and no page cache page", v.pgoffOf(a))
				}
			}
		}
		// a read pass over a fresh private mapping of the (now partly
		// cached) file faults at most once per page
		v, _ := m.Mmap(0x7e0000000000, size*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE|uapi.MAP_FIXED, f, 0)
		faults := 0
		for a := v.Start; a < v.End; a += PageSize {
			if m.Access(a, false) != NoFault {
				faults++
			}
		}
		if faults > int(size) || faults == 0 {
			rt.Fatalf("a read pass over %d pages faulted %d times", size, faults)
		}
	})
}
