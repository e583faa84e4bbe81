package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// A task in WaitUninterruptible is in D: a signal does not wake it (it stays
// on the queue, reporting what it waits for and since when), WakeUpAll does,
// (at 10us, not at the signal's 5us), and then it no longer reports a hung wait.
// HungSince says whether it is in D and since when without asking what it
// waits for (the description is formatted only by HungWait and WaitingOn).
func TestWaitUninterruptible(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	var q WaitQueue
	var log []string
	asked := 0
	waiter := s.Spawn("waiter", MaskOf(0), Compute(1*sim.Microsecond), Call(func(tk *Task) {
		s.Syscall(tk, "wait", func(tk *Task) {
			s.WaitUninterruptible(tk, &q, func() string { asked++; return "the test's condition" }, 0)
			log = append(log, "woken at "+tk.CPU().Now().String())
		})
	}))
	s.Spawn("other", MaskOf(1), Compute(5*sim.Microsecond), Call(func(tk *Task) {
		since, inD := waiter.HungSince()
		log = append(log, fmt.Sprintf("in D %v since %s, description asked %d times", inD, since, asked))
		on, since := waiter.HungWait()
		log = append(log, "waits on "+on+" since "+since.String()+", "+s.WaitingOn(waiter))
		s.SendSignal(waiter, Signal{Sig: SIGUSR1})
	}), Compute(5*sim.Microsecond), Call(func(tk *Task) {
		log = append(log, "after the signal: waiters "+fmt.Sprint(q.Waiters()))
		s.WakeUpAll(&q)
	}), Compute(5*sim.Microsecond), Call(func(tk *Task) {
		on, _ := waiter.HungWait()
		_, inD := waiter.HungSince()
		log = append(log, fmt.Sprintf("then: %s| in D %v", on, inD))
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"in D true since 1us, description asked 0 times", "waits on the test's condition since 1us, the test's condition",
		"after the signal: waiters 1", "woken at 10us", "then: | in D false"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
