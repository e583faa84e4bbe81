package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestSignalFootprint: the exact footprint of a signal's generation and
// delivery (footprint_signal.go): b on cpu1 sends a SIGUSR1 with a handler
// to a, computing on cpu0, from its own write(2) of a pipe (an annotated
// body, so the sender's fragment is pipe_write:copied's); a takes it on
// its next return to user mode, in the fragment exit_to_user_mode_loop
// starts: the thread flags read, get_signal()'s look at the group's flags,
// both queues and the disposition, TIF_SIGPENDING recalculated, the log
// of deliveries, the mode switches around the handler (a compute, runOps's
// own code), then the loop's next round. Nothing marked: the handler is
// runOps's own operation.
func TestSignalFootprint(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	l := &fragAccesses{starts: map[string]bool{"exit_to_user_mode_loop@cpu0": true, "pipe_write:copied@cpu1": true}}
	a := s.Spawn("a", MaskOf(0), Compute(20*sim.Microsecond), Syscall("getpid"), Sleep(sim.Second))
	s.Spawn("b", MaskOf(1), Compute(5*sim.Microsecond), CallAnnotated(func(b *Task) {
		s.SyscallAnnotated(b, "write", func(b *Task) {
			b.Step("pipe_write:copied")
			s.SendSignal(a, Signal{Sig: SIGUSR1, Handler: []Op{Compute(sim.Microsecond)}})
		})
	}))
	m.OnSegments(l)
	if err := m.Run(sim.Millisecond); err != nil { // a asleep: its exit not looked at
		t.Fatal(err)
	}
	if len(s.Delivered) != 1 || s.Delivered[0].Task != a {
		t.Fatalf("delivered %v, want one SIGUSR1 to a", s.Delivered)
	}
	const send, deliver = "pipe_write:copied@cpu1: ", "exit_to_user_mode_loop@cpu0: "
	var want []string
	add := func(prefix string, entries ...string) {
		for _, e := range entries {
			want = append(want, prefix+e)
		}
	}
	add(send,
		// do_send_sig_info(): a's exit state, its group; the handler
		// installed (the task's sighand and the process's); prepare_signal()
		"thread:a-101 p->__state R",
		"thread:a-101/signal->live signal->live R",
		"thread:a-101 sighand->action W",
		// the model's signal_struct of a's, made on this first use, and a's pointer to it
		"thread:a-101 task->signal W",
		"thread:a-101 task->signal W",
		"thread:a-101 sighand->action W",
		"thread:a-101 signal->flags R",
		"thread:a-101 task->blocked R", // sig_ignored(): a blocked signal is never ignored
		"thread:a-101 thread_info->flags R",
		// __send_signal_locked(): the queue, the rlimit and the user's count
		"thread:a-101 task->pending W",
		"thread:a-101 signal->rlim R",
		"ucounts:UCOUNT_RLIMIT_SIGPENDING ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING] W",
		// the sender's install of the handler it knows, in the table the model keeps apart (accessInstall)
		"thread:a-101/sighand table sighand->action W",
		// complete_signal(): wants_signal(a) (and kick_process()'s task_cpu(a)), TIF_SIGPENDING set, the IPI to cpu0
		"thread:a-101 task->blocked R", // wants_signal(): not a thread that blocks it
		"thread:a-101 p->__state R",
		"thread:a-101 task->flags R",
		"thread:a-101 p->on_cpu R",
		"thread:a-101 thread_info->flags R",
		"thread:a-101 p->se (exec_start, wake_cpu) R",
		"thread:a-101 thread_info->flags W",
		"machine posts W",
		// write(2)'s return: the registers
		"thread:b-102 task_pt_regs(current) W",
	)
	add(deliver,
		// the IPI's return to user mode: the flags, need_resched
		"thread:a-101 thread_info->flags R",
		"cpu0 TIF_NEED_RESCHED R",
		// get_signal(): clear_notify_signal(), task_work_run() (none)
		"thread:a-101 thread_info->flags W",
		"thread:a-101/task->task_works sync W",
		"thread:a-101 task->task_works R",
		// under siglock: the group's flags, dequeue_signal(), the disposition, recalc_sigpending()
		"thread:a-101 signal->flags R",
		"thread:a-101 task->blocked R", // dequeue_signal(tsk, &tsk->blocked, ...)
		"thread:a-101 task->pending W",
		"thread:a-101 signal->shared_pending W",
		"thread:a-101 sighand->action R",
		"thread:a-101 sighand->action R",
		"thread:a-101 thread_info->flags W",
		// __sigqueue_free(); the delivery logged; the handler in user mode and back
		"ucounts:UCOUNT_RLIMIT_SIGPENDING ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING] W",
		"the signals delivered (Sched.Delivered, Sched.Killed) the signal log W",
		"thread:a-101 task_pt_regs(current) W",
		"thread:a-101 task_pt_regs(current) W",
	)
	// the loop's next rounds: nothing pending, back to user mode, on to
	// getpid(2) (its exit's round), then to nanosleep(2)'s entry
	for _, regs := range []int{4, 3} {
		add(deliver, "thread:a-101 thread_info->flags R", "cpu0 TIF_NEED_RESCHED R")
		for range regs {
			add(deliver, "thread:a-101 task_pt_regs(current) W")
		}
	}
	if diff := cmp.Diff(want, l.log); diff != "" {
		t.Errorf("footprints (-want +got):\n%s", diff)
	}
}
