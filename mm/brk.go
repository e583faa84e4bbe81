package mm

import (
	"perfsim/sim"
	"perfsim/uapi"
)

// The heap (brk), madvise() and mremap(): what they do to the VMAs and the
// present pages, and which of them perf hears of. On this machine (kernel
// 6.18, perf record -d): brk() reports the heap VMA it made or grew
// (do_brk_flags() -> perf_event_mmap(), a data mapping: only mmap_data
// events get it), named "//anon" the first time (mm->brk is updated after
// the report, so vma_is_initial_heap() does not hold yet) and "[heap]" when
// it grows; mremap() and madvise() report nothing.

// heapGap is where a fresh mm's heap starts: after an image at ImageBase
// of the size LoadELF maps (the brk of a task that never exec'd).
const heapGap = 6 * PageSize

// brkState is mm->start_brk and mm->brk.
type brkState struct {
	startBrk, brk uint64
	set           bool
}

func (m *MM) brkBase() {
	if !m.heap.set {
		m.heap = brkState{startBrk: ImageBase + heapGap, brk: ImageBase + heapGap, set: true}
	}
}

// SetBrk is load_elf_binary()'s "mm->start_brk = mm->brk = ELF_PAGEALIGN(elf_brk)":
// the heap starts at the page after the image's last segment (no
// randomization: arch_randomize_brk() is off, as with randomize_va_space=1).
// fs/binfmt_elf.c: load_elf_binary()
func (m *MM) SetBrk(end uint64) {
	end = pageAlign(end)
	m.heap = brkState{startBrk: end, brk: end, set: true}
}

// StartBrk and CurBrk are mm->start_brk and mm->brk.
func (m *MM) StartBrk() uint64 { m.brkBase(); return m.heap.startBrk }
func (m *MM) CurBrk() uint64   { m.brkBase(); return m.heap.brk }

// Brk is the brk() system call: it returns the new break, or the old one
// when the request fails (below start_brk, or the new heap would run into
// the next mapping), and the VMA perf_event_mmap() reports (nil when none:
// a shrink, no page-level change, or a failure). A grown heap merges into
// the VMA that ends at the old break.
// mm/mmap.c: SYSCALL_DEFINE1(brk); mm/vma.c: do_brk_flags()
func (m *MM) Brk(brk uint64) (uint64, *VMA) {
	m.brkBase()
	orig := m.heap.brk
	if brk < m.heap.startBrk {
		return orig, nil
	}
	newbrk, oldbrk := pageAlign(brk), pageAlign(m.heap.brk)
	if newbrk == oldbrk {
		m.heap.brk = brk
		return brk, nil
	}
	if brk <= m.heap.brk { // "Always allow shrinking brk."
		m.heap.brk = brk
		m.Munmap(newbrk, oldbrk-newbrk)
		return brk, nil
	}
	// "Check against existing mmap mappings": the new heap and a guard page
	if !m.free(oldbrk, newbrk+PageSize) {
		return orig, nil
	}
	var v *VMA
	if prev := m.Find(oldbrk - 1); prev != nil && prev.End == oldbrk && prev.File == nil &&
		prev.Flags == VM_READ|VM_WRITE && prev.Start >= m.heap.startBrk {
		prev.End = newbrk // vma_expand(): the heap grows
		v = prev
	} else {
		v = &VMA{Start: oldbrk, End: newbrk, Flags: VM_READ | VM_WRITE, Pgoff: oldbrk / PageSize}
		m.insert(v)
	}
	m.heap.brk = brk
	return brk, v
}

// NameHeap names v "[heap]" once it is the initial heap
// (vma_is_initial_heap(): vm_start < mm->brk && vm_end > mm->start_brk),
// which /proc/PID/maps and later reports show. The caller reports a VMA
// Brk returned first and names it after, as the kernel's report in
// do_brk_flags() runs before mm->brk moves: a heap's first VMA is reported
// as "//anon", its growth as "[heap]".
// include/linux/mm.h: vma_is_initial_heap()
func (m *MM) NameHeap(v *VMA) {
	if v.File == nil && v.Special == "" && v.Start < m.CurBrk() && v.End > m.StartBrk() {
		v.Special = "[heap]"
	}
}

// Madvise is madvise() at now: MADV_DONTNEED and MADV_FREE drop the pages
// of [addr, addr+length) (the next touch faults again: a minor fault, the
// page cache still holds a file's pages); MADV_RANDOM, MADV_SEQUENTIAL and
// MADV_NORMAL set the VMAs' read hint; MADV_WILLNEED reads a file
// mapping's range ahead (an anon one has no swap to read). ENOMEM when
// part of the range is unmapped (after advising what is mapped), EINVAL
// for a bad start or advice.
// mm/madvise.c: do_madvise() -> madvise_dontneed_free(), madvise_willneed()
func (m *MM) Madvise(addr, length uint64, advice int64, now sim.Time) uapi.Errno {
	if addr%PageSize != 0 {
		return uapi.EINVAL
	}
	switch advice {
	case uapi.MADV_NORMAL, uapi.MADV_RANDOM, uapi.MADV_SEQUENTIAL, uapi.MADV_WILLNEED, uapi.MADV_DONTNEED, uapi.MADV_FREE:
	default:
		return uapi.EINVAL
	}
	end := addr + pageAlign(length)
	if end < addr {
		return uapi.EINVAL
	}
	var errno uapi.Errno
	for a := addr; a < end; a += PageSize {
		v := m.Find(a)
		if v == nil {
			errno = uapi.ENOMEM // "unmapped_error"
			continue
		}
		if advice == uapi.MADV_DONTNEED || advice == uapi.MADV_FREE && v.File == nil {
			m.zap(a) // zap_page_range_single()
		}
	}
	if advice == uapi.MADV_WILLNEED {
		m.willneed(addr, end, now)
		return errno
	}
	var want VMFlags
	switch advice {
	case uapi.MADV_RANDOM:
		want = VM_RAND_READ
	case uapi.MADV_SEQUENTIAL:
		want = VM_SEQ_READ
	case uapi.MADV_NORMAL:
	default:
		return errno
	}
	// madvise_update_vma(): the VMAs in the range get the new read hint,
	// split at its ends (perf hears of no split: no perf_event_mmap())
	m.modifyFlags(addr, end, VM_RAND_READ|VM_SEQ_READ, want, true)
	return errno
}

