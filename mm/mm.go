// Package mm models a process's address space (struct mm_struct and its
// VMAs), the pages present in it, the page cache of the files it maps, and
// its open files (files_struct): what mmap, munmap, execve and the page
// fault handler change, and what perf observes of them (PERF_RECORD_MMAP2,
// the page-fault software events). A thread (CLONE_VM) shares its leader's
// MM; a forked child gets Dup's copy.
package mm

import (
	"sort"

	"perfsim/sim"
	"perfsim/uapi"
)

// PageSize is PAGE_SIZE on x86_64.
const PageSize = 4096

// VMFlags are the vm_flags of a VMA the model uses.
type VMFlags uint32

// include/linux/mm.h: VM_READ ... VM_LOCKED
const (
	VM_READ      VMFlags = 0x1
	VM_WRITE     VMFlags = 0x2
	VM_EXEC      VMFlags = 0x4
	VM_SHARED    VMFlags = 0x8
	VM_MAYSHARE  VMFlags = 0x80
	VM_PFNMAP    VMFlags = 0x400 // page frames with no struct page ([vvar]): a fork copies their PTEs
	VM_LOCKED    VMFlags = 0x2000
	VM_SEQ_READ  VMFlags = 0x8000  // MADV_SEQUENTIAL: read ahead of each miss, no read-around
	VM_RAND_READ VMFlags = 0x10000 // MADV_RANDOM: no readahead
)

// Addresses of the layout (ASLR off, as under setarch -R): the stack's top,
// mmap_base below it, where the ELF image and the heap start.
const (
	StackTop   = 0x7ffffffff000
	StackSize  = 0x21000
	MmapBase   = 0x7ffff7fff000
	ImageBase  = 0x555555554000
	vdsoPages  = 2
	stringArea = StackTop - 0x1000 // where a program's string arguments live (the top stack page)
)

// VMA is a struct vm_area_struct: [Start, End), its flags, the file it maps
// and the page offset in it, or a special name ([stack], [vdso], [heap]).
type VMA struct {
	Start, End uint64
	Flags      VMFlags
	Pgoff      uint64 // in pages
	File       *File
	Special    string // "[vdso]", "[stack]", "[heap]"; "" for a file or anon mapping
	// anon is vma->anon_vma != NULL: the private VMA has had an anonymous
	// page (a write fault: anon_vma_prepare()); a split keeps it.
	anon bool
	// ra is vm_file->f_ra, the readahead state of the open file it maps
	// (SetReadAhead; a VMA made without one gets its own on first fault).
	ra *ReadAhead
}

// SetReadAhead makes v's faults read ahead with ra, its open file's f_ra.
func (v *VMA) SetReadAhead(ra *ReadAhead) { v.ra = ra }

// readAhead is v's vm_file->f_ra.
func (v *VMA) readAhead() *ReadAhead {
	if v.ra == nil {
		v.ra = NewReadAhead(v.File.fs)
	}
	return v.ra
}

// part is a copy of v covering [start, end) within it, its pgoff moved
// with its start (a split's or a partial unmap's piece: every other field,
// the anon_vma too, is v's).
func (v *VMA) part(start, end uint64) *VMA {
	nv := *v
	nv.Start, nv.End = start, end
	nv.Pgoff = v.Pgoff + (start-v.Start)/PageSize
	return &nv
}

// Len is vm_end - vm_start.
func (v *VMA) Len() uint64 { return v.End - v.Start }

// Prot and MapFlags are the prot and flags PERF_RECORD_MMAP2 carries.
// kernel/events/core.c: perf_event_mmap_event()
func (v *VMA) Prot() uint32 {
	var p uint32
	if v.Flags&VM_READ != 0 {
		p |= uapi.PROT_READ
	}
	if v.Flags&VM_WRITE != 0 {
		p |= uapi.PROT_WRITE
	}
	if v.Flags&VM_EXEC != 0 {
		p |= uapi.PROT_EXEC
	}
	return p
}

