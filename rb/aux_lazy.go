package rb

// Lazy AUX pages (AuxOps.Lazy). rb_alloc_aux() allocates every AUX page
// zeroed (__GFP_ZERO); a driver that writes its trace through the Buffer
// (AuxWrite) and reads no pages in SetupAux lets the area keep them one by
// one, each made on its first write. A page never written reads as zeroes,
// as the kernel's does; reading the area as one slice (AuxData) joins the
// pages into one, and from then on the area is that slice. What any reader
// sees is the same as with the pages made up front.

// zeroPage is what a page never written holds (read-only).
var zeroPage [PageSize]byte

// page returns page i of a lazy area, making it on first use.
// kernel/events/ring_buffer.c: rb_alloc_aux_page()
func (a *auxArea) page(i int) []byte {
	if a.pages[i] == nil {
		a.pages[i] = make([]byte, PageSize)
	}
	return a.pages[i]
}

// writePages stores b at free-running position pos (masked, wrapping).
func (a *auxArea) writePages(pos uint64, b []byte) {
	mask := uint64(a.nrPages)*PageSize - 1
	for len(b) > 0 {
		off := pos & mask
		k := copy(a.page(int(off / PageSize))[off%PageSize:], b)
		b = b[k:]
		pos += uint64(k)
	}
}

// readPages fills out with the bytes at free-running position pos (masked,
// wrapping); out is zeroes where the area has no page.
func (a *auxArea) readPages(out []byte, pos uint64) {
	mask := uint64(a.nrPages)*PageSize - 1
	for i := 0; i < len(out); {
		off := (pos + uint64(i)) & mask
		in := off % PageSize
		k := min(len(out)-i, int(PageSize-in))
		if pg := a.pages[off/PageSize]; pg != nil {
			copy(out[i:i+k], pg[in:])
		} else {
			clear(out[i : i+k])
		}
		i += k
	}
}

// pageBytes is the m bytes at area offset off, inside one page (read-only
// when the page was never written).
func (a *auxArea) pageBytes(off, m uint64) []byte {
	in := off % PageSize
	if pg := a.pages[off/PageSize]; pg != nil {
		return pg[in : in+m]
	}
	return zeroPage[in : in+m]
}

// joinPages copies the written pages into data (just allocated, zeroed)
// and leaves the area contiguous.
func (a *auxArea) joinPages() {
	for i, pg := range a.pages {
		if pg != nil {
			copy(a.data[i*PageSize:], pg)
		}
	}
	a.pages = nil
}
