package explore

import (
	"testing"

	"perfsim/scenarios"
)

// The AUX core's counts (PERF_RECORD_AUX records posted, TRUNCATED ones,
// WARN_ON_ONCEs, AUX samples: pmu.kernelAux.stats) are observables read
// after the run, never by the model (as pmu.Kernel.stats).
func init() { auditSkip = append(auditSkip, "pmu.kernelAux.stats") }

// auxPerCPUSrc is c2.sim's shape (/work/notes/c2.sim):
// aux-pause-resume-nmi on each of 2 CPUs, each CPU its own task and its
// own perf record --per-thread with an intel_pt group whose tracepoint
// resumes and whose cycles NMI pauses.
const auxPerCPUSrc = `scenario aux-pause-resume-nmi-percpu
cpus 2
pmu intel_pt rate=1000 region=4K
pmu cpu skid=200ns
kernel aux-pause-guard=on
task uname0 cpu0
  repeat 2
    syscall newuname
    compute 700ns
task uname1 cpu1
  repeat 2
    syscall newuname
    compute 700ns
record r0: -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=6800,aux-action=pause/}' -m 8,8 --per-thread -- uname0
record r1: -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=6800,aux-action=pause/}' -m 8,8 --per-thread -- uname1
always aux.pause_resume.overlaps == 0
`

// TestWriteAuditAux: perf_event_aux_pause()'s three fragments (irqs-off:
// the guard's test; guard-set: __perf_event_aux_pause() and intel_pt's
// pt_event_stop(PERF_EF_PAUSE) / pt_event_start(PERF_EF_RESUME) up to
// their step; callback-done: the guard's clear, ring_buffer_put() and the
// return into the overflow's caller: pmu/footprint_aux.go) and the PT
// PMI's two (its entry to perf_aux_output_end()'s record, and from its
// output-end step to perf_aux_output_begin()'s aux_refcount step:
// pmu/pt/footprint.go) write nothing they do not annotate, with the overflows that call it (enter:PMI's
// aux_pause, nest-zero's aux_resume, the syscall tracepoint's), on the
// built-ins whose aux_pause/aux_resume events race the PT PMI and each
// other, and on c2.sim's two-CPU shape. Each run checks every start
// listed at least once.
func TestWriteAuditAux(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	const (
		irqsOff  = "perf_event_aux_pause:irqs-off"
		guardSet = "perf_event_aux_pause:guard-set"
		done     = "perf_event_aux_pause:callback-done"
		// the PT PMI (pmu/pt/footprint.go)
		ptPMI     = "enter:intel_pt_interrupt"
		outputEnd = "intel_pt_interrupt:output-end"
		auxEnd    = "perf_aux_output_end:nest-zero"      // rb/footprint_aux.go
		auxBegin  = "perf_aux_output_begin:aux_refcount" // ...
	)
	for _, tc := range []struct {
		name   string
		repeat int    // its loops cut to this many iterations (0: as shipped)
		src    string // a scenario of the test's own ("": the built-in)
		want   []string
	}{
		{"aux-pause-resume-nmi", 4, "", []string{irqsOff, guardSet, done, "enter:PMI", "syscall_enter_from_user_mode"}},
		{"pt-pause-vs-pmi-sparse", 4, "", []string{irqsOff, guardSet, done, "perf_output_put_handle:nest-zero", auxBegin}},               // sched-in: pt_event_start()'s transaction
		{"pt-resume-vs-pmi", 4, "", []string{irqsOff, guardSet, done, "pt_event_start:status-read", ptPMI, outputEnd, auxEnd, auxBegin}}, // the area fills: the PT PMI ends and restarts the transaction
		{"aux-pause-resume-nmi-percpu", 0, auxPerCPUSrc, []string{irqsOff, guardSet, done, "perf_output_put_handle:nest-zero", "syscall_enter_from_user_mode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *scenarios.File
			if tc.src != "" {
				f = outputAuditFile(t, tc.name, [2]string{}, tc.src)
			} else {
				f = cutBuiltin(t, tc.name, tc.repeat)
			}
			auditChecked(t, f, tc.want)
		})
	}
}
