package explore

import (
	"testing"
)

// perf_mmap_aux()'s refcount_t warning (an AUX mmap through a redirected
// event, or onto an area being torn down) counts mmap.refcount-warn, and
// perf_event_addr_filters_sync()'s driver calls count
// addr-filter syncs: observables nothing in the run reads.
func init() { auditSkip = append(auditSkip, "pmu.mmapStats.refcountWarn", "pmu.afStats.syncs") }

// TestWriteAuditMmapAux: perf_mmap_aux()'s fragments (its entry in
// perf_mmap:mmap_mutex's, perf_mmap_aux:has-aux, rb_alloc_aux with
// rb_alloc_aux() and intel_pt's setup_aux: pmu/footprint_mmap_aux.go,
// rb/footprint_aux_alloc.go), pt_event_init() in the syscall entry's
// fragment, the first pt_event_start()'s PERF_ATTACH_ITRACE
// (perf_aux_output_begin:aux_refcount) and pt_event_addr_filters_sync()
// in the ITRACE_START record's (perf_output_put_handle:nest-zero:
// pmu/pt/footprint_init.go) write nothing they do not annotate, on the
// built-ins that map AUX areas, start intel_pt and sync its address
// filters, and on c2's shape. Each run checks the fragments it lists at
// least once.
func TestWriteAuditMmapAux(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	mmapAux := []string{"perf_mmap:mmap_mutex", "perf_mmap_aux:has-aux", "rb_alloc_aux", "syscall_enter_from_user_mode"}
	start := append([]string{"perf_aux_output_begin:aux_refcount"}, mmapAux...)
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"munmap-vs-aux-munmap", "", mmapAux},
		// A second process maps the AUX areas again (the aux-mmap
		// action); perf's teardown takes the list of those mappings in
		// its reader's last fragment (perftool/actions_aux_mmap.go).
		{"aux-mmap-vs-munmap", "", append([]string{"ring_buffer_read_head:loaded"}, mmapAux...)},
		{"pt-addr-filter-fork", "", []string{"perf_mmap_aux:has-aux", "rb_alloc_aux", "perf_output_put_handle:nest-zero"}},
		{"pt-set-filter-vs-running", "", []string{"perf_mmap_aux:has-aux", "rb_alloc_aux", "perf_output_put_handle:nest-zero"}},
		{"c2", c2Shape, start},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
