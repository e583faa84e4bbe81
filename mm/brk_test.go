package mm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/uapi"
)

// TestBrk: the heap grows from start_brk, a second grow extends the same
// VMA, each report's name is what perf_event_mmap_event() gives at the time
// (//anon for the first, [heap] after), a shrink unmaps, a request below
// start_brk or into the next mapping returns the old break.
func TestBrk(t *testing.T) {
	m := New()
	m.SetBrk(ImageBase + 5*PageSize + 100) // page-aligned up
	start := uint64(ImageBase + 6*PageSize)
	type step struct {
		Ret          uint64
		Reported     bool
		Start, End   uint64
		NameAtReport string
		NameAfter    string
		HeapVMAs     int
	}
	var got []step
	do := func(brk uint64) {
		ret, v := m.Brk(brk)
		s := step{Ret: ret, Reported: v != nil}
		if v != nil {
			s.Start, s.End, s.NameAtReport = v.Start, v.End, v.Name()
			m.NameHeap(v)
			s.NameAfter = v.Name()
		}
		for _, x := range m.VMAs {
			if x.Start >= start && x.End <= start+64*PageSize {
				s.HeapVMAs++
			}
		}
		got = append(got, s)
	}
	do(start + 0x10000)     // grow: a new VMA, reported as //anon, then [heap]
	do(start + 0x18000 - 1) // grow again: the same VMA, [heap]
	do(start + 0x8000)      // shrink: unmapped, no report
	do(start - PageSize)    // below start_brk: the old break
	m.Mmap(start+0x20000, PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS|uapi.MAP_FIXED, nil, 0)
	do(start + 0x20000) // no guard page left before the mapping (newbrk + PAGE_SIZE > vm_start): refused
	want := []step{
		{Ret: start + 0x10000, Reported: true, Start: start, End: start + 0x10000, NameAtReport: "//anon", NameAfter: "[heap]", HeapVMAs: 1},
		{Ret: start + 0x18000 - 1, Reported: true, Start: start, End: start + 0x18000, NameAtReport: "[heap]", NameAfter: "[heap]", HeapVMAs: 1},
		{Ret: start + 0x8000, HeapVMAs: 1},
		{Ret: start + 0x8000, HeapVMAs: 1},
		{Ret: start + 0x8000, HeapVMAs: 2},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("brk steps (-want +got):\n%s", diff)
	}
}

// TestMadviseMremap: MADV_DONTNEED drops pages (the next access faults
// again, minor); mremap grows in place, moves with MREMAP_MAYMOVE taking
// its present pages along, shrinks by unmapping the tail, and refuses what
// it does not model.
func TestMadviseMremap(t *testing.T) {
	m := New()
	v, _ := m.Mmap(0, 2*PageSize, uapi.PROT_READ|uapi.PROT_WRITE, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS, nil, 0)
	a := v.Start
	var got []string
	note := func(format string, f Fault) { got = append(got, format+": "+f.String()) }
	note("first touch", m.Access(a, true))
	note("second touch", m.Access(a, true))
	if err := m.Madvise(a, PageSize, uapi.MADV_DONTNEED, 0); err != 0 {
		t.Fatal(err)
	}
	note("after MADV_DONTNEED", m.Access(a, true))
	if err := m.Madvise(a, PageSize, 12345, 0); err != uapi.EINVAL {
		t.Errorf("madvise bad advice: %v, want EINVAL", err)
	}
	// a mapping right above blocks growth in place
	m.Mmap(a+2*PageSize, PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS|uapi.MAP_FIXED, nil, 0)
	if _, err := m.Mremap(a, 2*PageSize, 4*PageSize, 0, 0); err != uapi.ENOMEM {
		t.Errorf("mremap grow without MAYMOVE: %v, want ENOMEM", err)
	}
	to, err := m.Mremap(a, 2*PageSize, 4*PageSize, uapi.MREMAP_MAYMOVE, 0)
	if err != 0 || to == a {
		t.Fatalf("mremap MAYMOVE = %#x, %v", to, err)
	}
	note("old address after the move", m.Access(a, true))
	note("moved page", m.Access(to, true))
	note("new page", m.Access(to+3*PageSize, true))
	if r, err := m.Mremap(to, 4*PageSize, PageSize, 0, 0); r != to || err != 0 {
		t.Errorf("mremap shrink = %#x, %v", r, err)
	}
	note("after the shrink", m.Access(to+PageSize, true))
	if _, err := m.Mremap(to, PageSize, 2*PageSize, uapi.MREMAP_DONTUNMAP|uapi.MREMAP_MAYMOVE, 0); err != uapi.EINVAL {
		t.Errorf("MREMAP_DONTUNMAP: %v, want EINVAL", err)
	}
	want := []string{"first touch: minor", "second touch: none", "after MADV_DONTNEED: minor",
		"old address after the move: bad", "moved page: none", "new page: minor", "after the shrink: bad"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCloseOnExec: O_CLOEXEC and F_SETFD mark fds; do_close_on_exec()
// closes exactly those; F_GETFD reads the flag; a forked copy keeps it.
func TestCloseOnExec(t *testing.T) {
	fs := NewFS()
	fl := NewFiles(fs)
	a, _ := fl.Install(fs.Lookup("/a"), uapi.O_RDONLY|uapi.O_CLOEXEC) // open(O_CLOEXEC)
	b, _ := fl.Install(fs.Lookup("/b"), uapi.O_RDONLY)
	c, _ := fl.Install(fs.Lookup("/c"), uapi.O_RDONLY)
	if _, err := fl.Fcntl(int64(c), F_SETFD, FD_CLOEXEC); err != 0 {
		t.Fatal(err)
	}
	var got []int64
	for _, fd := range []int{a, b, c} {
		v, _ := fl.Fcntl(int64(fd), F_GETFD, 0)
		got = append(got, v)
	}
	child := fl.Dup()
	n := len(fl.CloseOnExec())
	open := func(f *Files) []bool {
		return []bool{f.Get(int64(a)) != nil, f.Get(int64(b)) != nil, f.Get(int64(c)) != nil}
	}
	if diff := cmp.Diff([]int64{1, 0, 1}, got); diff != "" {
		t.Errorf("F_GETFD (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, true, false}, open(fl)); n != 2 || diff != "" {
		t.Errorf("after exec: closed %d, open (-want +got):\n%s", n, diff)
	}
	child.CloseOnExec()
	if diff := cmp.Diff([]bool{false, true, false}, open(child)); diff != "" {
		t.Errorf("the forked copy after its exec (-want +got):\n%s", diff)
	}
	if _, err := fl.Fcntl(int64(a), F_GETFD, 0); err != uapi.EBADF {
		t.Errorf("F_GETFD on a closed fd: %v, want EBADF", err)
	}
}