// MapFlags: MAP_SHARED or MAP_PRIVATE, | MAP_LOCKED.
func (v *VMA) MapFlags() uint32 {
	f := uint32(uapi.MAP_PRIVATE)
	if v.Flags&VM_MAYSHARE != 0 {
		f = uapi.MAP_SHARED
	}
	if v.Flags&VM_LOCKED != 0 {
		f |= uapi.MAP_LOCKED
	}
	return f
}

// Name is the file name PERF_RECORD_MMAP2 carries: the file's path, the
// special mapping's name, or "//anon".
func (v *VMA) Name() string {
	switch {
	case v.File != nil:
		return v.File.Path
	case v.Special != "":
		return v.Special
	}
	return "//anon"
}

// MM is a struct mm_struct: the VMAs in address order, the pages present
// (page-aligned addresses with a PTE), and the user memory the model reads
// from: the strings a program passes by address.
type MM struct {
	VMAs    []*VMA
	present map[uint64]bool
	// ro are the present pages whose PTE is read-only: the zero page or a
	// page-cache page a read fault mapped (in a shared VMA too: its write
	// is page_mkwrite()'s fault), or a page a fork write-protected for
	// copy-on-write. Writing one faults (do_wp_page()).
	ro map[uint64]bool
	// copied are the present pages of a private file VMA that hold an
	// anon copy of the file's page (do_cow_fault(), wp_page_copy()): the
	// others map the page cache's folio (MapsFilePage).
	copied  map[uint64]bool
	strings map[uint64]string
	strTop  uint64
	// Users counts the tasks sharing it (mm_users): CLONE_VM threads.
	Users int

	heap brkState // mm->start_brk, mm->brk (brk.go)
	key  string   // its stable name for partial-order reduction (footprint_key.go)
}

// New is an empty address space with its stack VMA (mm_alloc() plus
// setup_arg_pages()). The stack is anonymous: insert_vm_struct() gave it
// vm_pgoff = vm_start >> PAGE_SHIFT, and expand_downwards() moved that down
// with vm_start, so its pgoff is its address in pages (ASLR off: no shift).
func New() *MM {
	m := &MM{present: map[uint64]bool{}, ro: map[uint64]bool{}, copied: map[uint64]bool{}, strings: map[uint64]string{}, strTop: StackTop, Users: 1}
	m.insert(&VMA{Start: StackTop - StackSize, End: StackTop, Flags: VM_READ | VM_WRITE, Pgoff: (StackTop - StackSize) / PageSize, Special: "[stack]"})
	return m
}

// Stack is the stack VMA (nil once unmapped).
func (m *MM) Stack() *VMA {
	for _, v := range m.VMAs {
		if v.Special == "[stack]" {
			return v
		}
	}
	return nil
}

// Dup is dup_mmap() for a forked child: a copy of every VMA; the page
// tables are copied only where a fault could not fill them (a VMA with an
// anon_vma, or a VM_PFNMAP one such as [vvar]), so the child faults the rest in
// again; and copy-on-write: every present page of a private VMA becomes
// read-only in both, so the first write on either side faults.
// kernel/fork.c: dup_mm() -> dup_mmap(); mm/memory.c: copy_page_range(),
// vma_needs_copy(), copy_present_pte() (ptep_set_wrprotect() of a COW mapping)
func (m *MM) Dup() *MM {
	c := &MM{present: make(map[uint64]bool, len(m.present)), ro: make(map[uint64]bool, len(m.present)), copied: make(map[uint64]bool, len(m.copied)), strings: make(map[uint64]string, len(m.strings)), strTop: m.strTop, Users: 1, heap: m.heap}
	for _, v := range m.VMAs {
		nv := *v
		c.VMAs = append(c.VMAs, &nv)
	}
	// the present pages, not every page of every VMA: a large mapping is
	// mostly untouched
	for a := range m.present {
		v := m.Find(a)
		if v == nil || !v.anon && v.Flags&VM_PFNMAP == 0 { // vma_needs_copy()
			continue
		}
		c.present[a] = true
		if m.copied[a] {
			c.copied[a] = true
		}
		if v.Flags&VM_SHARED == 0 { // is_cow_mapping(): private, VM_MAYWRITE
			m.ro[a], c.ro[a] = true, true
		}
	}
	for a, s := range m.strings {
		c.strings[a] = s
	}
	return c
}