// willneed reads ahead the file pages of [addr, end)'s file VMAs, each
// VMA's part a POSIX_FADV_WILLNEED of its file (with its f_ra) at now.
// mm/madvise.c: madvise_willneed() -> vfs_fadvise()
func (m *MM) willneed(addr, end uint64, now sim.Time) {
	for _, v := range m.VMAs {
		lo, hi := max(addr, v.Start), min(end, v.End)
		if lo >= hi || v.File == nil || v.File.noopBDI() {
			continue // anon: no swap to read; a /dev file's: generic_fadvise() ignores the advice (noop_backing_dev_info)
		}
		first := v.pgoffOf(lo)
		v.File.ForceReadahead(v.readAhead(), first, v.pgoffOf(hi-1)-first+1, now)
	}
}

// Mremap is mremap(): shrinking unmaps the tail; growing extends in place
// when the pages after are free, else (MREMAP_MAYMOVE) moves the mapping to
// a new area (or to newAddr with MREMAP_FIXED), its present pages with it.
// No perf_event_mmap(): perf hears of no mremap. It returns the new
// address or the errno.
// mm/mremap.c: SYSCALL_DEFINE5(mremap)
func (m *MM) Mremap(addr, oldLen, newLen, flags, newAddr uint64) (uint64, uapi.Errno) {
	if addr%PageSize != 0 || flags&^uint64(uapi.MREMAP_MAYMOVE|uapi.MREMAP_FIXED|uapi.MREMAP_DONTUNMAP) != 0 ||
		flags&uapi.MREMAP_FIXED != 0 && flags&uapi.MREMAP_MAYMOVE == 0 {
		return 0, uapi.EINVAL
	}
	if flags&uapi.MREMAP_DONTUNMAP != 0 {
		return 0, uapi.EINVAL // not modelled: a clear refusal rather than a wrong mapping
	}
	oldLen, newLen = pageAlign(oldLen), pageAlign(newLen)
	if newLen == 0 {
		return 0, uapi.EINVAL
	}
	v := m.Find(addr)
	if v == nil || v.Start > addr || addr+oldLen > v.End {
		return 0, uapi.EFAULT // "vma_to_resize()": the old range is not one mapping
	}
	if flags&uapi.MREMAP_FIXED != 0 {
		if newAddr%PageSize != 0 || newAddr+newLen > StackTop || newAddr < addr+oldLen && addr < newAddr+newLen {
			return 0, uapi.EINVAL
		}
		return m.moveVMA(v, addr, oldLen, newLen, newAddr), 0
	}
	if newLen <= oldLen {
		if newLen < oldLen {
			m.Munmap(addr+newLen, oldLen-newLen)
		}
		return addr, 0
	}
	if addr+oldLen == v.End && m.free(v.End, addr+newLen) { // vma_expand() in place
		v.End = addr + newLen
		return addr, 0
	}
	if flags&uapi.MREMAP_MAYMOVE == 0 {
		return 0, uapi.ENOMEM
	}
	to, ok := m.unmappedArea(newLen)
	if !ok {
		return 0, uapi.ENOMEM
	}
	return m.moveVMA(v, addr, oldLen, newLen, to), 0
}

// moveVMA is move_vma(): [addr, addr+oldLen) of v goes to [to, to+newLen)
// with its present pages; the old range is unmapped.
func (m *MM) moveVMA(v *VMA, addr, oldLen, newLen, to uint64) uint64 {
	nv := v.part(addr, addr+newLen)
	nv.Start, nv.End = to, to+newLen
	if v.File == nil {
		nv.Pgoff = to / PageSize // an anon VMA's vm_pgoff follows its address
	}
	type pte struct {
		off        uint64
		ro, copied bool
	}
	var moved []pte
	for a := addr; a < addr+oldLen && a < addr+newLen; a += PageSize {
		if m.present[a] {
			moved = append(moved, pte{a - addr, m.ro[a], m.copied[a]})
		}
	}
	m.Munmap(to, newLen) // MREMAP_FIXED: what was there goes
	m.Munmap(addr, oldLen)
	m.insert(nv)
	for _, p := range moved {
		a := to + p.off
		m.present[a] = true
		if p.ro {
			m.ro[a] = true
		}
		if p.copied {
			m.copied[a] = true
		}
	}
	return to
}
