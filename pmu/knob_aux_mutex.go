package pmu

import "perfsim/sim"

// auxMutexKnob picks the lock that serializes a buffer's AUX area between
// the events sharing the buffer (PERF_EVENT_IOC_SET_OUTPUT).
var auxMutexKnob = sim.KnobSpec{
	Name:   "aux-mutex",
	Values: []string{"today", "pre-2ab9d830262c"},
	Help: "which lock serializes the AUX area of a buffer several events share (PERF_EVENT_IOC_SET_OUTPUT): today rb->aux_mutex, taken by " +
		"perf_mmap_aux() inside event->mmap_mutex and by perf_mmap_close() around perf_pmu_output_stop() and rb_free_aux(); " +
		"pre-2ab9d830262c: only the event->mmap_mutex of the event behind each mapping, so an AUX mmap through one event runs inside the last " +
		"AUX munmap through another: the mmap takes aux_mmap_count from 0 and maps pages the munmap then frees (a use after free), or two " +
		"mmaps both allocate the area",
	Source:  "2ab9d830262c perf/aux: Fix AUX buffer serialization (Peter Zijlstra, v6.11-rc7; Fixes 45bfb2e50471; reported by Ole; CVE-2024-46713)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, auxMutexKnob)
	RegisterStepPoints("perf_mmap_aux:has-aux", "rb_alloc_aux", "perf_mmap_close:aux-unmapped")
	RegisterObservable("mmap.refcount-warn", "refcount_t warnings on the mmap counts (an increment from 0: \"refcount_t: addition on 0; use-after-free\")",
		func(k *Kernel) int64 { return int64(k.mmapStats.refcountWarn) })
	RegisterObservable("mmap.aux-mutex-waits", "AUX mmaps and munmaps that slept on rb->aux_mutex",
		func(k *Kernel) int64 { return int64(k.mmapStats.auxMutexWaits) })
}

// mmapStats are the mmap paths' counters.
type mmapStats struct {
	refcountWarn  uint64
	auxMutexWaits uint64
	splits        uint64
}

// auxMutexOld reports whether the AUX area is serialized as before 2ab9d830262c.
func (k *Kernel) auxMutexOld() bool { return k.KnobIs("aux-mutex", "pre-2ab9d830262c") }

// refcountSaturated is REFCOUNT_SATURATED: where refcount_t parks a count it
// caught misused; it never moves from there.
const refcountSaturated = -1 << 30

// refcountWarn counts a refcount_warn_saturate(REFCOUNT_ADD_UAF): "refcount_t:
// addition on 0; use-after-free."
// lib/refcount.c: refcount_warn_saturate()
func (k *Kernel) refcountWarn(obj, op string) {
	k.mmapStats.refcountWarn++
	k.refcountAddOnZero(obj, op) // the object-lifetime oracle (lifetime.go)
}
