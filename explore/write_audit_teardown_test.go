package explore

import (
	"testing"
)

// perf record's Finished flag is perf's own memory, written by its main
// (finish()) in annotated user code and read by perf's code nobody
// annotated: its signal handlers, the actions' threads, the SIGCHLD that
// the session's exit hook sends (marked: perftool/session.go), and after
// the run. Perf's exit, whose do_exit() the session's hook no longer marks
// (AnnotatedExitHook), is the first declared fragment to write it.
func init() { auditSkip = append(auditSkip, "perftool.Session.Finished") }

// TestWriteAuditTeardown: the exit's and the release's teardown
// (pmu/footprint_exit.go: perf_event_exit_task_context()'s return from the
// sched-out, its tombstone fragment up to the return into do_exit(), exit_mm()'s
// mmput() and exit_mmap(); pmu/footprint_release.go: unaccount_event(),
// the target's put_task_struct(), the last put_pmu_ctx() and put_ctx();
// the exit hooks of perf record's session and the runner's actor reaper)
// write nothing they do not annotate, on built-ins that exit with perf
// events, close them, exec, and on c2's shape. Each run checks the
// fragments it lists at least once: the tombstone's, the sched-out's whose
// return runs the detach (event_sched_out:del), the syscall exit's that
// runs do_exit(), the release's remove.
func TestWriteAuditTeardown(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	exit := []string{"perf_event_exit_task_context", "perf_event_exit_task_context:tombstone", "exit_to_user_mode_loop"}
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"sigtrap-vs-exit", "", append([]string{"event_sched_out:del"}, exit...)},
		{"c2", c2Shape, append([]string{"event_sched_out:del", "__perf_remove_from_context"}, exit...)},
		{"attach-pid-thread-exit", "", append([]string{"__perf_remove_from_context"}, exit...)},
		{"exec-vs-munmap-shared-rb", "", append([]string{"syscall_enter_from_user_mode"}, exit...)},
		{"close-vs-sample", "", []string{"__perf_remove_from_context", "exit_to_user_mode_loop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