// Find is find_vma(): the VMA containing addr, or nil.
func (m *MM) Find(addr uint64) *VMA {
	i := sort.Search(len(m.VMAs), func(i int) bool { return m.VMAs[i].End > addr })
	if i < len(m.VMAs) && m.VMAs[i].Start <= addr {
		return m.VMAs[i]
	}
	return nil
}

func (m *MM) insert(v *VMA) {
	i := sort.Search(len(m.VMAs), func(i int) bool { return m.VMAs[i].Start >= v.Start })
	m.VMAs = append(m.VMAs, nil)
	copy(m.VMAs[i+1:], m.VMAs[i:])
	m.VMAs[i] = v
}

// free reports whether [start, end) meets no VMA.
func (m *MM) free(start, end uint64) bool {
	for _, v := range m.VMAs {
		if v.Start < end && start < v.End {
			return false
		}
	}
	return true
}

// unmappedArea is the top-down search of arch_get_unmapped_area_topdown():
// the highest gap below MmapBase that holds length bytes.
// mm/mmap.c: unmapped_area_topdown()
func (m *MM) unmappedArea(length uint64) (uint64, bool) {
	high := uint64(MmapBase)
	for i := len(m.VMAs) - 1; i >= -1; i-- {
		low := uint64(PageSize) // mmap_min_addr
		if i >= 0 {
			low = m.VMAs[i].End
		}
		if low >= high {
			if i >= 0 {
				high = min(high, m.VMAs[i].Start)
			}
			continue
		}
		if high-low >= length {
			return high - length, true
		}
		if i >= 0 {
			high = m.VMAs[i].Start
		}
	}
	return 0, false
}

// pmdSize is PMD_SIZE: what a page table maps, a huge page.
const pmdSize = ptrsPerPTE * PageSize

// getUnmappedArea is the top-down search for length bytes at file offset
// off, aligned to a huge page where the kernel aligns it: a file mapping
// of at least 2 MB past its first 2 MB-aligned offset (ext4's
// thp_get_unmapped_area(): measured here, a 4 MB mapping of an ext4 file
// starts on a 2 MB boundary), and a private anon mapping whose length is a
// multiple of 2 MB made with no address hint (__get_unmapped_area():
// anonPrivate). A shared anon mapping is shmem's, which aligns only with
// huge shmem (shmem_enabled is never by default).
// mm/mmap.c: __get_unmapped_area(); mm/huge_memory.c: __thp_get_unmapped_area()
func (m *MM) getUnmappedArea(length, off uint64, file, anonPrivate bool) (uint64, bool) {
	thp := file || anonPrivate && length%pmdSize == 0
	if !file {
		off = 0 // "Always treat pgoff as zero for anonymous memory"
	}
	offEnd, offAlign := off+length, (off+pmdSize-1)&^(pmdSize-1)
	if thp && offEnd > offAlign && offEnd-offAlign >= pmdSize {
		if ret, ok := m.unmappedArea(length + pmdSize); ok {
			if sub := (off - ret) & (pmdSize - 1); sub != 0 {
				return ret + sub, true
			}
			return ret + pmdSize, true // top-down: the padding below
		}
	}
	return m.unmappedArea(length)
}

func pageAlign(n uint64) uint64 { return (n + PageSize - 1) &^ (PageSize - 1) }

// Mmap is do_mmap() without the file checks (the caller checked the fd):
// a new VMA of length (rounded up to pages) at addr (a hint, or exact with
// MAP_FIXED, which unmaps what was there) or where the top-down search puts
// it. It returns the VMA, or the errno mmap returns. MAP_POPULATE and
// MAP_LOCKED's faults are the caller's to make (Populate), with time.
// mm/mmap.c: do_mmap() -> mmap_region()
func (m *MM) Mmap(addr, length uint64, prot, flags uint64, file *File, off uint64) (*VMA, uapi.Errno) {
	return m.MmapChecked(addr, length, prot, flags, file, off, nil)
}

