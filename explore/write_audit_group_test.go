package explore

import (
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestWriteAuditGroupAttach: perf_group_attach()'s step points, declared
// complete (pmu/footprint_group.go: nr_siblings, group_generation, each
// member's read_size, and the return into perf_install_in_context()'s
// callers), write nothing they do not annotate, on the built-ins that add
// a sibling to a group while it runs on another CPU (group-read-vs-
// sibling-add, group-sample-vs-sibling-add: the IPI's
// __perf_install_in_context()), open a sampling group before it runs
// (group-leader-close-sample-read), and the shape
// (aux-pause-resume-nmi, --per-thread: the session's members installed
// into a task context that does not run, the locked path). Each run checks the fragments it lists at least once.
func TestWriteAuditGroupAttach(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	attach := []string{"perf_group_attach:list_add_tail", "perf_group_attach:nr_siblings", "perf_group_attach:header_size"}
	// c2's shape on one CPU, one round: its group is installed before the
	// task runs, on the locked path, as on each of c2's CPUs (c2 itself,
	// 2 CPUs, 2 rounds, is TestWriteAuditOpen's last run, which audits
	// every declared fragment, these included: twice the time here).
	c2 := strings.Replace(auxPerCPU(1, 1, 1), "-m 8,8 --", "-m 8,8 --per-thread --", -1)
	for _, tc := range []struct {
		name string
		src  string   // a scenario's text, or "" for the built-in name
		want []string // the fragments checked at least once
	}{
		{"group-read-vs-sibling-add", "", attach},
		// The forced NMI lands at perf_group_attach:nr_siblings: the
		// audit does not check the fragment it cuts short (the NMI's
		// writes are in the snapshot's difference).
		{"group-sample-vs-sibling-add", "", attach[1:]},
		{"group-leader-close-sample-read", "", attach},
		{"aux-pause-resume-nmi-percpu", c2, attach},
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
