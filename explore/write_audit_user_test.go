package explore

import "testing"

// userCodeSrc runs, on 2 CPUs, the user-mode code and syscall bodies of
// the scheduler's own that enter annotated: a repeat's rounds
// (sched.CallAnnotated), nanosleep and sched_yield
// (sched/footprint_syscalls.go), a pipe read that waits for the write and
// a futex wait woken by a wake (sched/footprint_wait.go; b's second write
// finds no reader waiting: it wakes nobody, and its fragment from
// "pipe_write:copied" reaches no unaudited code), and perf fd calls
// (runner/footprint_perfops.go); a touch of memory that faults (its page
// faults return into the touch's loop) and one that does not
// (sched.Sched.accessTouch); stack steps, the user's and the kernel
// frames' (sched.Sched.accessStack); read(2) and write(2) of the tty
// (sched's annotatedSysModels).
const userCodeSrc = `scenario user-code
title "user code and the scheduler's own syscall bodies, annotated"

cpus 2
kernel timer-slack=0

task a cpu0
  stack user main;worker
  stack kernel entry_SYSCALL_64;do_syscall_64
  syscall mmap 0 16384 PROT_READ|PROT_WRITE MAP_PRIVATE|MAP_ANONYMOUS -1 0 as buf
  touch buf 4 write
  touch buf 4
  repeat 3
    compute 2us
    sleep 1us
  pipe read p
  compute 30us
  futex wake f
  yield
  compute 2us

task b cpu1
  open ev -e task-clock pid a
  compute 40us
  pipe write p
  pipe write p
  syscall write 1 0 8
  syscall read 0 0 8
  futex wait f
  read ev
  ioctl ev DISABLE
  close ev
`

// joinSrc joins threads that are still running on the other CPU, and one
// that has exited.
const joinSrc = `scenario join
cpus 2
kernel timer-slack=0
task m cpu0
  repeat 3
    thread w
      migrate cpu1
      compute 5us
    join w
  thread v
    compute 1us
  sleep 20us
  join v
`

// TestWriteAuditUserCode: the user-mode code runOps runs annotated and
// the syscall bodies of the scheduler's own that enter annotated write
// nothing they do not annotate, on a scenario of each (userCodeSrc) and
// on built-ins whose tasks sleep in repeats (mmap-rb-vs-sched-out), yield
// (cgroup-move-vs-switch), wait on a futex and migrate on an exec
// (exec-vs-munmap-shared-rb) and
// on a pipe (task-function-call-offline: 3 CPUs, one goes down). Each run
// checks at least once the starts the want list names: the syscall's
// entry, the return to user mode, the switch, and the pipe's and futex's
// own step points.
func TestWriteAuditUserCode(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	entry := []string{"syscall_enter_from_user_mode", "exit_to_user_mode_loop", "context_switch", "__schedule:irqs-off"}
	t.Run("user-code", func(t *testing.T) {
		a := auditRun(t, "user-code", userCodeSrc, 3)
		if len(a.Violations) > 0 {
			t.Errorf("declared fragments that write what they do not annotate:\n%v", a.Violations)
		}
		for _, start := range append(entry, "pipe_read:wait", "futex_wait:queue", "pipe_write:copied") {
			if a.Checked[start] == 0 {
				t.Errorf("no fragment %s checked (every one reached unaudited code)", start)
			}
		}
		t.Logf("checked: %v", a.Checked)
	})
	// pthread_join(): the joiner's futex wait on the tid word, and the
	// thread's exit_mm() -> mm_release() clearing it and waking the joiner
	// across CPUs (ttwu_queue_wakelist), then dropping mm_users after it.
	t.Run("join", func(t *testing.T) {
		a := auditRun(t, "join", joinSrc, 3)
		if len(a.Violations) > 0 {
			t.Errorf("declared fragments that write what they do not annotate:\n%v", a.Violations)
		}
		for _, start := range append(entry, "futex_wait:queue", "ttwu_queue_wakelist") {
			if a.Checked[start] == 0 {
				t.Errorf("no fragment %s checked (every one reached unaudited code)", start)
			}
		}
	})
	for _, tc := range []struct {
		name string
		want []string // the fragments checked at least once
	}{
		{"mmap-rb-vs-sched-out", entry},
		{"cgroup-move-vs-switch", entry},
		{"exec-vs-munmap-shared-rb", append(entry[:2:2], "futex_wait:queue", "context_switch")}, // a context switch that moves the task switched away from (move_queued_task())
		{"task-function-call-offline", append(entry[:2:2], "pipe_read:wait")},                   // its one write wakes the reader: try_to_wake_up() marked
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, tc.name), tc.want)
		})
	}
}