// MmapChecked is Mmap with the open file's checks (mayMap: EACCES for a
// file not open as the mapping needs), made where do_mmap() makes them:
// after the length, type and address are checked and the address found,
// before a MAP_FIXED mapping unmaps what was there.
// mm/mmap.c: do_mmap()
func (m *MM) MmapChecked(addr, length uint64, prot, flags uint64, file *File, off uint64, mayMap func() uapi.Errno) (*VMA, uapi.Errno) {
	if length == 0 || off%PageSize != 0 {
		return nil, uapi.EINVAL
	}
	length = pageAlign(length)
	if length == 0 || length > MmapBase {
		return nil, uapi.ENOMEM
	}
	switch flags & uapi.MAP_TYPE {
	case uapi.MAP_SHARED, uapi.MAP_PRIVATE, uapi.MAP_SHARED_VALIDATE:
	default:
		return nil, uapi.EINVAL
	}
	fixed := flags&(uapi.MAP_FIXED|uapi.MAP_FIXED_NOREPLACE) != 0
	if fixed {
		if addr%PageSize != 0 || addr+length > StackTop || addr < PageSize {
			return nil, uapi.EINVAL
		}
		if !m.free(addr, addr+length) {
			if flags&uapi.MAP_FIXED_NOREPLACE != 0 {
				return nil, uapi.EEXIST
			}
			if mayMap != nil {
				if e := mayMap(); e != 0 {
					return nil, e
				}
				mayMap = nil
			}
			m.Munmap(addr, length)
		}
	} else {
		hint := addr != 0
		addr = addr &^ (PageSize - 1)
		if addr < PageSize || addr+length > MmapBase || !m.free(addr, addr+length) {
			a, ok := m.getUnmappedArea(length, off, file != nil, !hint && flags&uapi.MAP_TYPE == uapi.MAP_PRIVATE)
			if !ok {
				return nil, uapi.ENOMEM
			}
			addr = a
		}
	}
	if mayMap != nil {
		if e := mayMap(); e != 0 {
			return nil, e
		}
	}
	v := &VMA{Start: addr, End: addr + length, Pgoff: off / PageSize, File: file}
	if file == nil && flags&uapi.MAP_TYPE == uapi.MAP_PRIVATE {
		v.Pgoff = addr / PageSize // do_mmap(): "pgoff = addr >> PAGE_SHIFT" for private anon (PERF_RECORD_MMAP2 shows it)
	}
	if prot&uapi.PROT_READ != 0 {
		v.Flags |= VM_READ
	}
	if prot&uapi.PROT_WRITE != 0 {
		v.Flags |= VM_WRITE
	}
	if prot&uapi.PROT_EXEC != 0 {
		v.Flags |= VM_EXEC
	}
	if flags&uapi.MAP_TYPE != uapi.MAP_PRIVATE {
		v.Flags |= VM_SHARED | VM_MAYSHARE
	}
	if flags&uapi.MAP_LOCKED != 0 {
		v.Flags |= VM_LOCKED
	}
	m.insert(v)
	return v, 0
}

// vvarPages and vclockPages are the vDSO data pages x86_64 maps below its
// text: VDSO_NR_VVAR_PAGES ([vvar]) and VDSO_NR_VCLOCK_PAGES
// ([vvar_vclock]), __VDSO_PAGES in all; 4 and 2 on this machine's 6.18
// (/proc/PID/maps).
const (
	vvarPages   = 4
	vclockPages = 2
)

