package mm

import (
	"math/bits"

	"perfsim/sim"
)

// The page cache of a file (its address_space's i_pages) holds folios:
// [index, index+2^order) of the file, uptodate once read (the model reads
// at once), some marked PG_readahead. Readahead makes them: a major fault's
// read-around, and the next window when a fault meets a marked folio. What
// a fault maps depends on them (fault_file.go): fault-around skips a
// marked folio, and maps a large folio whole where it can.

// folio is a struct folio of a file's page cache.
type folio struct {
	index     uint64   // its first page
	order     uint     // 2^order pages
	readahead bool     // PG_readahead: reaching it starts the next async readahead
	ready     sim.Time // when its read completes (PG_uptodate; locked until then)
	dirty     bool     // written and not written back (PG_dirty)
	writeback sim.Time // when its writeback completes (PG_writeback until then)
}

// uptodate reports whether fo's read has completed at now.
func (fo *folio) uptodate(now sim.Time) bool { return fo.ready <= now }

func (f *folio) pages() uint64 { return 1 << f.order }

// next is folio_next_index().
func (f *folio) next() uint64 { return f.index + f.pages() }

// maxPagecacheOrder is MAX_PAGECACHE_ORDER on x86_64 with THP
// (HPAGE_PMD_ORDER), which ext4's mapping_max_folio_order() is:
// EXT4_MAX_PAGECACHE_ORDER() = min(MAX_PAGECACHE_ORDER, 11 + blkbits - PAGE_SHIFT).
const maxPagecacheOrder = 9

// lookup is filemap_get_folio(): the folio holding page pgoff, or nil.
func (f *File) lookup(pgoff uint64) *folio { return f.folios[pgoff] }

// Resident puts the file page behind addr, in a file mapping of m, in the
// page cache, read long ago, if no folio holds it: a file every run finds
// cached (an exec'd image). It reports whether the page was cached already.
func (m *MM) Resident(addr uint64) bool {
	v := m.Find(addr)
	pgoff := v.pgoffOf(addr)
	if v.File.lookup(pgoff) != nil {
		return true
	}
	v.File.addFolio(pgoff, 0)
	return false
}

// addFolio is filemap_add_folio() of a folio of 2^order pages at index: it
// fails (-EEXIST) when any of its pages is cached already.
func (f *File) addFolio(index uint64, order uint) *folio {
	if !f.free(index, order) {
		return nil
	}
	fo := &folio{index: index, order: order}
	for i := index; i < fo.next(); i++ {
		f.folios[i] = fo
	}
	if fs := f.fs; fs != nil && fs.reading {
		fs.batch = append(fs.batch, fo)
	}
	return fo
}

// read runs fn, which adds folios to f's page cache, as one read from the
// disk submitted at now: the folios are uptodate when it completes, its
// latency after now, and its transfer after the reads submitted before it
// have been transferred. (Without a file system the read takes no time.)
// mm/readahead.c: read_pages() -> the block layer
func (f *File) read(now sim.Time, fn func()) {
	fs := f.fs
	if fs == nil {
		fn()
		return
	}
	fs.reading, fs.batch = true, fs.batch[:0]
	fn()
	fs.reading = false
	var pages uint64
	for _, fo := range fs.batch {
		pages += fo.pages()
	}
	if pages == 0 || fs.ReadLatency == 0 && fs.ReadPerPage == 0 {
		return
	}
	done := max(now+fs.ReadLatency, fs.diskFree) + sim.Duration(pages)*fs.ReadPerPage
	fs.diskFree = done
	for _, fo := range fs.batch {
		fo.ready = done
	}
}

// lastIndex is the index of the file's last page ((i_size - 1) >>
// PAGE_SHIFT), and false for a file of size 0; a file whose size nobody
// set (the model's files exist with any size) has no last page.
func (f *File) lastIndex() (uint64, bool) {
	if f.Size < 0 {
		return ^uint64(0), true
	}
	if f.Size == 0 {
		return 0, false
	}
	return uint64(f.Size-1) / PageSize, true
}

// Truncate sets i_size to size bytes and drops the cached pages past it;
// the caller zaps the PTEs past it of every address space that maps f
// (ZapPastEOF).
// fs/attr.c: notify_change() -> mm/truncate.c: truncate_setsize() ->
// truncate_pagecache(): truncate_inode_pages()
func (f *File) Truncate(size int64) {
	f.Size = size
	for pg, fo := range f.folios {
		if f.beyondEOF(fo.index) {
			delete(f.folios, pg)
		}
	}
}

