package pmu

import "perfsim/sim"

// mmapExtraAccountKnob picks what an extra mmap() of an event's ring (one
// that finds the buffer mapped and shares it) charges to user->locked_vm.
var mmapExtraAccountKnob = sim.KnobSpec{
	Name:   "mmap-extra-account",
	Values: []string{"today", "pre-0c8a4e4139ad"},
	Help: "an mmap() of an event whose ring is already mapped shares the buffer (perf_mmap_rb(): refcount_inc_not_zero(&event->rb->mmap_count)); " +
		"today it still calls perf_mmap_account(vma, user_extra, 0) with user_extra = the mapping's pages, and only the buffer's last " +
		"perf_mmap_close() uncharges, once, the first mapping's pages: every extra mapping leaks its pages in user->locked_vm for as long as the " +
		"user has a process (this machine's 6.18.44: after 40 extra mappings of a 1+8-page ring a fresh one is charged to pinned_vm, VmPin 36 kB; " +
		"docs/upstream/mmap-extra-locked-vm.md); pre-0c8a4e4139ad: user_extra was set after that path, which charged 0",
	Source: "today: kernel/events/core.c perf_mmap_rb() (post-v6.19), since 0c8a4e4139ad (\"perf/core: Further simplify perf_mmap()\", v6.15) " +
		"moved user_extra = nr_pages before the shared path; pre-0c8a4e4139ad: perf_mmap()'s user_extra = nr_pages + 1 after it (v6.14)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, mmapExtraAccountKnob)
	RegisterObservable("mmap.pinned-vm", "pages perf mappings charged to mm->pinned_vm (the excess over perf_event_mlock_kb) and not taken back, summed over every mm (an exited process's too: the model keeps its mm's count); each mm's own is what perf_mmap_calc_limits() reads",
		func(k *Kernel) int64 { return k.pinnedSum() })
}

// extraMmapCharge is what perf_mmap_rb() charges to user->locked_vm for a
// mapping of userPages that shares an already mapped buffer.
// kernel/events/core.c: perf_mmap_rb()
func (k *Kernel) extraMmapCharge(userPages int64) int64 {
	if k.KnobIs(mmapExtraAccountKnob.Name, "pre-0c8a4e4139ad") {
		return 0
	}
	return userPages
}