// MapVdso maps the vDSO as map_vdso() does: one area for the data and text
// pages found top-down, [vvar] at its bottom, [vvar_vclock] above it, the
// text ([vdso], r-x) at the top; it returns the VMAs in the order they are
// installed (each _install_special_mapping() a perf_event_mmap()): [vdso],
// [vvar], [vvar_vclock].
// arch/x86/entry/vdso/vma.c: map_vdso()
func (m *MM) MapVdso() []*VMA {
	a, _ := m.unmappedArea((vvarPages + vclockPages + vdsoPages) * PageSize)
	vvar := &VMA{Start: a, End: a + vvarPages*PageSize, Flags: VM_READ | VM_PFNMAP, Special: "[vvar]"}
	vclock := &VMA{Start: vvar.End, End: vvar.End + vclockPages*PageSize, Flags: VM_READ | VM_PFNMAP, Special: "[vvar_vclock]"}
	text := &VMA{Start: vclock.End, End: vclock.End + vdsoPages*PageSize, Flags: VM_READ | VM_EXEC, Special: "[vdso]"}
	for _, v := range []*VMA{text, vvar, vclock} {
		m.insert(v)
	}
	return []*VMA{text, vvar, vclock}
}

// Munmap is do_vmi_munmap(): removes [addr, addr+length) from every VMA it
// meets (splitting those it cuts) and forgets their pages.
// mm/vma.c: do_vmi_munmap()
func (m *MM) Munmap(addr, length uint64) uapi.Errno {
	if addr%PageSize != 0 || length == 0 || addr+length > StackTop {
		return uapi.EINVAL
	}
	end := addr + pageAlign(length)
	var out []*VMA
	for _, v := range m.VMAs {
		if v.End <= addr || v.Start >= end {
			out = append(out, v)
			continue
		}
		if v.Start < addr {
			out = append(out, v.part(v.Start, addr))
		}
		if v.End > end {
			out = append(out, v.part(end, v.End))
		}
	}
	m.VMAs = out
	for a := addr; a < end; a += PageSize {
		m.zap(a)
	}
	return 0
}

// Fault is the result of a user access to an address.
type Fault uint8

// What an access did.
const (
	NoFault    Fault = iota // the page was present
	MinorFault              // a page was allocated or found in the page cache
	MajorFault              // the file page was read from disk (VM_FAULT_MAJOR)
	BadAccess               // no VMA, or the VMA forbids the access: SIGSEGV
)

// Access is a user access to addr: a fault when its page is not present,
// or when a write meets a read-only PTE (the zero page, a page-cache page
// of a private VMA, a page a fork shares copy-on-write: do_wp_page()
// copies it or, the last user, reuses it; a page-cache page of a shared
// writable VMA: wp_page_shared() makes it writable). An anon page is a
// minor fault; a file page goes through the page cache (fileFault). A
// read fault of a private anon VMA maps the zero page read-only; a write
// fault of a private VMA gives it its anon_vma.
// arch/x86/mm/fault.c: do_user_addr_fault() -> mm/memory.c: handle_mm_fault(),
// do_anonymous_page(), do_fault(), do_wp_page()
func (m *MM) Access(addr uint64, write bool) Fault {
	f, _ := m.AccessHow(addr, write)
	return f
}

// AccessHow is Access with no time passing (every read done at once), and
// the handler the fault ran.
func (m *MM) AccessHow(addr uint64, write bool) (Fault, How) {
	return m.Fault(addr, write, func() sim.Time { return 0 }, func(FaultResult) {})
}

// Fault is a user access to addr, with its retries: each attempt runs at
// now(); an attempt that returns Retry is passed to wait (which lets time
// pass to its RetryAt: the task waits for the read in D) before the next.
// The attempts make one fault, major if the first was.
// arch/x86/mm/fault.c: do_user_addr_fault()'s retry
func (m *MM) Fault(addr uint64, write bool, now func() sim.Time, wait func(FaultResult)) (Fault, How) {
	first := NoFault
	for attempt := 1; ; attempt++ {
		r := m.AccessAt(addr, write, now(), triedAfter(attempt, first))
		if attempt == 1 {
			first = r.Fault
		}
		if !r.Retry {
			if first == MajorFault && r.Fault != BadAccess {
				return MajorFault, r.How
			}
			return r.Fault, r.How
		}
		wait(r)
	}
}

