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
