package mm

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

type span struct {
	Start, End uint64
	Prot       uint32
	Name       string
	Pgoff      uint64
}

func spans(m *MM) []span {
	var out []span
	for _, v := range m.VMAs {
		out = append(out, span{v.Start, v.End, v.Prot(), v.Name(), v.Pgoff})
	}
	return out
}

// TestMmapMunmap: top-down placement below mmap_base, a hint that is free
// kept, MAP_FIXED over a mapping, MAP_FIXED_NOREPLACE refused, a munmap in the
// middle splits a VMA (the right part's pgoff advanced), and the errnos.
func TestMmapMunmap(t *testing.T) {
	fs := NewFS()
	m := New()
	f := fs.Lookup("/lib/a.so")
	rw := uint64(uapi.PROT_READ | uapi.PROT_WRITE)
	anon := uint64(uapi.MAP_PRIVATE | uapi.MAP_ANONYMOUS)
	a, e := m.Mmap(0, 4*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, f, 0)
	b, e2 := m.Mmap(0, 100, rw, anon, nil, 0)
	c, e3 := m.Mmap(0x10000000, PageSize, rw, anon, nil, 0)
	if e != 0 || e2 != 0 || e3 != 0 {
		t.Fatal(e, e2, e3)
	}
	if got := []uint64{a.Start, b.Start, c.Start}; !cmp.Equal(got, []uint64{MmapBase - 4*PageSize, MmapBase - 5*PageSize, 0x10000000}) {
		t.Errorf("placement %#x", got)
	}
	if _, err := m.Mmap(a.Start, PageSize, rw, anon|uapi.MAP_FIXED_NOREPLACE, nil, 0); err != uapi.EEXIST {
		t.Errorf("MAP_FIXED_NOREPLACE over a mapping: %v, want EEXIST", err)
	}
	if _, err := m.Mmap(a.Start+3*PageSize, PageSize, rw, anon|uapi.MAP_FIXED, nil, 0); err != 0 {
		t.Fatal(err)
	}
	if err := m.Munmap(a.Start+PageSize, PageSize); err != 0 {
		t.Fatal(err)
	}
	want := []span{
		// a private anon VMA's pgoff is its address in pages (do_mmap(): "pgoff = addr >> PAGE_SHIFT")
		{0x10000000, 0x10001000, 3, "//anon", 0x10000000 / PageSize},
		{MmapBase - 5*PageSize, MmapBase - 4*PageSize, 3, "//anon", (MmapBase - 5*PageSize) / PageSize},
		{MmapBase - 4*PageSize, MmapBase - 3*PageSize, 1, "/lib/a.so", 0},
		{MmapBase - 2*PageSize, MmapBase - PageSize, 1, "/lib/a.so", 2},
		{MmapBase - PageSize, MmapBase, 3, "//anon", (MmapBase - PageSize) / PageSize},
		{StackTop - StackSize, StackTop, 3, "[stack]", (StackTop - StackSize) / PageSize},
	}
	if d := cmp.Diff(want, spans(m)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		addr, n, prot, flags uint64
		want                 uapi.Errno
	}{
		{0, 0, rw, anon, uapi.EINVAL},                              // length 0
		{0, PageSize, rw, uapi.MAP_ANONYMOUS, uapi.EINVAL},         // neither shared nor private
		{0x1001, PageSize, rw, anon | uapi.MAP_FIXED, uapi.EINVAL}, // unaligned fixed
	} {
		if _, err := m.Mmap(tc.addr, tc.n, tc.prot, tc.flags, nil, 0); err != tc.want {
			t.Errorf("mmap(%#x, %d, %#x): %v, want %v", tc.addr, tc.n, tc.flags, err, tc.want)
		}
	}
	if err := m.Munmap(0x1001, PageSize); err != uapi.EINVAL {
		t.Errorf("unaligned munmap: %v", err)
	}
}

// TestAccess: the first access of a page faults (anon minor; a file page
// major unless in the page cache, and its fault maps the cached pages
// around it), a second does not; a write to a read-only mapping or an
// access outside any VMA is bad; Dup keeps present anon pages, not the
// file pages of a VMA with no anon_vma.
func TestAccess(t *testing.T) {
	fs := NewFS()
	m := New()
	f := fs.Lookup("/data")
	v, _ := m.Mmap(0, 2*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, f, 0)
	w, _ := m.Mmap(0, PageSize, uapi.PROT_READ|uapi.PROT_WRITE, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS, nil, 0)
	other := New()
	ov, _ := other.Mmap(0, 2*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, f, 0)
	got := []Fault{
		m.Access(v.Start, false), m.Access(v.Start+10, false), m.Access(w.Start, true), m.Access(w.Start, true),
		m.Access(v.Start, true), m.Access(0x1000, false),
		other.Access(ov.Start, false), other.Access(ov.Start+PageSize, false),
	}
	// other's second page: its first fault found the page cache m's
	// major fault read ahead, and mapped both (fault-around).
	want := []Fault{MajorFault, NoFault, MinorFault, NoFault, BadAccess, BadAccess, MinorFault, NoFault}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	child := m.Dup()
	if child.Access(w.Start, false) != NoFault || child.Access(v.Start+PageSize, false) != MinorFault {
		t.Error("the child does not see the parent's anon page as present, or shares its page table")
	}
	if child.Access(w.Start, true) != MinorFault || !m.WriteProtected(w.Start) {
		t.Error("the child's copy-on-write fault changed the parent's PTE")
	}
}