// triedAfter is whether attempt n at a fault (1, 2, ...) runs with
// FAULT_FLAG_TRIED, the first having faulted first: x86 makes the first
// attempt under the VMA lock and sets it for the next only when that one
// was major; every retry after sets it. A retried fault's count is major
// when its first attempt was (then FAULT_FLAG_TRIED is set).
// arch/x86/mm/fault.c: do_user_addr_fault(); mm/memory.c: mm_account_fault()
func triedAfter(n int, first Fault) bool {
	return n >= 3 || n == 2 && first == MajorFault
}

// FaultResult is what an attempt at a fault did: the fault (MajorFault if
// it had to read its page), the handler it ran, and whether it is retried
// (VM_FAULT_RETRY: the mmap lock was dropped for I/O) and when (the page's
// read done). A retried fault is one fault to perf and to its counts:
// major if its first attempt was.
type FaultResult struct {
	Fault   Fault
	How     How
	Retry   bool
	RetryAt sim.Time
}

// How is the handler a fault ran, which its cost depends on (the cost
// model's fault costs, cost/calibrate/faults.c).
type How uint8

// The handlers.
const (
	HowAnonPage  How = iota // do_anonymous_page() of a write: a zeroed page
	HowZeroPage             // do_anonymous_page() of a read: the zero page mapped read-only
	HowFileMap              // a file's cached pages mapped: fault-around, finish_fault()
	HowCopy                 // a page copied into an anon one: do_cow_fault(), wp_page_copy()
	HowWriteable            // a read-only PTE made writable: wp_page_shared() (page_mkwrite())
)

// AccessAt is an attempt at a user access to addr at now (tried:
// FAULT_FLAG_TRIED, a retry's: triedAfter).
func (m *MM) AccessAt(addr uint64, write bool, now sim.Time, tried bool) FaultResult {
	page := addr &^ (PageSize - 1)
	v := m.Find(addr)
	if v == nil || write && v.Flags&VM_WRITE == 0 || !write && v.Flags&(VM_READ|VM_WRITE|VM_EXEC) == 0 {
		return FaultResult{Fault: BadAccess} // access_error()
	}
	private := v.Flags&VM_SHARED == 0
	if m.present[page] {
		if !write || !m.ro[page] {
			return FaultResult{Fault: NoFault}
		}
		delete(m.ro, page) // do_wp_page(): wp_page_copy() or the reuse; wp_page_shared()
		if !private {
			return FaultResult{Fault: MinorFault, How: HowWriteable}
		}
		v.anon = true
		if v.File != nil {
			m.copied[page] = true
		}
		return FaultResult{Fault: MinorFault, How: HowCopy}
	}
	if v.File != nil {
		return m.fileFault(v, page, write, now, tried)
	}
	m.present[page] = true
	if private && !write {
		m.ro[page] = true
		return FaultResult{Fault: MinorFault, How: HowZeroPage}
	}
	if private {
		v.anon = true
	}
	return FaultResult{Fault: MinorFault, How: HowAnonPage}
}

// WriteProtected reports whether the page of addr has a read-only PTE in a
// private VMA: a write faults (do_wp_page()).
func (m *MM) WriteProtected(addr uint64) bool { return m.ro[addr&^(PageSize-1)] }

