package mm

import (
	"math"

	"perfsim/sim"
	"perfsim/uapi"
)

// read(2), write(2), lseek(2) and fsync(2) of a regular file, through its
// page cache: a read copies from the cached folios, reading ahead what is
// missing (page_cache_sync_ra(), page_cache_async_ra() on a marked folio)
// and waiting for what is still being read; a write fills folios and
// dirties them; fsync writes the dirty ones back and waits. f_pos moves
// with both. The model keeps no file content, only which pages are cached,
// dirty and when they are read or written back. Measured on this machine's
// 6.18 (ext4): mm/testdata/fileio.

// Readable reports whether of was opened for reading (FMODE_READ).
func (of *OpenFile) Readable() bool { return of.Flags&uapi.O_ACCMODE != uapi.O_WRONLY }

// Writable reports whether of was opened for writing (FMODE_WRITE).
func (of *OpenFile) Writable() bool { return of.Flags&uapi.O_ACCMODE != uapi.O_RDONLY }

// MayMap reports whether of may be mapped with prot and flags: only a
// file open for reading, and shared and writable only one open for
// writing too.
// mm/mmap.c: do_mmap()
func (of *OpenFile) MayMap(prot, flags uint64) bool {
	if !of.Readable() {
		return false
	}
	shared := flags&uapi.MAP_TYPE != uapi.MAP_PRIVATE
	return !shared || prot&uapi.PROT_WRITE == 0 || of.Writable()
}

// SMaxBytes is s_maxbytes of this machine's ext4 (4 KiB blocks, extent
// files): the furthest a file's position or size may go, 16 TiB - 4 KiB.
// fs/ext4/super.c: ext4_max_size(): ((1LL << 32) - 1) << blkbits
const SMaxBytes = (1<<32 - 1) << 12

// size is i_size, or, for a file nobody sized (the model's files exist
// with any content), no end.
func (f *File) size() int64 {
	if f.Size < 0 {
		return math.MaxInt64
	}
	return f.Size
}

// readBatchMax is PAGEVEC_SIZE: the folios one filemap_get_pages() takes.
const readBatchMax = 31

// readBatch is the cached folios from index on, up to max, in order: it
// stops at a gap, and after a folio not uptodate at now or marked
// PG_readahead.
// mm/filemap.c: filemap_get_read_batch()
func (f *File) readBatch(index, max uint64, now sim.Time) []*folio {
	var b []*folio
	for i := index; i <= max && len(b) < readBatchMax; {
		fo := f.folios[i]
		if fo == nil {
			break
		}
		b = append(b, fo)
		if !fo.uptodate(now) || fo.readahead {
			break
		}
		i = fo.next()
	}
	return b
}

// Read is read(2) of count bytes at f_pos of a regular file: what of i_size
// is left, from the page cache. Each round takes the cached folios from
// f_pos on (readahead first when there are none: page_cache_sync_ra() of
// the pages the read still asks; a page it did not bring is read alone,
// filemap_create_folio()); a marked last folio starts the next async
// window; a last folio still being read is left for the next round, or,
// when it is the only one, waited for (wait lets time pass to when it is
// read: the task sleeps in D), and the round taken again. It returns the
// bytes read, or the errno: EBADF for a file not open for reading. It
// reads at *ppos and moves it: the caller's copy of f_pos (read(2), which
// stores it back) or pread64(2)'s offset, so a task asleep in it leaves
// f_pos as it was. user is the copy to the caller's buffer, folio by
// folio (nil: every byte lands): it returns how many of n bytes it moved,
// and a short copy ends the read there, EFAULT if nothing was read.
// mm/filemap.c: filemap_read(), filemap_get_pages()
func (of *OpenFile) Read(fs *FS, ppos *int64, count uint64, now func() sim.Time, wait func(until sim.Time), user func(n uint64) uint64) (int64, uapi.Errno) {
	if !of.Readable() {
		return 0, uapi.EBADF
	}
	f := of.Inode
	if *ppos < 0 {
		return 0, uapi.EINVAL
	}
	ra := of.ReadAhead(fs)
	pos, lastPos := uint64(*ppos), ra.prevPos
	if pos >= SMaxBytes { // filemap_read(): if (unlikely(iocb->ki_pos >= inode->i_sb->s_maxbytes)) return 0
		return 0, 0
	}
	count = min(count, SMaxBytes-pos) // filemap_read(): iov_iter_truncate(iter, s_maxbytes - ki_pos)
	var done uint64
	short := false
	for count > 0 && pos < uint64(f.size()) && !short {
		index := pos / PageSize
		lastIndex := (pos + count + PageSize - 1) / PageSize
		b := f.readBatch(index, lastIndex-1, now())
		if len(b) == 0 {
			f.read(now(), func() { f.syncRA(ra, index, lastIndex-index) })
			b = f.readBatch(index, lastIndex-1, now())
		}
		if len(b) == 0 { // filemap_create_folio(): the page alone, then filemap_read_folio()
			var fo *folio
			f.read(now(), func() { fo = f.addFolio(index, 0) })
			wait(fo.ready)
			continue
		}
		last := b[len(b)-1]
		if last.readahead {
			f.read(now(), func() { f.asyncRA(ra, last, last.index, lastIndex-last.index, now()) })
		}
		if !last.uptodate(now()) {
			if len(b) == 1 { // filemap_update_page(): folio_put_wait_locked(), then again
				wait(last.ready)
				continue
			}
			b = b[:len(b)-1]
		}
		end := min(uint64(f.size()), pos+count)
		for _, fo := range b {
			if end < fo.index*PageSize {
				break
			}
			fsize := fo.pages() * PageSize
			n := min(end-pos, fsize-pos%fsize)
			copied := n
			if user != nil {
				copied = user(n) // copy_folio_to_iter()
			}
			pos, count, done, lastPos = pos+copied, count-copied, done+copied, int64(pos+copied)
			if short = copied < n; short {
				break // if (copied < bytes) { error = -EFAULT; break; }
			}
		}
	}
	ra.prevPos = lastPos
	*ppos = int64(pos)
	if short && done == 0 {
		return 0, uapi.EFAULT // return already_read ? already_read : error
	}
	return int64(done), 0
}

