package explore

import "testing"

// perf record's done, child_finished and signr (sig_handler(): done = 1;
// child_finished = 1 for SIGCHLD, signr = sig for the others) are perf's
// own memory: its SIGCHLD and SIGINT handlers, annotated user code run by
// perf's own thread as it takes the signal (sched/footprint_signal.go,
// perftool/session.go: signal()), and its wait for the workload
// (signr = WTERMSIG()) write them; its record loop and its end (whether
// to SIGTERM the workload, record__sig_exit()), on the same thread, read
// them, and so do only the spinner and the actions' threads, Go code
// nobody annotated (marked).
func init() {
	auditSkip = append(auditSkip, "perftool.Session.done", "perftool.Session.childFinished", "perftool.Session.signr")
}

// TestWriteAuditPollSignal: poll(2)'s fragments (the entry's annotated
// body, "perf_poll:wait" and the return from schedule() into do_poll():
// pmu/footprint_poll.go), the wake-ups of the pollers
// (wake_up_all(&event->waitq)) and the signals' generation and delivery
// (exit_to_user_mode_loop's get_signal() and the handler:
// sched/footprint_signal.go) write nothing they do not annotate, on c2's
// shape (perf's SIGCHLD at each workload's exit, its poll), on built-ins
// whose perf record polls, and on the SIGTRAP built-ins (perf_sigtrap()'s
// sends, the handlers the scenarios install). Each run checks the
// fragments it lists at least once.
func TestWriteAuditPollSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	poll := []string{"perf_poll:wait", "exit_to_user_mode_loop", "syscall_enter_from_user_mode"}
	for _, tc := range []struct {
		name string
		src  string   // the scenario's text ("": the built-in name)
		want []string // the fragments checked at least once
	}{
		{"c2", c2Shape, poll},
		{"backward-ring-buffer", "", poll},
		{"rb-nested-nmi-output", "", poll},
		{"sigtrap-vs-exit", "", []string{"exit_to_user_mode_loop"}},
		{"breakpoint-sigtrap-vs-close", "", []string{"exit_to_user_mode_loop"}},
		{"tp-target-task-wakeup", "", []string{"exit_to_user_mode_loop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, auditScenario(t, tc.name, tc.src), tc.want)
		})
	}
}
