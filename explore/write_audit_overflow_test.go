package explore

import (
	"testing"
)

// TestWriteAuditOverflow: the fragment that starts at
// perf_output_put_handle:nest-zero and returns through
// __perf_event_output() and __perf_event_overflow() into the PMI's walk
// over the counters, perf_sample_event_took() and the handler's return
// (pmu/footprint_overflow.go), writes nothing it does not annotate, on
// built-ins whose cycles PMI writes samples: a close racing the sampling
// (close-vs-sample), an NMI during the context switch's swap
// (ctx-swap-vs-nmi), the PMI's skid against sched-out
// (pmu-overflow-vs-sched-out), aux_pause/aux_resume events (whose
// perf_event_aux_pause() is marked: aux-pause-resume-nmi), and a
// cpu-clock hrtimer's re-arm (cpu-clock-refresh-lockup), and a syscall
// tracepoint's samples, perf_tp_event()'s walk and the syscall's entry after
// it (rb-data-head-backwards). Each run checks nest-zero at least once.
func TestWriteAuditOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	for _, name := range []string{"close-vs-sample", "ctx-swap-vs-nmi", "pmu-overflow-vs-sched-out", "aux-pause-resume-nmi", "cpu-clock-refresh-lockup", "rb-data-head-backwards"} {
		t.Run(name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, name), []string{"perf_output_put_handle:nest-zero"})
		})
	}
}
