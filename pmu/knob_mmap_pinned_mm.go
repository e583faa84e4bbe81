package pmu

import (
	"fmt"

	"perfsim/sched"
	"perfsim/sim"
)

// mmapPinnedMMKnob picks whose mm->pinned_vm perf_mmap_close() takes a
// buffer's pinned charge back from.
var mmapPinnedMMKnob = sim.KnobSpec{
	Name:   "mmap-pinned-mm",
	Values: []string{"today", "proposed"},
	Help: "perf_mmap() charges the part of a ring over the user's perf_event_mlock_kb allowance to the mapping mm's pinned_vm " +
		"(rb->mmap_locked, rb->aux_mmap_locked); the buffer's last perf_mmap_close() takes it back from vma->vm_mm->pinned_vm, the mm of the " +
		"VMA closed last, which is another process's when two processes map one event (a forked child, an fd passed): that mm's pinned_vm " +
		"goes below zero and the first mm keeps the charge until it exits. Below zero, perf_mmap_calc_limits() lets that process pin more " +
		"than RLIMIT_MEMLOCK: on this machine's 6.18.44 an unprivileged user mapped a 16 MiB ring with RLIMIT_MEMLOCK 8 MiB after three " +
		"rounds (runner/testdata/realkernel/pinnedmove.sh; docs/upstream/mmap-pinned-other-mm.md); today; proposed: the buffer keeps the " +
		"mm it charged (rb->mmap_mm, mmgrab()) and the close uncharges that one",
	Source: "today: kernel/events/core.c perf_mmap_close() (post-v6.19): atomic64_sub(mmap_locked, &vma->vm_mm->pinned_vm) and " +
		"atomic64_sub(rb->aux_mmap_locked, &vma->vm_mm->pinned_vm), the mm's share taken back from the closing VMA's mm since the " +
		"perf_counter code of 2009 (vma->vm_mm->locked_vm -= event->mmap_locked; pinned_vm since bc3e53f682d9, 2011); proposed: " +
		"docs/upstream/mmap-pinned-other-mm.md, not posted",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, mmapPinnedMMKnob)
	RegisterObservable("mmap.pinned-vm-min", "the lowest mm->pinned_vm (pages) any mm had in the run: below 0 when a close took a charge back from an mm that was not charged",
		func(k *Kernel) int64 { return k.pinnedMin })
}

// chargePinned is perf_mmap_account()'s atomic64_add(extra,
// &vma->vm_mm->pinned_vm) for a mapping made in mm.
// kernel/events/core.c: perf_mmap_account()
func (k *Kernel) chargePinned(mm *mmStruct, extra int64) {
	k.setPinned(mm, k.pinnedVM[mm]+extra)
}

// unchargePinned is perf_mmap_close()'s atomic64_sub(locked,
// &vma->vm_mm->pinned_vm): today from vmaMM, the mm of the VMA being
// closed; proposed (knob mmap-pinned-mm) from charged, the mm the
// buffer's mapping charged. Taking the charge from an mm it was not made
// to is the mlock-accounting oracle's: that mm's count drops by pages it
// never had (below zero, RLIMIT_MEMLOCK no longer bounds the process) and
// the charged mm keeps them until it goes.
// kernel/events/core.c: perf_mmap_close()
func (k *Kernel) unchargePinned(t *sched.Task, vmaMM, charged *mmStruct, locked int64, e *Event, aux bool) {
	if locked == 0 {
		return
	}
	mm := vmaMM
	if charged != nil && k.KnobIs(mmapPinnedMMKnob.Name, "proposed") {
		mm = charged
	}
	v := k.pinnedVM[mm] - locked
	k.setPinned(mm, v)
	if charged == nil || mm == charged {
		return
	}
	c := -1
	if cur := k.curCPU(); cur != nil {
		c = cur.ID
	}
	what := fmt.Sprintf("ring of event %d", e.id)
	if aux {
		what = fmt.Sprintf("AUX area of event %d", e.id)
	}
	why := "the mm that was charged keeps them until it goes"
	if v < 0 {
		why += ", and below zero perf_mmap_calc_limits() lets this process pin that much more than RLIMIT_MEMLOCK"
	}
	k.accountViolations = append(k.accountViolations, AccountViolation{Invariant: "mlock-accounting", T: k.now(), CPU: c,
		Message: fmt.Sprintf("%s's perf_mmap_close() took the %s's %d pinned page(s) back from vma->vm_mm->pinned_vm, its own mm's, "+
			"which another process's mapping of the ring was charged them to: this mm's pinned_vm is now %d; %s", t.Name, what, locked, v, why)})
}

// pinnedSum is the pages charged to pinned_vm and not taken back, over
// every mm (an exited process's too).
func (k *Kernel) pinnedSum() int64 {
	var n int64
	for _, v := range k.pinnedVM {
		n += v
	}
	return n
}

// setPinned stores mm's pinned_vm and the run's lowest.
func (k *Kernel) setPinned(mm *mmStruct, v int64) {
	if k.pinnedVM == nil {
		k.pinnedVM = map[*mmStruct]int64{}
	}
	k.pinnedVM[mm] = v
	k.pinnedMin = min(k.pinnedMin, v)
}
