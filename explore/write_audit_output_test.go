package explore

import (
	"slices"
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
)

// outputStarts are the ring buffer output path's step points declared
// complete (pmu/footprint_output.go).
var outputStarts = []string{"perf_output_get_handle:nest-inc", "__perf_output_begin:cmpxchg", "__perf_output_begin:reserved",
	"__perf_output_begin:lost-written", "perf_output_sample:header", "perf_output_put_handle:head-read", "perf_output_put_handle:nest-dec",
	"perf_output_put_handle:data-head-stored", "perf_output_put_handle:nest-zero"}

// outputSix are the starts every sample written reaches: a nest-zero
// fragment is checked only where an interrupt comes in before its return
// into the caller (marked) or the recheck loops.
var outputSix = []string{"perf_output_get_handle:nest-inc", "__perf_output_begin:cmpxchg", "__perf_output_begin:reserved",
	"perf_output_sample:header", "perf_output_put_handle:head-read", "perf_output_put_handle:data-head-stored"}

// TestWriteAuditOutput: the ring buffer's output path, declared complete
// from each of its step points (pmu/footprint_output.go), writes nothing it
// does not annotate, on built-ins that write samples and side-band records:
// a reader spinning on data_head (rb-data-head-backwards), an NMI writer
// nested in a task's (rb-nested-nmi-output), AUX pause/resume with
// PERF_RECORD_AUX (aux-pause-resume-nmi; its cycles PMI's samples are
// written by the same fragments as PEBS's, so pmu-overflow-vs-sched-out,
// 26 s of audit, adds no start), and an overwrite buffer written
// backward (backward-ring-buffer), the old put_handle
// (rb-put-handle=pre-1b038c6e05ff) and a LOST record after a paused ring
// (paused-then-lost). Each run checks the starts it lists at
// least once; a fragment that returns into its caller is marked unaudited
// (rb.Accessor.Unaudited) and not checked.
func TestWriteAuditOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	for _, tc := range []struct {
		name string
		edit [2]string // a built-in's text replaced (a knob), if any
		src  string    // or a scenario of its own
		want []string  // the output starts checked at least once
	}{
		{name: "rb-data-head-backwards", want: append(slices.Clone(outputSix), "perf_output_put_handle:nest-zero")},
		{name: "rb-data-head-backwards", edit: [2]string{"kernel rb-put-handle=today", "kernel rb-put-handle=pre-1b038c6e05ff"},
			want: append(slices.Clone(outputSix), "perf_output_put_handle:nest-dec")},
		{name: "rb-nested-nmi-output", want: append(slices.Clone(outputSix), "perf_output_put_handle:nest-zero")},
		{name: "aux-pause-resume-nmi", want: outputSix},
		{name: "backward-ring-buffer", want: outputSix},
		{name: "paused-then-lost", src: outputLostSrc, want: append(slices.Clone(outputSix), "__perf_output_begin:lost-written")},
	} {
		label := tc.name
		if tc.edit[0] != "" {
			label += "," + tc.edit[1][strings.LastIndex(tc.edit[1], "=")+1:]
		}
		t.Run(label, func(t *testing.T) {
			a := auditChecked(t, outputAuditFile(t, tc.name, tc.edit, tc.src), tc.want)
			var checked []string
			for _, s := range outputStarts {
				checked = append(checked, s+":"+itoa(a.Checked[s]))
			}
			slices.Sort(checked)
			t.Logf("%d snapshots; output starts checked: %v", a.Snapshots, checked)
		})
	}
}

// outputLostSrc pauses a ring (PERF_EVENT_IOC_PAUSE_OUTPUT) while its task
// samples (from ~595us: perf maps four rings, ~420us, then its execve()),
// then resumes it (14 samples lost, as when the setup cost nothing): the next
// sample's __perf_output_begin() writes the PERF_RECORD_LOST first (its
// lost-written step point).
const outputLostSrc = `scenario paused-then-lost
cpus 2
kernel timer-slack=0
task app cpu1
  repeat 20
    syscall getpid
    sleep 2us
record pr: -e syscalls:sys_enter_getpid -- app
at 600us pause-output pr cpu0
at 615us resume-output pr cpu0
`

// outputAuditFile is built-in name with edit applied, or src parsed.
func outputAuditFile(t *testing.T, name string, edit [2]string, src string) *scenarios.File {
	t.Helper()
	if src != "" {
		f, err := scenarios.Parse(name+".sim", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	if edit[0] == "" {
		return loadBuiltin(t, name)
	}
	s, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(s.Src), edit[0]) {
		t.Fatalf("%s: %q matches nothing", name, edit[0])
	}
	s.Src = []byte(strings.ReplaceAll(string(s.Src), edit[0], edit[1]))
	f, err := runner.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
