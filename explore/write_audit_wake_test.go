package explore

import "testing"

// wakeCodeSrc wakes tasks across CPUs through both of try_to_wake_up()'s
// ways (sched/footprint_wake.go): b, asleep on pipe p on cpu1 with cpu1
// idle, is woken by a's write from cpu0 through cpu1's wake list and its
// IPI (ttwu_queue_wakelist, then sched_ttwu_pending there); c, asleep on
// futex f while d keeps cpu2 busy, is activated by a's wake from cpu0
// directly (a busy target: no wake list); b's write of q wakes a back.
const wakeCodeSrc = `scenario wake-code
title "cross-CPU wake-ups: through the wake list and direct"

cpus 3

task a cpu0
  compute 10us
  pipe write p
  futex wake f
  pipe read q
  compute 2us

task b cpu1
  pipe read p
  compute 2us
  pipe write q

task c cpu2
  futex wait f
  compute 2us

task d cpu2
  compute 40us
`

// TestWriteAuditWake: the fragments try_to_wake_up() starts
// (ttwu_queue_wakelist, try_to_wake_up:set_task_cpu) and the wake list's
// IPI (enter:call_function_single, sched_ttwu_pending) write nothing they
// do not annotate, and the wakers' fragments (pipe_write:copied, the
// futex's syscall entry) stay checked with the wake-up in them, on
// wakeCodeSrc and on built-ins whose wake-ups cross CPUs (not
// rb-backward-read-race: its run passes the audit's wall-clock limit; not
// tp-target-task-wakeup: its wake-ups are its sleeper's hrtimer's, on its
// own CPU, in a handler nobody declared).
func TestWriteAuditWake(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary: seconds")
	}
	t.Parallel() // beside the other audits: each run its own model; auditCache synchronised
	wakelist := []string{"ttwu_queue_wakelist", "enter:call_function_single", "sched_ttwu_pending"}
	t.Run("wake-code", func(t *testing.T) {
		a := auditRun(t, "wake-code", wakeCodeSrc, 3)
		if len(a.Violations) > 0 {
			t.Errorf("declared fragments that write what they do not annotate:\n%v", a.Violations)
		}
		for _, start := range append(wakelist, "pipe_write:copied", "syscall_enter_from_user_mode") {
			if a.Checked[start] == 0 {
				t.Errorf("no fragment %s checked (every one reached unaudited code)", start)
			}
		}
		t.Logf("checked: %v", a.Checked)
	})
	for _, tc := range []struct {
		name string
		want []string // the fragments checked at least once
	}{
		{"attach-pid-thread-exit", wakelist[1:]},                                // its wake-ups through the list come from a WakeUpAll whose caller's code nobody annotated: the list's window is marked there (ttwuReturn)
		{"task-function-call-offline", []string{"try_to_wake_up:set_task_cpu"}}, // the sleeper's CPU went down: its wake-up moves it (the write's own fragment reaches select_fallback_rq(), marked)
	} {
		t.Run(tc.name, func(t *testing.T) {
			auditChecked(t, loadBuiltin(t, tc.name), tc.want)
		})
	}
}

// futexManySrc: a wakes three waiters of one futex, each asleep on its own
// idle CPU, so each wake-up goes through that CPU's wake list (a step
// point) in the middle of futex(FUTEX_WAKE, 3).
const futexManySrc = `scenario futex-many
cpus 4
task w1 cpu1
  futex wait f
  compute 2us
task w2 cpu2
  futex wait f
  compute 2us
task w3 cpu3
  futex wait f
  compute 2us
task a cpu0
  compute 10us
  futex wake f 3
  compute 2us
`

// TestWriteAuditFutexWakeMany: futex_wake() of several waiters takes them
// all off the bucket under its lock before it wakes any (futex_wake_mark()
// into a wake_q, then wake_up_q()), so the fragments the wake-ups' step
// points start write no futex queue: each waiter taken off after the first
// wake-up's step point was a write the lock's one annotation did not cover.
func TestWriteAuditFutexWakeMany(t *testing.T) {
	if testing.Short() {
		t.Skip("a reflective snapshot of the whole model at every fragment boundary")
	}
	t.Parallel()
	a := auditRun(t, "futex-many", futexManySrc, 4)
	if len(a.Violations) > 0 {
		t.Errorf("declared fragments that write what they do not annotate:\n%v", a.Violations)
	}
	if got := a.Checked["ttwu_queue_wakelist"]; got < 3 {
		t.Errorf("%d ttwu_queue_wakelist fragments checked, want the 3 wake-ups' at least", got)
	}
}