// Write is write(2) of count bytes at f_pos (at i_size under O_APPEND):
// the folios written get cached and dirty, and i_size grows past them. A
// folio is as large as the bytes left of the write allow (aligned, at
// most 2 MB: ext4 has large folios); one the write covers only in part is
// read first where the rest holds the file's data, and waited for (wait).
// It returns the bytes written, or EBADF for a file not open for writing.
// It writes at *ppos (as Read) and moves it; a write of nothing moves
// nothing, not even to i_size under O_APPEND.
// mm/filemap.c: generic_perform_write(), __filemap_get_folio_mpol();
// fs/ext4/inode.c: ext4_write_begin() (fgf_set_order(len));
// mm/filemap.c: generic_write_checks_count(): if (!*count) return 0, before IOCB_APPEND
//
// user is the copy from the caller's buffer, folio by folio (nil: every
// byte is there): it returns how many of n bytes it moved; the write goes
// on after a short copy and ends when one moves nothing, EFAULT if nothing
// was written. A folio the write added without reading it goes again when
// the copy into it moved nothing: block_write_end() left it !uptodate, as
// good as uncached (ext4_truncate_failed_write() drops one past i_size).
func (of *OpenFile) Write(ppos *int64, count uint64, now func() sim.Time, wait func(until sim.Time), user func(n uint64) uint64) (int64, uapi.Errno) {
	if !of.Writable() {
		return 0, uapi.EBADF
	}
	if count == 0 {
		return 0, 0
	}
	f := of.Inode
	if of.Flags&uapi.O_APPEND != 0 && f.Size >= 0 {
		*ppos = f.Size
	}
	if *ppos < 0 {
		return 0, uapi.EINVAL
	}
	pos := uint64(*ppos)
	if pos >= SMaxBytes {
		return 0, uapi.EFBIG // generic_write_check_limits(): if (pos >= max_size) return -EFBIG
	}
	count = min(count, SMaxBytes-pos) // generic_write_check_limits(): *count = min(*count, max_size - pos)
	start, end, size := pos, pos+count, uint64(f.size())
	const chunk = PageSize << maxPagecacheOrder // mapping_max_folio_size()
	for pos < end {
		index := pos / PageSize
		bytes := min(chunk-pos%chunk, end-pos)
		fo := f.folios[index]
		made := false // a folio this write added without reading it
		if fo == nil {
			order := uint(0)
			if sh := ilog2(bytes); sh > 12 {
				order = min(sh-12, maxPagecacheOrder)
			}
			if index&(1<<order-1) != 0 {
				order = ffs(index)
			}
			for order > 0 && !f.free(index, order) {
				order-- // filemap_add_folio()'s -EEXIST: a smaller one
			}
			start, fend := index*PageSize, (index+1<<order)*PageSize
			n := min(bytes, fend-pos)
			if pos > start && start < size || pos+n < fend && pos+n < size { // ext4_block_write_begin() reads the rest
				f.read(now(), func() { fo = f.addFolio(index, order) })
			} else {
				fo, made = f.addFolio(index, order), true
			}
		}
		if !fo.uptodate(now()) {
			wait(fo.ready)
		}
		n := min(bytes, fo.next()*PageSize-pos)
		copied := n
		if user != nil {
			copied = user(n) // copy_folio_from_iter_atomic(), fault_in_iov_iter_readable()
		}
		if copied == 0 {
			if made { // not uptodate: as good as not cached (block_write_end(): copied = 0)
				f.drop(fo)
			}
			break
		}
		fo.dirty = true
		pos += copied // a short copy goes round again: user says 0 at the page it stopped at
	}
	if pos == start {
		return 0, uapi.EFAULT // generic_perform_write(): return written ? written : status
	}
	if f.Size >= 0 && int64(pos) > f.Size {
		f.Size = int64(pos) // i_size_write() in ext4_write_end()
	}
	*ppos = int64(pos)
	return int64(pos - start), 0
}

