package explore

import (
	"slices"
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
)

// TestWriteAuditEntryExit: the syscall entry and exit fragments and the
// context switch's, declared complete (sched/footprint_entry.go,
// footprint_switch.go), write nothing they do not annotate,
// on built-ins whose tasks run the paths the declarations vouch for: user
// compute and syscalls with no model body, yields and the reschedule
// (sched-forced-interleavings), signals and exit (sigtrap-vs-exit), sched
// tracepoints on wakeups (tp-target-task-wakeup), task work at the return
// to user (task-work-nmi-race), and the deferred unwind's
// unwind_reset_info() at it (deferred-callchain-stitch). Each run checks
// the fragments it lists at least once; the paths nobody annotated are
// marked (cpu.CPU.Unaudited) and not checked.
func TestWriteAuditEntryExit(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	both := []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off"}
	for _, tc := range []struct {
		name string
		want []string // the fragments checked at least once
	}{
		{"sched-forced-interleavings", both},
		{"sigtrap-vs-exit", both},
		{"tp-target-task-wakeup", both},
		{"task-work-nmi-race", both},
		// Its every syscall is a long one with a tracepoint firing, or perf's.
		{"deferred-callchain-stitch", []string{"exit_to_user_mode_loop", "context_switch"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, tc.name), tc.want)
		})
	}
}

// auditChecked runs the write audit over f (seed 3's schedule) and
// reports a declared fragment that writes what it does not annotate, and a
// start of want that no fragment checked (every one reached unaudited
// auditScenario is the scenario a write audit's table row names: the
// built-in name when src is "", else src loaded as name.sim.
func auditScenario(t *testing.T, name, src string) *scenarios.File {
	t.Helper()
	if src == "" {
		return loadBuiltin(t, name)
	}
	f, err := runner.Load(&scenarios.Source{Name: name + ".sim", Src: []byte(src)})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// code); it logs how often each declared start was checked.
func auditChecked(t *testing.T, f *scenarios.File, want []string) *writeAudit {
	t.Helper()
	a := auditRunFile(t, f, 3)
	if len(a.Violations) > 0 {
		t.Errorf("declared fragments that write what they do not annotate:\n%s", strings.Join(a.Violations, "\n"))
	}
	for _, start := range want {
		if a.Checked[start] == 0 {
			t.Errorf("no fragment %s checked (every one reached unaudited code)", start)
		}
	}
	var checked []string
	for s, n := range a.Checked {
		checked = append(checked, s+":"+itoa(n))
	}
	slices.Sort(checked)
	t.Logf("%d snapshots; declared fragments checked: %v", a.Snapshots, checked)
	return a
}
