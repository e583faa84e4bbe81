package pmu

import "perfsim/sim"

// mmapRacedCloseKnob picks what perf_mmap_rb() does with event->mmap_count
// when it makes a new buffer.
var mmapRacedCloseKnob = sim.KnobSpec{
	Name:   "mmap-raced-close",
	Values: []string{"today", "pre-59741451b49c"},
	Help: "perf_mmap_rb() makes a new buffer when the event has none, or when its buffer's rb->mmap_count is already 0 (\"Raced against " +
		"perf_mmap_close()'s refcount_dec_and_mutex_lock() remove the event and continue as if !event->rb\"): the close of the event's last " +
		"mapping in another process has dropped rb->mmap_count and waits for event->mmap_mutex with event->mmap_count still 1. today the new " +
		"buffer sets event->mmap_count to 1, so that close then takes it to 0 and detaches the new buffer (ring_buffer_attach(event, NULL)): " +
		"its last reference goes and its pages are freed under the new mapping (a use after free of pages mapped to user space), and that " +
		"mapping's munmap() finds event->rb NULL in perf_mmap_close(): a NULL pointer dereference (docs/upstream/mmap-raced-close.md); " +
		"pre-59741451b49c: atomic_inc() kept the close's count (2), the close takes it to 1 and leaves the new buffer attached",
	Source: "today: kernel/events/core.c perf_mmap_rb() (post-v6.19), since 59741451b49c (\"perf: Identify the 0->1 transition for " +
		"event::mmap_count\", August 2025), whose premise (\"there was no RB, and as such there could not have been an mmap\") the raced path " +
		"of 8eaec7bb723c (\"perf/core: Remove retry loop from perf_mmap()\", v6.15) breaks; pre-59741451b49c: atomic_inc(&event->mmap_count)",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, mmapRacedCloseKnob) }

// perfMmapRBSetCount is perf_mmap_rb()'s event->mmap_count for the mapping
// that made a new buffer: today refcount_set(.., 1), which drops the count
// a close racing on the old buffer still holds; pre-59741451b49c an
// increment, which keeps it.
// kernel/events/core.c: perf_mmap_rb()
func (k *Kernel) perfMmapRBSetCount(e *Event) {
	if e.mmapCount > 0 && e.mmapCount != refcountSaturated && k.KnobIs(mmapRacedCloseKnob.Name, "pre-59741451b49c") {
		e.mmapCount++
		return
	}
	e.mmapCount = 1
}