// drop takes fo out of the page cache.
func (f *File) drop(fo *folio) {
	for i := fo.index; i < fo.next(); i++ {
		delete(f.folios, i)
	}
}

// free reports whether no page of the folio of 2^order pages at index is
// cached.
func (f *File) free(index uint64, order uint) bool {
	for i := index; i < index+1<<order; i++ {
		if f.folios[i] != nil {
			return false
		}
	}
	return true
}

// Lseek is lseek(2): f_pos set from the start, from itself or from
// i_size (SEEK_SET, SEEK_CUR, SEEK_END); SEEK_DATA and SEEK_HOLE as on a
// file with no holes (the model keeps none: a file is data up to i_size),
// ENXIO at or past i_size; a file with no size is one with no end. EINVAL
// for a negative result or another whence.
// fs/read_write.c: generic_file_llseek_size() -> vfs_setpos()
func (of *OpenFile) Lseek(offset int64, whence uint64) (int64, uapi.Errno) {
	pos := offset
	switch whence {
	case uapi.SEEK_SET:
	case uapi.SEEK_CUR:
		pos += of.Pos
	case uapi.SEEK_END:
		pos += of.Inode.size()
	case uapi.SEEK_DATA, uapi.SEEK_HOLE:
		eof := of.Inode.size()
		if offset < 0 || offset >= eof {
			return 0, uapi.ENXIO // "In the generic case the entire file is data"
		}
		if whence == uapi.SEEK_HOLE && of.Inode.Size >= 0 {
			pos = eof // "There is a virtual hole at the end of the file"
		}
	default:
		return 0, uapi.EINVAL
	}
	if pos < 0 || whence == uapi.SEEK_END && of.Inode.Size < 0 && offset > 0 {
		return 0, uapi.EINVAL
	}
	// vfs_setpos(): if (offset > maxsize) return -EINVAL; a file with no
	// size is one with no end, its SEEK_END at LLONG_MAX
	if pos > SMaxBytes && !(whence == uapi.SEEK_END && of.Inode.Size < 0) {
		return 0, uapi.EINVAL
	}
	of.Pos = pos
	return pos, 0
}

// Fsync is fsync(2): the file's dirty folios are written back, one write
// from the disk submitted at now, and the caller waits (wait) until it is
// done; they are clean from then on.
// fs/sync.c: vfs_fsync_range() -> ext4_sync_file(): file_write_and_wait_range()
func (of *OpenFile) Fsync(now func() sim.Time, wait func(until sim.Time)) {
	f := of.Inode
	until := f.writeback(now(), f.dirtyIn(0, math.MaxUint64))
	for pg, fo := range f.folios {
		if pg == fo.index {
			until = max(until, fo.writeback) // a writeback already under way is waited for too
		}
	}
	if until > now() {
		wait(until)
	}
}

// dirtyIn is f's dirty folios that hold a page in [first, last].
func (f *File) dirtyIn(first, last uint64) []*folio {
	var out []*folio
	for pg, fo := range f.folios {
		if pg == fo.index && fo.dirty && fo.next() > first && fo.index <= last {
			out = append(out, fo)
		}
	}
	return out
}

// writeback writes fos back to the disk, submitted at now, and returns
// when the write is done: they are clean then (under writeback until
// then: folio.writeback).
// mm/page-writeback.c: do_writepages() -> the block layer
func (f *File) writeback(now sim.Time, fos []*folio) sim.Time {
	fs := f.fs
	var pages uint64
	for _, fo := range fos {
		pages += fo.pages()
	}
	if fs == nil || pages == 0 {
		for _, fo := range fos {
			fo.dirty = false
		}
		return now
	}
	done := max(now+fs.WriteLatency, fs.diskFree) + sim.Duration(pages)*fs.WritePerPage
	fs.diskFree = done
	for _, fo := range fos {
		fo.dirty, fo.writeback = false, done
	}
	return done
}