// ZapPastEOF zaps the PTEs m's mappings of f have past its i_size (a
// private mapping's copied pages too), so an access there is SIGBUS.
// mm/truncate.c: truncate_pagecache() -> unmap_mapping_range(..., even_cows)
func (m *MM) ZapPastEOF(f *File) {
	for _, v := range m.VMAs {
		if v.File != f {
			continue
		}
		for a := v.Start; a < v.End; a += PageSize {
			if m.present[a] && f.beyondEOF(v.pgoffOf(a)) {
				m.zap(a)
			}
		}
	}
}

// beyondEOF reports whether page pgoff is at or past i_size (a fault there
// is SIGBUS: filemap_fault()'s max_idx check).
func (f *File) beyondEOF(pgoff uint64) bool {
	last, ok := f.lastIndex()
	return !ok || pgoff > last
}

// ReadAhead is a struct file's f_ra (struct file_ra_state): the window the
// last readahead read, and the device's ra_pages it was opened with
// (file_ra_state_init(): bdi->ra_pages, read_ahead_kb / 4).
type ReadAhead struct {
	RAPages uint64
	// Random is the struct file's FMODE_RANDOM (POSIX_FADV_RANDOM), kept
	// beside its f_ra: a sequential readahead is then forced (syncRA).
	Random                 bool
	start, size, asyncSize uint64
	order                  uint
	// prevPos is the byte after the last read()'s (-1: none; a mapping's
	// faults leave it alone).
	prevPos int64
	// mmapMiss counts a mapping's faults that missed the page cache, less
	// the pages fault-around found there: past mmapLotsAMiss the
	// read-around stops ("Do we miss much more than hit in this file?").
	mmapMiss uint64
}

// mmapLotsAMiss is MMAP_LOTSAMISS.
const mmapLotsAMiss = 100

// NewReadAhead is file_ra_state_init() for a file of fs (nil: a file on
// no file system, which reads ahead VM_READAHEAD_PAGES).
func NewReadAhead(fs *FS) *ReadAhead {
	if fs == nil {
		return &ReadAhead{RAPages: DefaultRAPages, prevPos: -1}
	}
	return &ReadAhead{RAPages: fs.RAPages, prevPos: -1}
}

// getNextRASize is the next window's size: quadrupled while small, then
// doubled, up to max.
// mm/readahead.c: get_next_ra_size()
func getNextRASize(cur, max uint64) uint64 {
	if cur < max/16 {
		return 4 * cur
	}
	if cur <= max/2 {
		return 2 * cur
	}
	return max
}

// raOrder reads ra's window [start, start+size) into f's page cache in
// folios of up to 2^ra.order pages, marking the one holding start + size -
// asyncSize PG_readahead; on a page already cached it leaves the rest to
// do_page_cache_ra().
// mm/readahead.c: page_cache_ra_order() (ext4 supports large folios)
func (f *File) raOrder(ra *ReadAhead) {
	start := ra.start
	last, ok := f.lastIndex()
	if !ok {
		return
	}
	limit := min(last, start+ra.size-1)
	mark := start + ra.size - ra.asyncSize
	newOrder := min(uint(maxPagecacheOrder), ra.order, ilog2(ra.size))
	ra.order = newOrder
	index := start
	for index <= limit {
		order := newOrder
		if index&(1<<order-1) != 0 { // align with smaller pages if needed
			order = ffs(index)
		}
		for order > 0 && index+1<<order-1 > limit { // no pages past EOF
			order--
		}
		fo := f.addFolio(index, order) // ra_alloc_folio()
		if fo == nil {
			break // a page already cached: -EEXIST
		}
		if mark-index < 1<<order {
			fo.readahead = true
		}
		index += 1 << order
	}
	if index <= limit && ra.size > index-start { // it stopped short: the fallback
		f.doPageCacheRA(index, ra.size-(index-start), ra.asyncSize)
	}
}

// doPageCacheRA reads nr pages from index in order-0 folios, none past
// EOF, skipping those cached, marking the one lookahead pages before the
// end PG_readahead.
// mm/readahead.c: do_page_cache_ra() -> page_cache_ra_unbounded()
func (f *File) doPageCacheRA(index, nr, lookahead uint64) {
	last, ok := f.lastIndex()
	if !ok || index > last {
		return
	}
	if nr > last-index {
		nr = last - index + 1
	}
	mark := ^uint64(0)
	if lookahead <= nr {
		mark = nr - lookahead
	}
	for i := uint64(0); i < nr; i++ {
		if fo := f.addFolio(index+i, 0); fo != nil && i == mark {
			fo.readahead = true
		}
	}
}