// Populate faults every page of v in, as mm_populate() does after an
// mmap() with MAP_POPULATE or MAP_LOCKED: a private writable VMA with
// write faults (FOLL_WRITE: copy-on-write broken now, an anon copy of a
// file page), any other with read faults (the zero page of a private anon
// VMA, a file's pages by fault-around and readahead, as a touch would). An
// inaccessible VMA is left alone, and a page past a file's i_size ends it
// (SIGBUS: GUP stops there). Each attempt runs at now(); one that must wait
// for the disk (VM_FAULT_RETRY) is passed to wait, is not counted, and the
// page is faulted afresh (__mm_populate() goes on from the page, without
// FOLL_TRIED): so every counted fault is minor, as the real ones are here
// (mm/testdata/populate). It returns the handler of each counted fault:
// the task's min_flt counts them, and no perf event (regs are NULL).
// mm/gup.c: __mm_populate() -> populate_vma_page_range() -> __get_user_pages() -> faultin_page()
func (m *MM) Populate(v *VMA, now func() sim.Time, wait func(FaultResult)) []How {
	if v.Flags&(VM_READ|VM_WRITE|VM_EXEC) == 0 {
		return nil
	}
	write := v.Flags&(VM_WRITE|VM_SHARED) == VM_WRITE
	var hows []How
	for a := v.Start; a < v.End; a += PageSize {
		if m.present[a] && (!write || !m.ro[a]) {
			continue // follow_page_mask() finds it: no fault
		}
		for {
			r := m.AccessAt(a, write, now(), false)
			if r.Fault == BadAccess {
				return hows
			}
			if !r.Retry {
				hows = append(hows, r.How)
				break
			}
			wait(r)
		}
	}
	return hows
}

// zap drops the PTE of the page at addr: zap_pte_range().
func (m *MM) zap(addr uint64) {
	delete(m.present, addr)
	delete(m.ro, addr)
	delete(m.copied, addr)
}

// MapsFilePage reports whether m has a PTE that maps page pgoff of f's
// page cache (folio_mapped() of its folio, for this address space): a
// page of a mapping of f that is present and not an anon copy.
func (m *MM) MapsFilePage(f *File, pgoff uint64) bool {
	for _, v := range m.VMAs {
		if v.File != f || pgoff < v.Pgoff || pgoff >= v.Pgoff+v.Len()/PageSize {
			continue
		}
		if a := v.addrOf(pgoff); m.present[a] && !m.copied[a] {
			return true
		}
	}
	return false
}

// Present reports whether the page of addr has a PTE.
func (m *MM) Present(addr uint64) bool { return m.present[addr&^(PageSize-1)] }

// PutString places a program's string argument in user memory (the top
// page of the stack) and returns its address.
func (m *MM) PutString(s string) uint64 {
	for a, x := range m.strings {
		if x == s {
			return a
		}
	}
	m.strTop -= uint64(len(s)+1+7) &^ 7
	m.strings[m.strTop] = s
	return m.strTop
}

// String is strncpy_from_user(): the string at addr, or false (-EFAULT).
func (m *MM) String(addr uint64) (string, bool) {
	s, ok := m.strings[addr]
	return s, ok
}

// elfSegments is the PT_LOAD layout LoadELF gives every image: a read-only
// header page, one text page, one rodata page, two data pages (pages,
// vm_flags, file page offset), the shape of a small PIE binary. The data
// segment's PT_LOAD lies in its two pages as /usr/bin/true's does here
// (coreutils 9.1: p_vaddr 0x8d70, p_filesz 0x470, p_memsz 0x608): its file
// part ends inside the second page, whose rest elf_load()'s padzero()
// clears (ELFDataVaddrOff, ELFDataFilesz, ELFDataMemsz; PadzeroAddr).
var elfSegments = []struct {
	pages uint64
	flags VMFlags
	pgoff uint64
}{
	{1, VM_READ, 0}, {1, VM_READ | VM_EXEC, 1}, {1, VM_READ, 2}, {2, VM_READ | VM_WRITE, 2},
}

// The data segment's PT_LOAD within its VMA: its offset in the first page,
// its file size and its memory size (the bss after the file part).
const (
	ELFDataVaddrOff = 0xd70
	ELFDataFilesz   = 0x470
	ELFDataMemsz    = 0x608
)

// PadzeroAddr is where elf_load()'s padzero() starts clearing the data
// segment of an image LoadELF mapped (its VMAs): the end of the segment's
// file part, inside a page (padzero() clears only a partial page).
// fs/binfmt_elf.c: elf_load() -> padzero()
func PadzeroAddr(image []*VMA) uint64 {
	return image[len(image)-1].Start + ELFDataVaddrOff + ELFDataFilesz
}