// TestCopyOnWrite: a read fault of a private VMA maps the page read-only, so
// the first write faults again; a fork copies the page tables of VMAs with an
// anon_vma (and only those: a private file VMA only read is faulted in again
// by the child) and write-protects every private page on both sides, so each
// side's first write faults (do_wp_page()) and its second does not; a shared
// VMA is never copy-on-write.
func TestCopyOnWrite(t *testing.T) {
	fs := NewFS()
	m := New()
	rw := uint64(uapi.PROT_READ | uapi.PROT_WRITE)
	anon, _ := m.Mmap(0, 4*PageSize, rw, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS, nil, 0)
	file, _ := m.Mmap(0, 2*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, fs.Lookup("/lib"), 0)
	shared, _ := m.Mmap(0, PageSize, rw, uapi.MAP_SHARED|uapi.MAP_ANONYMOUS, nil, 0)
	p0, p1, p2, p3 := anon.Start, anon.Start+PageSize, anon.Start+2*PageSize, anon.Start+3*PageSize
	type step struct {
		who   string
		addr  uint64
		write bool
	}
	var child *MM
	var got []string
	do := func(steps ...step) {
		for _, st := range steps {
			mm := m
			if st.who == "child" {
				mm = child
			}
			got = append(got, fmt.Sprintf("%s %#x w=%v: %v", st.who, st.addr-anon.Start, st.write, mm.Access(st.addr, st.write)))
		}
	}
	do(step{"parent", p0, true}, step{"parent", p0, true}, // a write fault: writable
		step{"parent", p1, false}, step{"parent", p1, true}, step{"parent", p1, true}, // the zero page, then a copy
		step{"parent", p2, true}, step{"parent", file.Start, false}, step{"parent", shared.Start, true})
	child = m.Dup()
	do(step{"child", p0, false}, step{"child", p0, true}, step{"child", p0, true}, // copied, COW
		step{"parent", p0, true}, step{"parent", p0, true}, // write-protected on the parent's side too
		step{"child", p2, true}, step{"parent", p2, false}, step{"parent", p2, true},
		step{"child", p3, false},                                             // never touched: the zero page
		step{"child", file.Start, false},                                     // no anon_vma: not copied, faulted in again
		step{"child", shared.Start, true}, step{"child", shared.Start, true}) // shared: faulted in, writable
	want := []string{
		"parent 0x0 w=true: minor", "parent 0x0 w=true: none",
		"parent 0x1000 w=false: minor", "parent 0x1000 w=true: minor", "parent 0x1000 w=true: none",
		"parent 0x2000 w=true: minor", fmt.Sprintf("parent %#x w=false: major", file.Start-anon.Start), fmt.Sprintf("parent %#x w=true: minor", shared.Start-anon.Start),
		"child 0x0 w=false: none", "child 0x0 w=true: minor", "child 0x0 w=true: none",
		"parent 0x0 w=true: minor", "parent 0x0 w=true: none",
		"child 0x2000 w=true: minor", "parent 0x2000 w=false: none", "parent 0x2000 w=true: minor",
		"child 0x3000 w=false: minor",
		fmt.Sprintf("child %#x w=false: minor", file.Start-anon.Start),
		fmt.Sprintf("child %#x w=true: minor", shared.Start-anon.Start), fmt.Sprintf("child %#x w=true: none", shared.Start-anon.Start),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("faults (-want +got):\n%s", d)
	}
}

