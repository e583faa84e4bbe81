package mm

import "perfsim/sim"

// A fault on a page of a file mapping that has no PTE. A read fault first
// maps what the page cache already holds around the page (fault-around),
// so a sequential reader of a cached file faults once per 64 KB, or once
// per large folio; a page not cached is a major fault, whose read-around
// brings in the pages about it; a page marked PG_readahead starts the read
// of the next window. Measured on this machine's 6.18 (ext4): reading a
// 1000-page file page by page faults 63 times when it is cached (16 pages
// a fault), and 1 major + 62 minor cold with read_ahead_kb 8192; with 128
// the async windows' large folios make it 1 major + 35 minor; read at
// random (page i*7919 mod 1000), 1 major + 62 minor at 8192 and 38 + 62 at
// 128, each read-around reading 32 pages (mm/testdata/filefaults holds the
// runs and their workload).

// faultAroundPages is fault_around_pages: fault_around_bytes (64 KB) in
// pages.
const faultAroundPages = 65536 / PageSize

// ptrsPerPTE is PTRS_PER_PTE: a page table maps 2 MB.
const ptrsPerPTE = 512

// pgoffOf is the file page offset of the page at addr in v.
func (v *VMA) pgoffOf(addr uint64) uint64 { return v.Pgoff + (addr-v.Start)/PageSize }

// addrOf is the address of file page pgoff in v.
func (v *VMA) addrOf(pgoff uint64) uint64 { return v.Start + (pgoff-v.Pgoff)*PageSize }

// folioWithin reports whether every page of fo lies in v
// (folio_within_vma()) and in one page table, so it can be mapped whole.
func (v *VMA) folioWithin(fo *folio) bool {
	if fo.index < v.Pgoff || fo.next() > v.Pgoff+v.Len()/PageSize {
		return false
	}
	a := v.addrOf(fo.index)
	const pmdMask = ^uint64(ptrsPerPTE*PageSize - 1)
	return a&pmdMask == (a+fo.pages()*PageSize-1)&pmdMask
}

// fileFault is an attempt at a fault at page, not present, of v, a file
// mapping, at now (tried: FAULT_FLAG_TRIED, see triedAfter): a read fault tries fault-around first
// (do_read_fault()); then filemap_fault() finds the folio or reads it (a
// major fault: read-around first) and, having dropped the mmap lock to
// wait for its read, has the fault retried once it is read; it starts the
// next async window on a marked folio (and has the fault retried at once:
// the lock was dropped for that I/O too) and waits for a folio still being
// read (then retries); otherwise a read maps what fault-around maps (or
// the folio: finish_fault()), a private write copies the page into an anon
// one (do_cow_fault()), a shared write maps the folio writable
// (do_shared_fault() -> finish_fault()). A page past i_size is SIGBUS.
// mm/memory.c: do_fault(); mm/filemap.c: filemap_fault(), lock_folio_maybe_drop_mmap()
func (m *MM) fileFault(v *VMA, page uint64, write bool, now sim.Time, tried bool) FaultResult {
	f := v.File
	pgoff := v.pgoffOf(page)
	if f.beyondEOF(pgoff) {
		return FaultResult{Fault: BadAccess} // VM_FAULT_SIGBUS
	}
	if !write && m.faultAround(v, page, now) {
		return FaultResult{Fault: MinorFault, How: HowFileMap}
	}
	ra := v.readAhead()
	fo := f.lookup(pgoff)
	if fo == nil {
		// count_vm_event(PGMAJFAULT); the retry keeps it major (FAULT_FLAG_TRIED)
		f.read(now, func() {
			f.syncMmapReadahead(v, ra, pgoff)
			if fo = f.lookup(pgoff); fo == nil {
				fo = f.addFolio(pgoff, 0) // __filemap_get_folio(FGP_CREAT), then filemap_read_folio()
			}
		})
		return FaultResult{Fault: MajorFault, How: HowFileMap, Retry: true, RetryAt: max(now, fo.ready)}
	}
	if !tried {
		marked := fo.readahead && v.Flags&VM_RAND_READ == 0 && ra.RAPages > 0
		f.read(now, func() { f.asyncMmapReadahead(v, ra, fo, pgoff, now) })
		if marked || !fo.uptodate(now) { // maybe_unlock_mmap_for_io(): VM_FAULT_RETRY once the folio is unlocked
			return FaultResult{Fault: MinorFault, How: HowFileMap, Retry: true, RetryAt: max(now, fo.ready)}
		}
	}
	switch {
	case !write:
		if !m.faultAround(v, page, now) {
			m.finishFault(v, fo, page, false)
		}
	case v.Flags&VM_SHARED == 0:
		m.present[page] = true // do_cow_fault(): copy_mc_user_highpage() into a new anon folio
		m.copied[page] = true
		v.anon = true
		return FaultResult{Fault: MinorFault, How: HowCopy}
	default:
		m.finishFault(v, fo, page, true)
	}
	return FaultResult{Fault: MinorFault, How: HowFileMap}
}

