package explore

import "testing"

// TestWriteAuditSetup: perf's setup syscalls' fragments, declared complete
// (pmu/footprint_setup.go: ioctl(2) on a perf fd from its step points, and
// ring_buffer_attach's), write nothing they do not annotate, on built-ins
// that run them: SET_OUTPUT against a munmap (set-output-vs-munmap),
// PAUSE_OUTPUT around perf's reads of an --overwrite ring
// (pmu-pause-output-rb-check, rb-backward-read-race), perf_mmap()'s
// attach of a new buffer (all of them), PERF_EVENT_IOC_REFRESH
// (cpu-clock-refresh-lockup) and perf record's PERF_EVENT_IOC_ID and
// SET_OUTPUT (mmap-rb-vs-sched-out, exec-vs-munmap-shared-rb). Each run
// checks the fragments it lists at least once.
func TestWriteAuditSetup(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	for _, tc := range []struct {
		name   string
		repeat int      // its loops cut to this many iterations (0: as shipped)
		want   []string // the fragments checked at least once
	}{
		{"set-output-vs-munmap", 0, []string{"perf_ioctl:fdget", "perf_ioctl:ctx-locked", "ring_buffer_attach:rb-set", "perf_mmap_close:mmap_count-dec", "perf_mmap_close:detached"}},
		// Its seed-3 schedule finds no rb (-EINVAL) ...
		{"pmu-pause-output-rb-check", 2, []string{"perf_ioctl:fdget", "perf_ioctl:ctx-locked", "perf_ioctl:PAUSE_OUTPUT:rb-read"}},
		// ... this one's pauses and resumes the ring around its reads.
		{"rb-backward-read-race", 2, []string{"perf_ioctl:fdget", "perf_ioctl:ctx-locked", "perf_ioctl:PAUSE_OUTPUT:rb-read", "perf_ioctl:PAUSE_OUTPUT:checked"}},
		{"cpu-clock-refresh-lockup", 0, []string{"perf_ioctl:fdget"}},
		{"mmap-rb-vs-sched-out", 2, []string{"perf_mmap:mmap_mutex", "ring_buffer_attach:rb-set", "perf_mmap_close:mmap_count-dec"}},
		{"exec-vs-munmap-shared-rb", 0, []string{"ring_buffer_attach:rb-set", "perf_mmap_close:mmap_count-dec"}},
		// An address filter set while the traced task runs: the ioctl's
		// entry up to ctx->mutex (SetFilter), the filter's code marked.
		{"pt-set-filter-vs-running", 0, []string{"syscall_enter_from_user_mode", "perf_ioctl:fdget", "perf_ioctl:ctx-locked", "perf_mmap:mmap_mutex", "perf_mmap_close:detached"}},
		{"munmap-vs-mmap-same-fd", 0, []string{"perf_mmap:mmap_mutex", "ring_buffer_attach:rb-set", "perf_mmap_close:mmap_count-dec"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := loadBuiltin(t, tc.name)
			if tc.repeat > 0 {
				f = cutBuiltin(t, tc.name, tc.repeat)
			}
			auditChecked(t, f, tc.want)
		})
	}
}
