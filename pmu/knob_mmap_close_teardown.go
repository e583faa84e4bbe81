package pmu

import "perfsim/sim"

// mmapCloseTeardownKnob picks which perf_mmap_close() tears a buffer down
// when two closes of one event's mappings interleave.
var mmapCloseTeardownKnob = sim.KnobSpec{
	Name:   "mmap-close-teardown",
	Values: []string{"today", "proposed"},
	Help: "perf_mmap_close() decides that it is the buffer's last close by refcount_dec_and_test(&rb->mmap_count) (detach_rest), then returns " +
		"early unless refcount_dec_and_mutex_lock(&event->mmap_count) says it is also the event's last: two closes of one event's two mappings " +
		"(two processes, or munmap() against exit_mmap()) that take rb->mmap_count 2->1 (A), 1->0 (B), then event->mmap_count 2->1 (B, out) and " +
		"1->0 (A, detach_rest false) both skip the teardown: the buffer's locked_vm and pinned_vm charge is never given back and mmap_user's " +
		"reference never dropped (free_uid()), so the user_struct and its charge stay for good; today; proposed: the close that took " +
		"rb->mmap_count to 0 tears down whether or not it was the event's last (docs/upstream/mmap-close-teardown.md)",
	Source: "today: kernel/events/core.c perf_mmap_close() (post-v6.19), since f91840a32dee (\"perf: Fix race in perf_mmap_close function\", v5.9) " +
		"made detach_rest the result of the close's own decrement; proposed: docs/upstream/mmap-close-teardown.md, not posted",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, mmapCloseTeardownKnob)
	RegisterObservable("mmap.teardowns", "perf_mmap_close() teardowns of a buffer no VMA maps any more (detach_rest: other events detached, the charge given back, free_uid())",
		func(k *Kernel) int64 { return int64(k.mm.teardowns) })
	RegisterObservable("mmap.teardowns-skipped", "closes that took rb->mmap_count to 0 but were not their event's last mapping, so returned before the teardown (today's kernel)",
		func(k *Kernel) int64 { return int64(k.mm.teardownsSkipped) })
}