// faultAround maps the cached pages of the fault-around window about page
// (64 KB, aligned, within v and its page table), as filemap_map_pages()
// does at now: a folio marked PG_readahead or still being read is skipped,
// nothing past i_size is mapped, and a large folio is mapped whole where
// it lies in v and one page table and before EOF. It reports whether page
// itself was mapped (VM_FAULT_NOPAGE).
// mm/memory.c: do_fault_around(); mm/filemap.c: filemap_map_pages(),
// next_uptodate_folio(), filemap_map_folio_range() (filemap_map_pmd() is
// not modelled: a PMD-sized folio is mapped by its PTEs, still one fault)
func (m *MM) faultAround(v *VMA, page uint64, now sim.Time) bool {
	f := v.File
	pteOff := page / PageSize % ptrsPerPTE
	vmaOff := (page - v.Start) / PageSize
	fromPTE := max(pteOff&^(faultAroundPages-1), pteOff-min(pteOff, vmaOff))
	toPTE := min(fromPTE+faultAroundPages, ptrsPerPTE, pteOff+v.Len()/PageSize-vmaOff) - 1
	pgoff := v.pgoffOf(page)
	start, end := pgoff+fromPTE-pteOff, pgoff+toPTE-pteOff
	last, ok := f.lastIndex()
	if !ok {
		return false
	}
	end = min(end, last)
	mapped := false
	var hits uint64
	for pg := start; pg <= end; {
		fo := f.folios[pg]
		if fo == nil {
			pg++
			continue
		}
		if !fo.readahead && fo.uptodate(now) { // next_uptodate_folio(): a locked one (being read) is skipped
			lo, hi := pg, min(fo.next()-1, end)
			// Map the large folio fully where possible: the test is
			// file_end >= folio_next_index(folio), file_end being the
			// index of the last page, so a folio that holds the last page
			// is not (finish_fault() counts pages: it would be).
			if fo.order > 0 && fo.next() <= last && v.folioWithin(fo) {
				lo, hi = fo.index, fo.next()-1
			}
			for p := lo; p <= hi; p++ {
				hits++ // a page found cached (none is in the workingset)
				if m.mapFilePage(v, v.addrOf(p)) && v.addrOf(p) == page {
					mapped = true
				}
			}
		}
		pg = fo.next()
	}
	ra := v.readAhead()
	ra.mmapMiss -= min(ra.mmapMiss, hits)
	return mapped
}

// finishFault maps fo, the folio filemap_fault() returned for page: the
// whole folio when it lies before EOF, in v and one page table, and none
// of its pages has a PTE yet, else page alone; writable for a shared write.
// mm/memory.c: finish_fault()
func (m *MM) finishFault(v *VMA, fo *folio, page uint64, write bool) {
	last, _ := v.File.lastIndex()
	lo, hi := page, page
	if fo.order > 0 && fo.next()-1 <= last && v.folioWithin(fo) {
		none := true
		for p := fo.index; p < fo.next(); p++ {
			none = none && !m.present[v.addrOf(p)]
		}
		if none {
			lo, hi = v.addrOf(fo.index), v.addrOf(fo.next()-1)
		}
	}
	for a := lo; a <= hi; a += PageSize {
		if write {
			m.present[a] = true
		} else {
			m.mapFilePage(v, a)
		}
	}
}

// mapFilePage gives the page at addr of v a read-only PTE (a private
// mapping copies on write; a shared one's write is page_mkwrite()'s
// fault), unless it has one; it reports whether it did.
// mm/memory.c: set_pte_range()
func (m *MM) mapFilePage(v *VMA, addr uint64) bool {
	if m.present[addr] {
		return false
	}
	m.present[addr] = true
	m.ro[addr] = true
	return true
}
