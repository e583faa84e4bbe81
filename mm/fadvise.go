package mm

import (
	"math"

	"perfsim/sim"
	"perfsim/uapi"
)

// Fadvise is posix_fadvise() of [offset, offset+length) (length 0: to the
// end) of of, a regular file of fs (one on no device, such as a tty or
// perf's anon inode, takes any valid advice and does nothing): NORMAL and
// SEQUENTIAL set its f_ra's ra_pages (the device's, twice that) and clear
// FMODE_RANDOM, RANDOM sets it (a sequential readahead is then forced:
// syncRA), WILLNEED reads the range ahead (ForceReadahead, at now), and
// DONTNEED drops the range's whole pages from the page cache where it can
// (File.Invalidate: mapped says which pages a PTE maps). NOREUSE changes
// nothing the model has. EINVAL for a negative length or another advice.
// mm/fadvise.c: generic_fadvise()
func (of *OpenFile) Fadvise(fs *FS, offset, length, advice int64, now sim.Time, mapped func(pgoff uint64) bool) uapi.Errno {
	switch advice {
	case uapi.POSIX_FADV_NORMAL, uapi.POSIX_FADV_RANDOM, uapi.POSIX_FADV_SEQUENTIAL,
		uapi.POSIX_FADV_WILLNEED, uapi.POSIX_FADV_DONTNEED, uapi.POSIX_FADV_NOREUSE:
	default:
		return uapi.EINVAL
	}
	if length < 0 {
		return uapi.EINVAL
	}
	f := of.Inode
	if f == nil || f.noopBDI() { // an anon inode's or a tty's: "no bad return value, but ignore advice"
		return 0
	}
	// endbyte, inclusive; the sum in unsigned arithmetic as the kernel's
	endbyte := uint64(offset) + uint64(length)
	if length == 0 || endbyte < uint64(length) || endbyte > math.MaxInt64 {
		endbyte = math.MaxInt64
	} else {
		endbyte--
	}
	ra := of.ReadAhead(fs)
	switch advice {
	case uapi.POSIX_FADV_NORMAL:
		ra.RAPages = fs.RAPages
		ra.Random = false
	case uapi.POSIX_FADV_RANDOM:
		ra.Random = true
	case uapi.POSIX_FADV_SEQUENTIAL:
		ra.RAPages = fs.RAPages * 2
		ra.Random = false
	case uapi.POSIX_FADV_WILLNEED:
		start, nr := fadviseWillneedPages(offset, endbyte)
		f.ForceReadahead(ra, start, nr, now)
	case uapi.POSIX_FADV_DONTNEED:
		// The range's dirty folios are written back, not waited for
		// (filemap_flush_range()): under writeback, they stay.
		f.writeback(now, f.dirtyIn(uint64(offset>>pageShift), endbyte/PageSize))
		// First and last full page; the last partial one too where the
		// range ends at a page's end or at the file's end.
		start, end := uint64((offset+PageSize-1)>>pageShift), endbyte/PageSize
		if endbyte%PageSize != PageSize-1 && int64(endbyte) != f.Size-1 {
			if end == 0 {
				return 0
			}
			end--
		}
		if end >= start {
			f.Invalidate(start, end, now, mapped)
		}
	}
	return 0
}

// pageShift is PAGE_SHIFT: loff_t offsets are shifted, not divided, so a
// negative one becomes a pgoff_t near 2^64 as the kernel's does.
const pageShift = 12

// fadviseWillneedPages is POSIX_FADV_WILLNEED's first partial page and
// page count for offset and the inclusive endbyte: the loff_t offset
// shifted as signed (-4096 is page 2^64-1, not 2^52-1), the count's "+1"
// wrapped to ~0UL.
// mm/fadvise.c: generic_fadvise()
func fadviseWillneedPages(offset int64, endbyte uint64) (start, nr uint64) {
	start, end := uint64(offset>>pageShift), endbyte>>pageShift
	nr = end - start + 1
	if nr == 0 {
		nr = math.MaxUint64
	}
	return start, nr
}
