package explore

import "testing"

// TestWriteAuditUserCode: the syscall bodies of the scheduler's own that
// enter as annotated (sched/footprint_syscalls.go: nanosleep, sched_yield)
// and the user-mode code runOps runs annotated (a repeat's round count:
// sched.CallAnnotated) write nothing they do not annotate, on built-ins
// whose tasks sleep in repeats (mmap-rb-vs-sched-out,
// pmu-pause-output-rb-check) and yield (cgroup-move-vs-switch,
// ctx-swap-vs-nmi). Each run checks at least once the syscall's entry
// fragment, the return to user mode and the context switch.
func TestWriteAuditUserCode(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	for _, tc := range []struct {
		name string
		want []string // the fragments checked at least once
	}{
		{"mmap-rb-vs-sched-out", []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off"}},
		{"pmu-pause-output-rb-check", []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off"}},
		{"cgroup-move-vs-switch", []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off"}},
		{"ctx-swap-vs-nmi", []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, tc.name), tc.want)
		})
	}
}
