package explore

import (
	"testing"
)

// The counters munmap()'s annotated fragments bump: observables nothing
// in the run reads (pmu/mmap_lock.go's mmState, pmu/knob_aux_mutex.go's
// mmapStats, read by Observe after the run), like pmu.mmState.detaches.
func init() {
	auditSkip = append(auditSkip,
		"pmu.mmState.closes",           // perf_mmap_close() calls (mmap.closes)
		"pmu.mmState.auxFrees",         // AUX areas freed by perf_mmap_close() (mmap.aux-frees)
		"pmu.mmState.empty",            // munmap() calls that found nothing left to unmap (mmap.munmap-empty)
		"pmu.mmState.lockWaits",        // mmap()/munmap() calls that slept on mmap_lock (mmap.lock-waits)
		"pmu.mmapStats.auxMutexWaits",  // the takes of rb->aux_mutex that slept
		"pmu.mmState.teardowns",        // perf_mmap_close() teardowns (mmap.teardowns)
		"pmu.mmState.teardownsSkipped", // closes that skipped one (mmap.teardowns-skipped)
		"pmu.mmState.extraCharged",     // pages extra mappings charged: the mlock-accounting oracle's account of a leak, read after the run
		"pmu.mmState.exitCloses",       // perf VMAs exit_mmap() closed (mmap.exit-closes)
		"pmu.mmState.exitDetaches",     // ... whose close detached the event (mmap.exit-detaches)
		"pmu.Kernel.accountViolations", // the mlock-accounting oracle's reports (an mm's pinned_vm below zero)
	)
}

// anonMunmapSrc unmaps anonymous memory its task touched (sched's modelled
// munmap(2), mm.MM.Munmap: sched/footprint_munmap.go) while perf samples
// its page faults from the other CPU's view.
const anonMunmapSrc = `scenario anon-munmap
title "munmap(2) of touched anonymous pages under -e page-faults"

cpus 2

task workload cpu1
  syscall mmap 0 40960 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as p
  touch p 10 write
  syscall munmap p 40960
  syscall mmap 0 40960 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as q
  touch q 4 write
  syscall munmap q 16384

record -e page-faults -c 1 -- workload

always perf.error == 0
`

// TestWriteAuditMunmap: munmap(2) of a perf mapping (its body, in the
// syscall entry's fragment) and perf_mmap_close()'s fragments declared
// complete (pmu/footprint_munmap.go: perf_mmap_close:aux-unmapped,
// perf_mmap_close:aux_mmap_count-zero; pmu/footprint_setup.go:
// perf_mmap_close:mmap_count-dec), write nothing they do not annotate, on
// the munmap built-ins and on c2's shape (perf record's teardown unmaps
// each CPU's AUX area and ring). Each run checks the fragments it lists at
// least once.
func TestWriteAuditMunmap(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	entry := []string{"syscall_enter_from_user_mode", "perf_mmap_close:mmap_count-dec"}
	aux := append([]string{"perf_mmap_close:aux-unmapped", "perf_mmap_close:aux_mmap_count-zero"}, entry...)
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"munmap-ring-twice", "", entry},
		{"set-output-vs-munmap", "", entry},
		{"munmap-vs-mmap-same-fd", "", entry},
		// its last AUX closes now stop app's PT writer on cpu0 by IPI in
		// each of the three schedules (cpu_function_call(), marked
		// unaudited) since perf's setup takes time: the fragment after
		// aux_mmap_count-zero is checked on c2's shape
		{"munmap-vs-aux-munmap", "", append([]string{"perf_mmap_close:aux-unmapped"}, entry...)},
		{"c2", c2Shape, aux},
		{"anon-munmap", anonMunmapSrc, []string{"syscall_enter_from_user_mode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