// LoadELF maps the PT_LOAD segments of an ELF file, at base or (base 0, the
// interpreter) where the top-down search puts them, and returns the new
// VMAs in the order elf_load() maps them.
// fs/binfmt_elf.c: load_elf_binary() -> elf_load(); load_elf_interp()
func (m *MM) LoadELF(f *File, base uint64) []*VMA {
	var total uint64
	for _, s := range elfSegments {
		total += s.pages * PageSize
	}
	if base == 0 || !m.free(base, base+total) {
		base, _ = m.unmappedArea(total)
	}
	var out []*VMA
	a := base
	for _, s := range elfSegments {
		v := &VMA{Start: a, End: a + s.pages*PageSize, Flags: s.flags, Pgoff: s.pgoff, File: f}
		m.insert(v)
		out = append(out, v)
		a = v.End
	}
	return out
}

func (f Fault) String() string {
	return [...]string{"none", "minor", "major", "bad"}[f]
}

// Mprotect is do_mprotect_pkey(): the VMAs of [addr, addr+length) get prot,
// split where the range cuts them. It returns the VMAs whose flags changed
// (mprotect_fixup() calls perf_event_mmap() for each) and ENOMEM at the
// first hole, after changing what came before it, as the kernel does.
// mm/mprotect.c: do_mprotect_pkey() -> mprotect_fixup()
func (m *MM) Mprotect(addr, length, prot uint64) ([]*VMA, uapi.Errno) {
	if addr%PageSize != 0 || prot&^uint64(uapi.PROT_READ|uapi.PROT_WRITE|uapi.PROT_EXEC) != 0 {
		return nil, uapi.EINVAL
	}
	end := addr + pageAlign(length)
	if end < addr {
		return nil, uapi.ENOMEM
	}
	if end == addr {
		return nil, 0
	}
	var want VMFlags
	if prot&uapi.PROT_READ != 0 {
		want |= VM_READ
	}
	if prot&uapi.PROT_WRITE != 0 {
		want |= VM_WRITE
	}
	if prot&uapi.PROT_EXEC != 0 {
		want |= VM_EXEC
	}
	changed, ok := m.modifyFlags(addr, end, VM_READ|VM_WRITE|VM_EXEC, want, false)
	if !ok {
		return changed, uapi.ENOMEM
	}
	return changed, 0
}

// modifyFlags gives the VMAs of [start, end) the flags want in mask,
// splitting a VMA the range cuts, and returns those it changed (one whose
// flags are already want is left whole: "newflags == oldflags"). At a
// hole it stops and reports false (mprotect's ENOMEM) or, with skipHoles,
// goes on to the next VMA (madvise's, which fails at the end).
// mm/vma.c: vma_modify_flags() -> split_vma()
func (m *MM) modifyFlags(start, end uint64, mask, want VMFlags, skipHoles bool) ([]*VMA, bool) {
	var changed []*VMA
	for next := start; next < end; {
		v := m.Find(next)
		if v == nil {
			if !skipHoles {
				return changed, false
			}
			i := sort.Search(len(m.VMAs), func(i int) bool { return m.VMAs[i].Start >= next })
			if i == len(m.VMAs) || m.VMAs[i].Start >= end {
				break
			}
			next = m.VMAs[i].Start
			continue
		}
		if v.Flags&mask == want {
			next = v.End
			continue
		}
		if v.Start < next {
			m.split(v, next)
			continue
		}
		if v.End > end {
			m.split(v, end)
		}
		v.Flags = v.Flags&^mask | want
		changed = append(changed, v)
		next = v.End
	}
	return changed, true
}

// split cuts v at a, leaving [v.Start, a) in v and inserting [a, v.End).
// mm/vma.c: split_vma()
func (m *MM) split(v *VMA, a uint64) {
	right := v.part(a, v.End)
	v.End = a
	m.insert(right)
}