func TestFiles(t *testing.T) {
	fs := NewFS()
	fl := NewFiles(fs)
	fd, _ := fl.Install(fs.Lookup("/x"), uapi.O_RDONLY)
	closeErr := func(fd int64) uapi.Errno { _, err := fl.Close(fd); return err }
	y, _ := fl.Install(fs.Lookup("/y"), uapi.O_RDONLY)
	got := []any{fd, y, closeErr(1), closeErr(1), closeErr(1000), closeErr(-1)}
	z, _ := fl.Install(fs.Lookup("/z"), uapi.O_RDONLY)
	got = append(got, z)
	if d := cmp.Diff([]any{3, 4, uapi.Errno(0), uapi.EBADF, uapi.EBADF, uapi.EBADF, 1}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// anonFile counts get_file() calls, as perf's event counts its file's
// references.
type anonFile struct{ refs int }

func (a *anonFile) GetFile() { a.refs++ }

// TestFdTable: get_unused_fd_flags() takes the lowest free fd, a reserved
// one is taken but fget() finds nothing there until fd_install(), and
// put_unused_fd() frees it; EMFILE at RLIMIT_NOFILE; dup_fd() copies the
// open fds (get_file() on an anon file) but not a reserved one; a
// CLONE_FILES share is the same table.
func TestFdTable(t *testing.T) {
	fs := NewFS()
	fl := NewFiles(fs)
	a := &anonFile{refs: 1}
	r, _ := fl.GetUnusedFd(true)
	if fl.Fget(int64(r)) != nil {
		t.Errorf("fget() of a reserved fd found a file")
	}
	x, _ := fl.Install(fs.Lookup("/x"), uapi.O_RDONLY)
	fl.FdInstall(r, &OpenFile{Anon: a})
	r2, _ := fl.GetUnusedFd(false)
	child := fl.Dup()
	fl.PutUnusedFd(r2)
	r3, _ := fl.GetUnusedFd(false)
	shared := fl.Share()
	v, _ := fl.Fcntl(int64(r), F_GETFD, 0)
	got := []any{r, x, r2, r3, a.refs, child.Fget(int64(r)) != nil, child.Fget(int64(r2)) != nil, shared == fl, fl.Users, child.Users, v}
	if d := cmp.Diff([]any{3, 4, 5, 5, 2, true, false, true, 2, 1, int64(FD_CLOEXEC)}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for i := 6; i < RlimitNofile; i++ {
		if _, err := fl.GetUnusedFd(false); err != 0 {
			t.Fatalf("fd %d: %v", i, err)
		}
	}
	if fd, err := fl.GetUnusedFd(false); err != uapi.EMFILE || fd != -1 {
		t.Errorf("fd %d past RLIMIT_NOFILE: %d, %v; want -1, EMFILE", RlimitNofile, fd, err)
	}
	if f, err := fl.Close(int64(r)); err != 0 || f.Anon != a {
		t.Errorf("close of the anon fd: %v, %v", f, err)
	}
	if fd, _ := fl.GetUnusedFd(false); fd != r {
		t.Errorf("after the close the lowest free fd is %d, want %d", fd, r)
	}
}

// Example: map a file and anon memory, touch them, and see what perf's
// PERF_RECORD_MMAP2 would carry for each mapping.
func Example() {
	fs := NewFS()
	m := New()
	lib, _ := m.Mmap(0, 2*PageSize, uapi.PROT_READ|uapi.PROT_EXEC, uapi.MAP_PRIVATE, fs.Lookup("/usr/lib/libfoo.so"), 0)
	buf, _ := m.Mmap(0, PageSize, uapi.PROT_READ|uapi.PROT_WRITE, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS, nil, 0)
	for _, v := range []*VMA{lib, buf} {
		fmt.Printf("%#x-%#x prot %d flags %d %s: first touch %v, second %v\n",
			v.Start, v.End, v.Prot(), v.MapFlags(), v.Name(), m.Access(v.Start, false), m.Access(v.Start, false))
	}
	// Output:
	// 0x7ffff7ffd000-0x7ffff7fff000 prot 5 flags 2 /usr/lib/libfoo.so: first touch major, second none
	// 0x7ffff7ffc000-0x7ffff7ffd000 prot 3 flags 2 //anon: first touch minor, second none
}

// TestMprotect: the range's VMAs get the new prot, split at its ends; a VMA
// already so is not changed (no MMAP2 for it); a hole is ENOMEM after the
// VMAs before it changed.
func TestMprotect(t *testing.T) {
	fs := NewFS()
	m := New()
	v, _ := m.Mmap(0, 4*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, fs.Lookup("/lib/b.so"), 0)
	base := v.Start
	changed, err := m.Mprotect(base+PageSize, 2*PageSize, uapi.PROT_READ|uapi.PROT_EXEC)
	if err != 0 || len(changed) != 1 || changed[0].Start != base+PageSize || changed[0].End != base+3*PageSize || changed[0].Pgoff != 1 {
		t.Fatalf("mprotect of the middle: %v %+v", err, changed)
	}
	if changed, _ := m.Mprotect(base+PageSize, PageSize, uapi.PROT_READ|uapi.PROT_EXEC); len(changed) != 0 {
		t.Errorf("an unchanged prot changed %d VMAs", len(changed))
	}
	want := []span{
		{base, base + PageSize, 1, "/lib/b.so", 0},
		{base + PageSize, base + 3*PageSize, 5, "/lib/b.so", 1},
		{base + 3*PageSize, base + 4*PageSize, 1, "/lib/b.so", 3},
		{StackTop - StackSize, StackTop, 3, "[stack]", (StackTop - StackSize) / PageSize},
	}
	if d := cmp.Diff(want, spans(m)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	changed, err = m.Mprotect(base+3*PageSize, 2*PageSize, uapi.PROT_NONE)
	if err != uapi.ENOMEM || len(changed) != 1 || m.Find(base+3*PageSize).Prot() != 0 {
		t.Errorf("mprotect over a hole: %v, %d changed", err, len(changed))
	}
	if _, err := m.Mprotect(base+1, PageSize, uapi.PROT_READ); err != uapi.EINVAL {
		t.Errorf("unaligned: %v", err)
	}
}
