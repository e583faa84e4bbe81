package explore

import (
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestWriteAuditOpen: perf_event_open(2)'s install, declared complete
// (pmu/footprint_open.go: __perf_install_in_context and the code after
// ctx_resched() and perf_install_in_context() up to the syscall's exit),
// writes nothing it does not annotate, on built-ins that open events on
// more than one CPU: per-CPU events installed by IPI (close-vs-sample,
// set-output-vs-munmap, cgroup-enable-stale-time), a task's events
// installed where the task runs (tp-target-task-wakeup,
// remove-on-exec-inherit-lost), and the shape of the must-show
// (aux-pause-resume-nmi on each of 2 CPUs, --per-thread: two perf record
// sessions each installing a group). Each run checks the fragments it
// lists at least once.
func TestWriteAuditOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	install := []string{"__perf_install_in_context"}
	c2 := strings.Replace(auxPerCPU(2, 2, 1), "-m 8,8 --", "-m 8,8 --per-thread --", -1)
	for _, tc := range []struct {
		name string
		src  string   // a scenario's text, or "" for the built-in name
		want []string // the fragments checked at least once
	}{
		{"close-vs-sample", "", install},
		{"set-output-vs-munmap", "", install},
		{"tp-target-task-wakeup", "", install},
		{"cgroup-enable-stale-time", "", nil}, // a cgroup event's install is marked: what it checks is logged
		{"remove-on-exec-inherit-lost", "", install},
		// Its tasks' events are installed while the task does not run
		// (perf record starts them): the locked path.
		{"aux-pause-resume-nmi-percpu", c2, []string{"perf_install_in_context:ctx-locked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f *scenarios.File
			if tc.src == "" {
				f = loadBuiltin(t, tc.name)
			} else {
				var err error
				if f, err = scenarios.Parse(tc.name+".sim", []byte(tc.src)); err != nil {
					t.Fatal(err)
				}
			}
			auditChecked(t, f, tc.want)
		})
	}
}
