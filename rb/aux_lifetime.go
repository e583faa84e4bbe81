package rb

// The AUX pages' lifetime as the invariants see it: rb_alloc_aux() allocates
// them (TraceAuxAlloc), __rb_free_aux() frees them (TraceAuxFree), and user
// space maps them (TraceAuxMap, Value 1, when perf_mmap() commits a mapping
// to the area) and unmaps them (Value 0, as munmap() zaps the mapping's page
// tables, before perf_mmap_close() runs). A mapping must never outlive the
// pages it maps, and a second allocation must never replace a live one: both
// happened when two events sharing one buffer mapped and unmapped its AUX area
// under two different event->mmap_mutexes (2ab9d830262c, knob aux-mutex).

// TraceAuxAlloc: rb_alloc_aux() allocated an AUX area of Size pages.
const TraceAuxAlloc TraceKind = 98

// TraceAuxMap: a mapping of the AUX area came (Value 1) or went (Value 0).
const TraceAuxMap TraceKind = 99

// AuxMapped logs that a user mapping of the AUX area came (mapped) or went.
// The core calls it; the buffer keeps no count of its own (a VMA is mm state).
func (rb *Buffer) AuxMapped(mapped bool) {
	v := uint64(0)
	if mapped {
		v = 1
	}
	rb.trace(TraceEvent{Kind: TraceAuxMap, Value: v})
}

var auxLifetimeInvariant = Invariant{"aux-pages-lifetime",
	"the AUX pages are freed only when no user mapping maps them and always once the last one goes, a mapping is made only of pages that exist, and rb_alloc_aux() never replaces a live area",
	"a mapping left on freed AUX pages is a use after free, and a second allocation leaks the first (2ab9d830262c: AUX buffer serialization, knob aux-mutex; CVE-2024-46713); " +
		"pages left after the last unmap leak with their locked_vm charge (b024d7b56c77: a split mapping, knob vma-split; " +
		"today an AUX transaction a group throttle left open keeps them: docs/upstream/pt-throttle-group.md, knob aux-throttle)"}

// auxLifetimeCheck is the aux-pages-lifetime part of auxCheck.
func auxLifetimeCheck(log []TraceEvent, f Final, bad func(name, format string, args ...any), at *int) {
	live, maps, lastUnmap := false, 0, -1
	defer func() { *at = -1 }()
	for i := range log {
		*at = i
		switch e := &log[i]; e.Kind {
		case TraceAuxAlloc:
			if live {
				bad("aux-pages-lifetime", "rb_alloc_aux() allocated %d AUX pages over a live AUX area: the first allocation leaks (double allocation)", e.Size)
			}
			live = true
			lastUnmap = -1
		case TraceAuxFree:
			if maps > 0 {
				bad("aux-pages-lifetime", "the AUX pages were freed while %d user mapping(s) still map them: use after free", maps)
			}
			live, lastUnmap = false, -1
		case TraceAuxMap:
			if e.Value == 0 {
				if maps--; maps == 0 {
					lastUnmap = i
				}
				continue
			}
			if !live {
				bad("aux-pages-lifetime", "an AUX mapping was made of an AUX area with no pages")
			}
			maps++
			lastUnmap = -1
		}
	}
	// A leak only counts when the run ended quiet: a time limit may cut an
	// munmap off between the unmap and the free.
	if live && maps == 0 && lastUnmap >= 0 && f.Quiet {
		*at = lastUnmap
		if auxLeftOpenByThrottle(log) >= 0 {
			bad("aux-pages-lifetime", "the AUX pages outlived the last mapping of them (a leak): an AUX writer still holds aux_refcount, so perf_mmap_close() did not free them%s",
				throttleOpenCause)
			return
		}
		bad("aux-pages-lifetime", "the AUX pages outlived the last mapping of them (a leak): aux_mmap_count never reached 0, or an AUX writer still holds aux_refcount, so perf_mmap_close() did not free them")
	}
}

func init() { Invariants = append(Invariants, auxLifetimeInvariant) }