// syncMmapReadahead is a major fault's readahead about page pgoff of v: a
// window of ra_pages centred on it (read-around) or, for an executable
// mapping, from it to the end of the VMA with no async part; under
// MADV_SEQUENTIAL the sequential readahead from it; under MADV_RANDOM, with
// ra_pages 0 or after more than MMAP_LOTSAMISS misses, nothing.
// mm/filemap.c: do_sync_mmap_readahead() (VM_HUGEPAGE is not modelled)
func (f *File) syncMmapReadahead(v *VMA, ra *ReadAhead, pgoff uint64) {
	if v.Flags&(VM_RAND_READ|VM_EXEC) == VM_RAND_READ || ra.RAPages == 0 {
		return
	}
	if v.Flags&VM_SEQ_READ != 0 {
		f.syncRA(ra, pgoff, ra.RAPages)
		return
	}
	if ra.mmapMiss < mmapLotsAMiss*10 {
		ra.mmapMiss++
	}
	if ra.mmapMiss > mmapLotsAMiss {
		return
	}
	if v.Flags&VM_EXEC != 0 {
		ra.order = 0 // exec_folio_order(): x86 has none
		ra.start = max(pgoff, v.Pgoff)
		ra.size = min(ra.start+ra.RAPages, v.Pgoff+v.Len()/PageSize) - ra.start
		ra.asyncSize = 0
	} else {
		ra.start = pgoff - min(pgoff, ra.RAPages/2)
		ra.size = ra.RAPages
		ra.asyncSize = ra.RAPages / 4
		ra.order = 0
	}
	f.raOrder(ra)
}

// syncRA is the on-demand readahead of a miss at index, req pages asked
// (a fault under MADV_SEQUENTIAL asks ra_pages; a read(), the pages left
// of it): at the file's start, for a request past what one window reads,
// or a miss right after the last read() (prev_pos), a window from it with
// its async part; after a run of cached pages one that long again (twice
// from the file's start); else the pages asked, as they are. Under
// FMODE_RANDOM, or with ra_pages 0 (read() only: a fault does not get
// here then), the read is forced, as asked (one page for ra_pages 0).
// mm/readahead.c: page_cache_sync_ra(), get_init_ra_size()
func (f *File) syncRA(ra *ReadAhead, index, req uint64) {
	if ra.RAPages == 0 {
		req = 1
	}
	if ra.Random || ra.RAPages == 0 { // "be dumb"
		f.forceRA(ra, index, req, func(read func()) { read() })
		return
	}
	maxPages := f.ractlMaxPages(ra, req)
	prevIndex := uint64(ra.prevPos) / PageSize // (unsigned long long)ra->prev_pos >> PAGE_SHIFT
	if index == 0 || req > maxPages || index-prevIndex <= 1 {
		ra.start = index
		ra.size = initRASize(req, maxPages)
		if ra.size > req {
			ra.asyncSize = ra.size - req
		} else {
			ra.asyncSize = ra.size >> 1
		}
	} else {
		miss := f.prevMiss(index-1, maxPages)
		contig := index - miss - 1
		if contig <= req {
			f.doPageCacheRA(index, req, 0) // a standalone, small random read
			return
		}
		if miss == ^uint64(0) {
			contig *= 2 // cached from the beginning: a long stream
		}
		ra.start = index
		ra.size = min(contig+req, maxPages)
		ra.asyncSize = 1
	}
	ra.order = 0
	f.raOrder(ra)
}

// initRASize is the first window's size for a request of size pages.
// mm/readahead.c: get_init_ra_size()
func initRASize(size, max uint64) uint64 {
	n := uint64(1)
	for n < size {
		n <<= 1 // roundup_pow_of_two()
	}
	switch {
	case n <= max/32:
		return n * 4
	case n <= max/4:
		return n * 2
	}
	return max
}

// prevMiss is the highest index in [index-maxScan+1, index] not cached;
// index-maxScan+1 when every page there is; ^0 when every page down to 0 is.
// mm/filemap.c: page_cache_prev_miss()
//
// The first xas_prev() of a fresh xa_state loads index itself (its node is
// XAS_RESTART, "frozen": __xas_prev() does not step back first), so the
// scan is index, index-1, ..., index-maxScan+1, and a scan that finds all
// of them cached returns the last it looked at.
func (f *File) prevMiss(index, maxScan uint64) uint64 {
	i := index
	for n := uint64(0); n < maxScan; n++ {
		if n > 0 {
			if i == 0 {
				return ^uint64(0) // xas_prev() past 0: ULONG_MAX
			}
			i--
		}
		if f.folios[i] == nil {
			return i
		}
	}
	return i
}

// asyncMmapReadahead is filemap_fault() finding fo, the folio of page
// index, cached: a hit (mmap_miss drops by one); when fo is marked
// PG_readahead, the next window is read (asyncRA, a request of ra_pages).
// Under MADV_RANDOM or with ra_pages 0 nothing happens.
// mm/filemap.c: do_async_mmap_readahead()
func (f *File) asyncMmapReadahead(v *VMA, ra *ReadAhead, fo *folio, index uint64, now sim.Time) {
	if v.Flags&VM_RAND_READ != 0 || ra.RAPages == 0 {
		return
	}
	if ra.mmapMiss > 0 {
		ra.mmapMiss--
	}
	if fo.readahead {
		f.asyncRA(ra, fo, index, ra.RAPages, now)
	}
}

