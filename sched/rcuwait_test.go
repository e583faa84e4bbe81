package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestRCUWait: rcuwait_wait_event() sleeps in D (a signal does not wake it),
// names its waiter, the task that must act (HungNext) and the step point it
// slept after; a wake-up with the condition still false puts it back to
// sleep with the same since; rcuwait_wake_up() with the condition true ends
// it, and a wake-up with no waiter reports none.
func TestRCUWait(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	var w RCUWait
	done := false
	var log []string
	var waker *Task
	waiter := s.Spawn("waiter", MaskOf(0), Compute(1*sim.Microsecond), Call(func(tk *Task) {
		s.Syscall(tk, "close", func(tk *Task) {
			tk.Step("test:before-wait")
			s.RCUWaitWaitEvent(tk, &w, func() bool { return done }, func() string { return "the test's flag" }, func() *Task { return waker })
			log = append(log, "woken at "+tk.CPU().Now().String())
		})
	}))
	waker = s.Spawn("waker", MaskOf(1), Compute(5*sim.Microsecond), Call(func(tk *Task) {
		on, since := waiter.HungWait()
		step, c := waiter.HungStep()
		log = append(log, fmt.Sprintf("w->task %s; %s since %s after %s on cpu%d, next %s", w.Waiter(), on, since, step, c, waiter.HungNext()))
		s.SendSignal(waiter, Signal{Sig: SIGUSR1})
		log = append(log, fmt.Sprint("spurious wake-up: ", s.RCUWaitWakeUp(&w)))
	}), Compute(5*sim.Microsecond), Call(func(tk *Task) {
		_, since := waiter.HungWait()
		log = append(log, "still asleep since "+since.String())
		done = true
		log = append(log, fmt.Sprint("wake-up: ", s.RCUWaitWakeUp(&w)))
	}), Compute(5*sim.Microsecond), Call(func(tk *Task) {
		on, _ := waiter.HungWait()
		log = append(log, fmt.Sprintf("then: %q, w->task %v, wake-up: %v", on, w.Waiter(), s.RCUWaitWakeUp(&w)))
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"w->task waiter/101; the test's flag since 1us after test:before-wait on cpu0, next waker/102",
		"spurious wake-up: true",
		"still asleep since 1us",
		"wake-up: true",
		"woken at 10us",
		`then: "", w->task <nil>, wake-up: false`,
	}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestTaskWorkCancelCB: task_work_cancel() finds a queued work by its
// callback_head, not one that task_work_run() already took off the list
// (the batch it runs), and not a work of another key.
func TestTaskWorkCancelCB(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	type cb struct{ n int }
	var log []string
	s.Spawn("t", MaskOf(0), Call(func(tk *Task) {
		s.Syscall(tk, "close", func(tk *Task) {
			c := tk.CPU()
			_ = s.TaskWorkAdd(c, tk, TaskWork{Name: "first", Key: cb{1}, Fn: func(*Task) { log = append(log, "first ran") }}, TWAResume)
			_ = s.TaskWorkAdd(c, tk, TaskWork{Name: "second", Key: cb{2}, Fn: func(tk *Task) {
				log = append(log, fmt.Sprint("second ran; cancel first from the batch: ", s.TaskWorkCancelCB(tk, cb{1})))
			}}, TWAResume)
			_ = s.TaskWorkAdd(c, tk, TaskWork{Name: "third", Key: cb{3}, Fn: func(*Task) { log = append(log, "third ran") }}, TWAResume)
			log = append(log, fmt.Sprint("cancel third: ", s.TaskWorkCancelCB(tk, cb{3}), "; cancel 4: ", s.TaskWorkCancelCB(tk, cb{4})))
		})
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"cancel third: true; cancel 4: false", "second ran; cancel first from the batch: false", "first ran"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
