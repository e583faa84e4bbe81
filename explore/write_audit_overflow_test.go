package explore

import (
	"testing"

	"perfsim/scenarios"
)

// The runner's oracle on every sample (pmu.Kernel.OnOutput) counts there
// the samples of events not ACTIVE on the writing CPU: an oracle's count,
// not state another context sees (the event's state and CPU it reads are
// annotated: pmu/footprint_overflow.go).
func init() { auditSkip = append(auditSkip, "runner.pmuRun.notActive") }

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
// it (rb-data-head-backwards). Each run checks nest-zero at least once, and
// the PMI's (or the hrtimer's) entry fragment where a PMI reaches no
// marked path.
func TestWriteAuditOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	const nestZero = "perf_output_put_handle:nest-zero"
	for _, tc := range []struct {
		name   string
		repeat int      // its loops cut to this many iterations (0: as shipped): seconds rather than tens
		want   []string // the starts checked at least once
	}{
		{"close-vs-sample", 0, []string{nestZero, "enter:PMI"}},
		{"ctx-swap-vs-nmi", 3, []string{nestZero, "enter:PMI"}},
		{"pmu-overflow-vs-sched-out", 3, []string{nestZero, "enter:PMI"}}, // -g: perf_callchain() annotated
		{"aux-pause-resume-nmi", 4, []string{nestZero}},                   // aux_pause/aux_resume: every PMI's overflow reaches perf_event_aux_pause (marked)
		{"cpu-clock-refresh-lockup", 0, []string{nestZero, "enter:perf_swevent_hrtimer"}},
		{"rb-data-head-backwards", 0, []string{nestZero, "syscall_enter_from_user_mode"}}, // its syscall tracepoint's sample: perf_syscall_enter() into perf_tp_event()
		{"context-switch-samples", 0, []string{nestZero, "perf_event_task_sched_in"}},     // csSamplesSrc: do_perf_sw_event()'s walk
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *scenarios.File
			switch {
			case tc.name == "context-switch-samples":
				f = outputAuditFile(t, tc.name, [2]string{}, csSamplesSrc)
			case tc.repeat > 0:
				f = cutBuiltin(t, tc.name, tc.repeat)
			default:
				f = loadBuiltin(t, tc.name)
			}
			auditChecked(t, f, tc.want)
		})
	}
}

// csSamplesSrc samples every context switch and CPU migration of a task
// and its child, which yield to each other on cpu0 and move to cpu1: the
// scheduler's software events (do_perf_sw_event()) write the samples.
const csSamplesSrc = `scenario context-switch-samples
cpus 2
task parent cpu0
  compute 2us
  fork child
    repeat 6
      compute 3us
      yield
  repeat 6
    compute 3us
    yield
  wait
record rec: -e context-switches,cpu-migrations -c 1 -- parent
`
