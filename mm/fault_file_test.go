package mm

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
	"perfsim/uapi"
)

// fileFaultCase is one run of mm/testdata/filefaults/workload.c: a file of
// n pages mapped privately at pmdoff pages into a page table, each page
// touched once in order, the faults counted.
type fileFaultCase struct {
	raKB, n, pmdoff int
	mode            string // c|s|h (cold, sparse, hot) then r|w
	order, advice   string // seq|rand, normal|random|sequential ("": seq, normal)
}

// simulateFileFaults runs c on the model: a file of n pages (uncached for
// c and s; cached page by page, as write(2) leaves it, for h) on a device
// with read_ahead_kb c.raKB.
func simulateFileFaults(c fileFaultCase) (minor, major int) {
	fs := NewFS()
	fs.RAPages = uint64(c.raKB) * 1024 / PageSize
	f := fs.Lookup("/var/tmp/filefaults")
	f.Size = int64(c.n) * PageSize
	if c.mode[0] == 'h' {
		for i := 0; i < c.n; i++ {
			f.cache(uint64(i))
		}
	}
	m := New()
	prot, write := uint64(uapi.PROT_READ), c.mode[1] == 'w'
	if write {
		prot |= uapi.PROT_WRITE
	}
	base := uint64(0x7f0000000000) + uint64(c.pmdoff)*PageSize
	v, err := m.Mmap(base, uint64(c.n)*PageSize, prot, uapi.MAP_PRIVATE|uapi.MAP_FIXED, f, 0)
	if err != 0 {
		panic(err)
	}
	switch c.advice {
	case "random":
		m.Madvise(v.Start, v.Len(), uapi.MADV_RANDOM, 0)
	case "sequential":
		m.Madvise(v.Start, v.Len(), uapi.MADV_SEQUENTIAL, 0)
	}
	pgs := inOrder(c.n)
	if c.order == "rand" {
		for i := range pgs {
			pgs[i] = uint64(i * 7919 % c.n)
		}
	}
	return countFaults(m, v, pgs, write)
}

// TestFileFaultsReal: the model's fault-around, read-around, async
// readahead, large folios, mmap_miss and MADV_RANDOM and MADV_SEQUENTIAL
// fault exactly as often as the real kernel in every run of
// mm/testdata/filefaults/real.txt (6.18, ext4, read_ahead_kb 128 and 8192:
// files of 16 to 3000 pages, cold, sparse and cached, read and written in
// order and at random, at the address each run's mapping had in its page
// table), but for a cold file's read (a file written, then dropped from the
// cache) that may fault a few times more on the real disk: the model's
// readahead is read at once, and a real async window's I/O can still be in
// flight when the reader reaches it, so fault-around skips its locked
// folios (1 of the 30 cold reads here: 3000 pages at read_ahead_kb 8192,
// 190 minor faults against 187; a sparse file's holes need no I/O, and its
// reads are exact). The runs found a detail of the kernel's: a large folio
// that holds the file's last page is not mapped whole by fault-around.
func TestFileFaultsReal(t *testing.T) {
	inFlight := 0
	runs := realRuns(t, "testdata/filefaults/real.txt", func(raKB int, line string) {
		var c fileFaultCase
		var minor, major int
		if _, err := fmt.Sscanf(line, "%d %s pmdoff=%d minflt=%d majflt=%d", &c.n, &c.mode, &c.pmdoff, &minor, &major); err != nil {
			if _, err := fmt.Sscanf(line, "%d %s %s %s pmdoff=%d minflt=%d majflt=%d", &c.n, &c.mode, &c.order, &c.advice, &c.pmdoff, &minor, &major); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
		}
		c.raKB = raKB
		gotMinor, gotMajor := simulateFileFaults(c)
		if c.mode == "cr" && minor > gotMinor && minor <= gotMinor+3 {
			inFlight++
			gotMinor = minor
		}
		if d := cmp.Diff([2]int{minor, major}, [2]int{gotMinor, gotMajor}); d != "" {
			t.Errorf("read_ahead_kb %d, %s: minor and major faults (-real +model):\n%s", raKB, line, d)
		}
	})
	t.Logf("%d runs, %d cold reads with more faults than the model", runs, inFlight)
	if runs < 100 || inFlight > 2 {
		t.Fatalf("%d runs in real.txt, %d cold reads with more faults than the model", runs, inFlight)
	}
}

