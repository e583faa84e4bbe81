package pmu

import (
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// mapRangeFailKnob picks what perf_mmap() does when map_range() fails.
var mapRangeFailKnob = sim.KnobSpec{
	Name:   "map-range-fail",
	Values: []string{"today", "proposed", "pre-77de62ad3de3", "pre-f74b9f4ba63f"},
	Help: "map_range() fails when remap_pfn_range() cannot allocate a page table page (-ENOMEM: fault injection, a memcg at its limit; " +
		"a scenario's \"fail remap_pfn_range in TASK\"). today: perf_mmap() calls perf_mmap_close(vma) inside scoped_guard(mutex, &event->mmap_mutex), " +
		"and perf_mmap_close()'s refcount_dec_and_mutex_lock(&event->mmap_count, &event->mmap_mutex) takes that mutex again when the mapping was " +
		"the event's only one: a self-deadlock (lockdep: possible recursive locking; without lockdep the task hangs in D with mmap_lock held); " +
		"since 77de62ad3de3, which moved map_range() under the mutex to close a use-after-free (CVE-2026-23248); " +
		"proposed: the undo stays under the mutex but does not take it again (refcount_dec_and_test(&event->mmap_count), ring_buffer_attach(event, NULL) with the mutex held): neither bug; " +
		"pre-77de62ad3de3: map_range() and its perf_mmap_close() after mutex_unlock(&event->mmap_mutex), as f74b9f4ba63f added them: everything undone, " +
		"but another process mapping the same event can take the mutex in between, find rb->mmap_count dropped to 0, attach a new buffer, and have it detached by the undo: its VMA maps a buffer the event no longer has (syzkaller: refcount_t addition on 0, use-after-free in perf_mmap; built-in mmap-fail-vs-mmap); " +
		"pre-f74b9f4ba63f: nothing is undone: event->mmap_count, rb->mmap_count and the locked_vm charge stay with no VMA to give them back",
	Source: "today: kernel/events/core.c perf_mmap() (post-v6.19) since 77de62ad3de3 (\"perf/core: Fix refcount bug and potential UAF in perf_mmap\", v7.0), " +
		"docs/upstream/map-range-fail-deadlock.md; proposed: that write-up's fix, not posted; pre-77de62ad3de3: f74b9f4ba63f (\"perf/core: Handle buffer mapping fail correctly in perf_mmap()\"); " +
		"pre-f74b9f4ba63f: map_range() as b709eb872e19 (\"perf/core: map pages in advance\") added it",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, mapRangeFailKnob) }

// mapRangeUnderMutex says whether map_range() and its failure's
// perf_mmap_close() run inside perf_mmap()'s event->mmap_mutex (today,
// proposed).
func (k *Kernel) mapRangeUnderMutex() bool {
	return k.KnobIs(mapRangeFailKnob.Name, "today") || k.KnobIs(mapRangeFailKnob.Name, "proposed")
}

// mapRange is map_range(): the buffer's pages go into the page table read
// only (perf_mmap_pfn_mkwrite() lets the user page be written). The model
// keeps no page tables, so only the failure is modelled: remap_pfn_range()
// cannot allocate a page table page (fault injection: site
// remap_pfn_range), map_range() zaps what it mapped and returns -ENOMEM,
// and perf_mmap() undoes what it did by perf_mmap_close(vma), "as the
// callsite expects full cleanup in this case and therefore does not invoke
// vmops::close()" (f74b9f4ba63f), or before it (knob pre-f74b9f4ba63f)
// does not. m is
// the mapping perf_mmap() made, not yet in the mm.
// kernel/events/core.c: map_range(), perf_mmap()
func (k *Kernel) mapRange(t *sched.Task, e *Event, m *Mapping, pgoff, pages uint64) error {
	// vm_insert_pages() of each page (cost.Profile.PerfMmapPerPage): the
	// time it holds event->mmap_mutex today
	t.Spend(sim.Duration(pages) * k.S.Cfg.Cost.PerfMmapPerPage)
	if !k.shouldFail(t, "remap_pfn_range") {
		return nil
	}
	if k.KnobIs(mapRangeFailKnob.Name, "pre-f74b9f4ba63f") {
		return uapi.ENOMEM
	}
	// The VMA holds its file (__mmap_new_file_vma()'s get_file(), before
	// the mmap hook); mmap_region()'s error path drops it with the VMA,
	// which the model's perf_mmap_close() does (fputMmap).
	k.accessFileRef(t, e, true)
	e.fileRefs++
	m.Pgoff, m.task, m.mm = pgoff, t, k.mmOf(t)
	// proposed: the undo knows perf_mmap() holds event->mmap_mutex
	k.perfMmapCloseFrom(t, m, pgoff, false, k.KnobIs(mapRangeFailKnob.Name, "proposed"))
	return uapi.ENOMEM
}