// asyncRA is a reader reaching fo, marked PG_readahead, at page index,
// req pages asked, at now: the mark is cleared and the next window is
// read, ahead of the reader, in larger folios than the last. A folio under
// writeback reads nothing and keeps its mark ("Same bit is used for
// PG_readahead and PG_reclaim").
// mm/readahead.c: page_cache_async_ra()
func (f *File) asyncRA(ra *ReadAhead, fo *folio, index, req uint64, now sim.Time) {
	if ra.RAPages == 0 || fo.writeback > now { // folio_test_writeback(folio)
		return
	}
	fo.readahead = false
	maxPages := f.ractlMaxPages(ra, req)
	expected := (ra.start + ra.size - ra.asyncSize) &^ (fo.pages() - 1)
	if index == expected {
		ra.start += ra.size
		ra.size = max(ra.size, getNextRASize(ra.size, maxPages))
	} else {
		// A marked folio without valid readahead state: the async size is
		// what is cached after it.
		start := index + 1
		for start <= index+maxPages && f.folios[start] != nil { // page_cache_next_miss()
			start++
		}
		if start-index > maxPages {
			return
		}
		ra.start = start
		ra.size = getNextRASize(start-index+req, maxPages)
	}
	ra.order += 2
	align := uint64(1) << min(ra.order, ffs(maxPages))
	end := ra.start + ra.size
	if alignedEnd := end &^ (align - 1); alignedEnd > ra.start {
		ra.size -= end - alignedEnd
	}
	ra.asyncSize = ra.size
	f.raOrder(ra)
}

// ractlMaxPages is the most a readahead of a request of req pages reads:
// ra_pages, or up to the device's io_pages for a larger request.
// mm/readahead.c: ractl_max_pages()
func (f *File) ractlMaxPages(ra *ReadAhead, req uint64) uint64 {
	maxPages := ra.RAPages
	if io := f.ioPages(); req > maxPages && io > maxPages {
		maxPages = min(req, io)
	}
	return maxPages
}

// ioPages is the device's bdi->io_pages.
func (f *File) ioPages() uint64 {
	if f.fs == nil {
		return DefaultIOPages
	}
	return f.fs.IOPages
}

// ForceReadahead reads nr pages of f from index (a POSIX_FADV_WILLNEED or
// MADV_WILLNEED of them), at most the device's io_pages or ra's ra_pages,
// whichever is more, in 2 MB chunks of order-0 folios, none past EOF, the
// cached pages skipped; each chunk is one read from the disk submitted at
// now. Nothing waits for it: a fault on a page still being read waits then.
// mm/readahead.c: force_page_cache_ra()
func (f *File) ForceReadahead(ra *ReadAhead, index, nr uint64, now sim.Time) {
	f.forceRA(ra, index, nr, func(read func()) { f.read(now, read) })
}

// forceRA is force_page_cache_ra(): each chunk's read is passed to submit
// (a read of its own, or a part of the one being made up: syncRA's).
func (f *File) forceRA(ra *ReadAhead, index, nr uint64, submit func(read func())) {
	nr = min(nr, max(f.ioPages(), ra.RAPages))
	const chunk = 2 << 20 / PageSize
	for nr > 0 {
		i, n := index, min(nr, chunk)
		submit(func() { f.doPageCacheRA(i, n, 0) })
		index += n
		nr -= n
	}
}

// Invalidate drops from f's page cache the folios that lie wholly in
// [start, end] (a large folio across either end is kept) and can go: not
// still being read at now (locked), clean and not under writeback, and
// with no page mapped (mapped: some address space's PTE maps it).
// mm/truncate.c: mapping_try_invalidate() -> mapping_evict_folio()
func (f *File) Invalidate(start, end uint64, now sim.Time, mapped func(pgoff uint64) bool) {
	var drop []*folio
	for pg, fo := range f.folios {
		if pg != fo.index || fo.index < start || fo.next()-1 > end || !fo.uptodate(now) || fo.dirty || fo.writeback > now {
			continue
		}
		busy := false
		for p := fo.index; p < fo.next() && !busy; p++ {
			busy = mapped(p)
		}
		if !busy {
			drop = append(drop, fo)
		}
	}
	for _, fo := range drop {
		for p := fo.index; p < fo.next(); p++ {
			delete(f.folios, p)
		}
	}
}

// ilog2 is ilog2(n) (0 for 0, as for 1).
func ilog2(n uint64) uint { return uint(bits.Len64(n|1) - 1) }

// ffs is __ffs(n): the index of n's lowest set bit (n > 0).
func ffs(n uint64) uint { return uint(bits.TrailingZeros64(n)) }