// raWindow is a readahead window as f_ra holds it, and the pages its read
// marked PG_readahead.
type raWindow struct {
	Start, Size, Async uint64
	Order              uint
	Marks              []uint64
}

// TestReadaheadWindows: the windows a sequential reader's faults read at
// read_ahead_kb 128 (32 pages), by the kernel's arithmetic: the major
// fault at page 0 reads around it (start max(0, 0-16), 32 pages, 8 async:
// the mark at 24, order 0); each fault on a mark reads the next window
// (page_cache_async_ra(): index == expected, so start += size, size
// get_next_ra_size() = max 32, async = size, so the mark is the window's
// first folio), its folios two orders larger each time up to ilog2(size);
// a file's end clips the last window's folio order. At 8192 KB a file of
// 1000 pages is read whole by the first window, its mark (1536) past EOF
// unset.
func TestReadaheadWindows(t *testing.T) {
	marks := func(f *File) []uint64 {
		var out []uint64
		for pg, fo := range f.folios {
			if fo.readahead && pg == fo.index {
				out = append(out, pg)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name  string
		raKB  int
		pages int64
		want  []raWindow
	}{
		{"128 KB, 1000 pages", 128, 1000, []raWindow{
			{0, 32, 8, 0, []uint64{24}},
			{32, 32, 32, 2, []uint64{32}},
			{64, 32, 32, 4, []uint64{64}},
			{96, 32, 32, 5, []uint64{96}},
			{128, 32, 32, 5, []uint64{128}},
		}},
		{"128 KB, 100 pages: the last window's folios clipped at EOF", 128, 100, []raWindow{
			{0, 32, 8, 0, []uint64{24}},
			{32, 32, 32, 2, []uint64{32}},
			{64, 32, 32, 4, []uint64{64}},
			{96, 32, 32, 5, []uint64{96}},
			{128, 32, 32, 5, nil},
		}},
		{"8192 KB, 1000 pages: one window, no mark", 8192, 1000, []raWindow{
			{0, 2048, 512, 0, nil},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := NewFS()
			fs.RAPages = uint64(tc.raKB) * 1024 / PageSize
			f := fs.Lookup("/f")
			f.Size = tc.pages * PageSize
			m := New()
			v, _ := m.Mmap(0, uint64(tc.pages)*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, f, 0)
			ra := v.readAhead()
			var got []raWindow
			seen := map[uint64]bool{}
			for pg := uint64(0); pg < uint64(tc.pages); pg++ {
				m.Access(v.addrOf(pg), false)
				if !seen[ra.start] && len(got) < len(tc.want) {
					seen[ra.start] = true
					var ms []uint64
					for _, mk := range marks(f) {
						if mk >= ra.start {
							ms = append(ms, mk)
						}
					}
					got = append(got, raWindow{ra.start, ra.size, ra.asyncSize, ra.order, ms})
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("windows (-want +got):\n%s", d)
			}
			for pg := int64(0); pg < tc.pages; pg++ {
				if !m.Present(v.addrOf(uint64(pg))) {
					t.Fatalf("page %d not mapped after the pass", pg)
				}
			}
		})
	}
}

// TestFileTruncate: ftruncate() sets i_size: a fault at or past it is
// SIGBUS (a bad access), the pages cached past a shrink are dropped, and
// O_TRUNC's 0 leaves no page to fault; ZapPastEOF zaps the PTEs a mapping
// (a forked child's too) had past the new size, so an access there is
// SIGBUS as well.
func TestFileTruncate(t *testing.T) {
	fs := NewFS()
	f := fs.Lookup("/f")
	f.Truncate(3 * PageSize)
	m := New()
	v, _ := m.Mmap(0, 8*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, f, 0)
	got := []Fault{m.Access(v.Start, false), m.Access(v.Start+2*PageSize, false), m.Access(v.Start+3*PageSize, false)}
	if d := cmp.Diff([]Fault{MajorFault, NoFault, BadAccess}, got); d != "" {
		t.Errorf("faults in and past a 3-page file (-want +got):\n%s", d)
	}
	f.Truncate(PageSize)
	m.ZapPastEOF(f)
	if f.lookup(0) == nil || f.lookup(1) != nil || f.lookup(2) != nil {
		t.Error("a shrink to 1 page kept pages past it, or dropped page 0")
	}
	if m.Access(v.Start+2*PageSize, false) != BadAccess {
		t.Error("page 2, mapped before the shrink to 1 page, did not fault SIGBUS")
	}
	child := m.Dup()
	child.Access(v.Start, false) // the child maps page 0 itself (Dup copies no PTE of this VMA)
	f.Truncate(0)
	m.ZapPastEOF(f)
	child.ZapPastEOF(f)
	if len(f.folios) != 0 || m.Access(v.Start, false) != BadAccess || child.Access(v.Start, false) != BadAccess {
		t.Error("a file truncated to 0 kept pages, or an access to a page mapped before was not SIGBUS (parent, child)")
	}
}

// TestSharedFileWrite: a shared writable mapping's read fault maps the
// page read-only, so the first write faults again (wp_page_shared()), the
// second does not; a write fault of a page with no PTE maps it writable
// (do_shared_fault()); neither gives the VMA an anon_vma. The handlers
// are the ones the cost model charges.
func TestSharedFileWrite(t *testing.T) {
	fs := NewFS()
	f := fs.Lookup("/f")
	for i := uint64(0); i < 32; i++ {
		f.cache(i)
	}
	m := New()
	v, _ := m.Mmap(0, 32*PageSize, uapi.PROT_READ|uapi.PROT_WRITE, uapi.MAP_SHARED, f, 0)
	type res struct {
		F Fault
		H How
	}
	a := func(addr uint64, write bool) res { fl, h := m.AccessHow(addr, write); return res{fl, h} }
	got := []res{a(v.Start, false), a(v.Start, true), a(v.Start, true), a(v.Start+20*PageSize, true), a(v.Start+20*PageSize, true)}
	want := []res{{MinorFault, HowFileMap}, {MinorFault, HowWriteable}, {NoFault, 0}, {MinorFault, HowFileMap}, {NoFault, 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if v.anon {
		t.Error("a shared mapping got an anon_vma")
	}
}

// TestThpAlignedMmap: where the top-down search puts a mapping: a file
// mapping of 2 MB or more (past its first 2 MB-aligned offset) so that
// its file offset and its address agree modulo 2 MB (measured here: a 4 MB
// ext4 mapping at offset 0 starts on a 2 MB boundary), a private anon
// mapping whose length is a multiple of 2 MB on a boundary, and neither
// a smaller one nor one whose length is not (the search's own page
// alignment).
func TestThpAlignedMmap(t *testing.T) {
	const mb = 1 << 20
	fs := NewFS()
	f := fs.Lookup("/f")
	for _, tc := range []struct {
		name      string
		length    uint64
		flags     uint64
		file      *File
		off       uint64
		wantAlign bool // (addr - off) % 2 MB == 0
	}{
		{"file 4 MB", 4 * mb, uapi.MAP_PRIVATE, f, 0, true},
		{"file 4 MB at offset 4 KB", 4 * mb, uapi.MAP_SHARED, f, PageSize, true},
		{"anon 4 MB", 4 * mb, uapi.MAP_PRIVATE | uapi.MAP_ANONYMOUS, nil, 0, true},
		{"anon 4096000 bytes", 4096000, uapi.MAP_PRIVATE | uapi.MAP_ANONYMOUS, nil, 0, false},
		{"file 1 MB", mb, uapi.MAP_PRIVATE, f, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New()
			m.Mmap(0, 3*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE|uapi.MAP_ANONYMOUS, nil, 0) // the search's top moved off a boundary
			v, err := m.Mmap(0, tc.length, uapi.PROT_READ, tc.flags, tc.file, tc.off)
			if err != 0 {
				t.Fatal(err)
			}
			if aligned := (v.Start-tc.off)%pmdSize == 0; aligned != tc.wantAlign {
				t.Errorf("mapped at %#x (offset %#x): aligned %v, want %v", v.Start, tc.off, aligned, tc.wantAlign)
			}
		})
	}
}

// TestMadviseReadHints: MADV_RANDOM and MADV_SEQUENTIAL set the read hint
// of the VMAs in their range, splitting a VMA at the range's ends;
// MADV_NORMAL clears it; a range with a hole sets what it can and fails
// with ENOMEM.
func TestMadviseReadHints(t *testing.T) {
	fs := NewFS()
	m := New()
	v, _ := m.Mmap(0, 8*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE, fs.Lookup("/f"), 0)
	start := v.Start
	hints := func() []VMFlags {
		var out []VMFlags
		for _, v := range m.VMAs {
			if v.File != nil {
				out = append(out, v.Flags&(VM_RAND_READ|VM_SEQ_READ))
			}
		}
		return out
	}
	if err := m.Madvise(start+2*PageSize, 3*PageSize, uapi.MADV_RANDOM, 0); err != 0 {
		t.Fatal(err)
	}
	if d := cmp.Diff([]VMFlags{0, VM_RAND_READ, 0}, hints()); d != "" {
		t.Errorf("MADV_RANDOM of pages 2-4 (-want +got):\n%s", d)
	}
	m.Madvise(start, 8*PageSize, uapi.MADV_SEQUENTIAL, 0)
	if d := cmp.Diff([]VMFlags{VM_SEQ_READ, VM_SEQ_READ, VM_SEQ_READ}, hints()); d != "" {
		t.Errorf("MADV_SEQUENTIAL of the whole (-want +got):\n%s", d)
	}
	m.Munmap(start+PageSize, PageSize)
	if err := m.Madvise(start, 8*PageSize, uapi.MADV_NORMAL, 0); err != uapi.ENOMEM {
		t.Errorf("MADV_NORMAL over a hole: %v, want ENOMEM", err)
	}
	for _, h := range hints() {
		if h != 0 {
			t.Errorf("MADV_NORMAL left hints %v", hints())
			break
		}
	}
}

// TestMmapMiss: a file whose faults have missed more than MMAP_LOTSAMISS
// times more than fault-around found pages cached reads nothing around its
// next miss (the page alone); every cached page fault-around meets, mapped
// or not, brings the count down again.
func TestMmapMiss(t *testing.T) {
	fs := NewFS()
	f := fs.Lookup("/f")
	m := New()
	v, _ := m.Mmap(0x7f0000000000, 64*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE|uapi.MAP_FIXED, f, 0) // 64 KB-aligned: page 1's window is pages 0-15
	ra := v.readAhead()
	ra.mmapMiss = mmapLotsAMiss
	// the miss takes it to 101 and reads page 0 alone; the retry's
	// fault-around finds page 0: 100
	if m.Access(v.Start, false) != MajorFault || len(f.folios) != 1 || ra.mmapMiss != mmapLotsAMiss {
		t.Fatalf("a miss past MMAP_LOTSAMISS: %d pages cached, mmap_miss %d; want 1 and %d", len(f.folios), ra.mmapMiss, mmapLotsAMiss)
	}
	for i := uint64(1); i < 4; i++ {
		f.cache(i)
	}
	m.Access(v.Start+PageSize, false) // fault-around finds pages 0-3 cached: 4 hits
	if ra.mmapMiss != mmapLotsAMiss-4 {
		t.Errorf("mmap_miss %d after 4 hits, want %d", ra.mmapMiss, mmapLotsAMiss-4)
	}
	ra.mmapMiss = 0
	m.Access(v.Start+8*PageSize, false)
	if len(f.folios) < 32 {
		t.Errorf("a miss under MMAP_LOTSAMISS read %d pages, want a read-around", len(f.folios))
	}
}

// TestDiskReadTiming: with a disk that takes time, a major fault is
// retried when the read-around it submitted is done (latency + its pages'
// transfer); a fault on a marked folio submits the next window and is
// retried at once; fault-around skips a folio still being read, and a
// fault on one waits for it and retries, a minor fault; a read submitted
// while the disk transfers another starts its transfer after it.
func TestDiskReadTiming(t *testing.T) {
	const lat, per = 100 * sim.Microsecond, sim.Microsecond
	fs := NewFS() // read_ahead_kb 128: 32 pages
	fs.ReadLatency, fs.ReadPerPage = lat, per
	f := fs.Lookup("/f")
	m := New()
	v, _ := m.Mmap(0x7f0000000000, 256*PageSize, uapi.PROT_READ, uapi.MAP_PRIVATE|uapi.MAP_FIXED, f, 0)
	page := func(i uint64) uint64 { return v.Start + i*PageSize }
	type step struct {
		Fault   Fault
		Retry   bool
		RetryAt sim.Time
	}
	do := func(i uint64, now sim.Time, tried bool) step {
		r := m.AccessAt(page(i), false, now, tried)
		return step{r.Fault, r.Retry, r.RetryAt}
	}
	t0 := sim.Time(1000)
	got := []step{
		do(0, t0, false),                 // major: 32 pages read around, done at t0+100+32
		do(0, t0+lat+32*per, true),       // the retry maps pages 0-15
		do(16, t0+lat+32*per, false),     // fault-around maps 16-31 but 24 (marked)
		do(24, t0+lat+32*per+10, false),  // the mark: window 32-63 submitted; retried at once
		do(24, t0+lat+32*per+10, true),   // maps 24
		do(32, t0+lat+32*per+20, false),  // 32 is being read (marked too): 64-95 submitted; wait for 32
		do(32, t0+2*lat+64*per+10, true), // the retry, once 32-63 is read: maps 32-47
	}
	want := []step{
		{MajorFault, true, t0 + lat + 32*per},
		{MinorFault, false, 0},
		{MinorFault, false, 0},
		{MinorFault, true, t0 + lat + 32*per + 10},
		{MinorFault, false, 0},
		{MinorFault, true, t0 + lat + 32*per + 10 + lat + 32*per},
		{MinorFault, false, 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// 64-95 was submitted at 32's fault, 20 in, while 32-63 was still to
	// transfer: its transfer follows 32-63's
	if fo := f.lookup(64); fo == nil || fo.ready != t0+lat+32*per+10+lat+32*per+32*per {
		t.Errorf("window 64-95 ready at %v, want after 32-63's transfer", f.lookup(64))
	}
}

// TestTriedAfter (triedAfter): FAULT_FLAG_TRIED is off for the first attempt, on for
// the second only after a major first, on for every later one.
func TestTriedAfter(t *testing.T) {
	var got []bool
	for _, c := range []struct {
		n     int
		first Fault
	}{{1, NoFault}, {2, MinorFault}, {2, MajorFault}, {3, MinorFault}} {
		got = append(got, triedAfter(c.n, c.first))
	}
	if d := cmp.Diff([]bool{false, false, true, true}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
