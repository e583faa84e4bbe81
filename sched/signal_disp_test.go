package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
	"perfsim/uapi"
)

// exitOrderHook logs when do_exit() runs the exit hooks.
type exitOrderHook struct{ log *[]string }

func (h exitOrderHook) TaskExit(*Task) { *h.log = append(*h.log, "perf_event_exit_task") }

// do_exit()'s order: today (since 4f6fc7821283) perf_event_exit_task()
// runs before exit_task_work() runs the task's pending works (a deferred
// fput(): perf_release()); before the fix (knob exit-perf-order) after.
// PF_EXITING is set before either.
func TestExitPerfOrder(t *testing.T) {
	for _, tc := range []struct {
		late bool
		want []string
	}{
		{false, []string{"perf_event_exit_task", "task_work exiting=true"}},
		{true, []string{"task_work exiting=true", "perf_event_exit_task"}},
	} {
		cfg := DefaultConfig()
		cfg.PerfExitLate = tc.late
		m, s := newSched(t, 1, cfg)
		var log []string
		s.ExitHooks = append(s.ExitHooks, exitOrderHook{&log})
		s.Spawn("a", CPUMask{}, Call(func(tk *Task) {
			// queued without a notification: it waits for exit_task_work()
			if err := s.TaskWorkAdd(tk.CPU(), tk, TaskWork{Name: "____fput", Fn: func(tk *Task) {
				log = append(log, "task_work exiting="+map[bool]string{true: "true", false: "false"}[tk.Exiting()])
			}}, TWANone); err != nil {
				t.Errorf("TaskWorkAdd: %v", err)
			}
		}))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, log); d != "" {
			t.Errorf("PerfExitLate=%v (-want +got):\n%s", tc.late, d)
		}
	}
}

// Dispositions: SIG_DFL of SIGUSR1 ends the process (and its other
// thread) at once; SIG_IGN drops it at generation; a handler runs; SIGCHLD's
// default is to ignore; SIGKILL's action cannot change.
func TestSignalDispositions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		act     SigAction
		sig     int
		handled int
		killed  bool
		exitSig int
	}{
		{"default terminates", SigAction{}, SIGUSR1, 0, true, SIGUSR1},
		{"ignored", SigAction{Handler: SigIgn}, SIGUSR1, 0, false, 0},
		{"handled", SigAction{Handler: SigHandled}, SIGUSR1, 1, false, 0},
		{"SIGCHLD default ignores", SigAction{}, SIGCHLD, 0, false, 0},
		{"SIGTRAP default dumps core", SigAction{}, SIGTRAP, 0, true, SIGTRAP},
	} {
		m, s := newSched(t, 2, DefaultConfig())
		target := s.Spawn("target", MaskOf(0), Call(func(tk *Task) {
			if e := s.Sigaction(tk, tc.sig, tc.act); e != 0 {
				t.Errorf("%s: Sigaction: %v", tc.name, e)
			}
		}), Fork("th", ThreadFlags, Compute(sim.Millisecond)), Compute(sim.Millisecond))
		s.Spawn("sender", MaskOf(1), Compute(100*sim.Microsecond), Call(func(*Task) {
			_, _ = s.SendSignalTo(target, Signal{Sig: tc.sig, Code: SI_USER}, PIDTYPE_TGID)
		}))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		sig, _ := target.ExitSignal()
		got := []any{len(s.Delivered), sig != 0, sig}
		if d := cmp.Diff([]any{tc.handled, tc.killed, tc.exitSig}, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
		if tc.killed {
			for _, tk := range s.Tasks {
				if tk.Leader() == target && tk.Computed == sim.Millisecond {
					t.Errorf("%s: %s ran to its end; the group kill should have stopped it", tc.name, tk)
				}
			}
		}
	}
	_, s := newSched(t, 1, DefaultConfig())
	tk := s.Spawn("t", CPUMask{})
	for _, sig := range []int{SIGKILL, SIGSTOP, 0, NSIG + 1} {
		if e := s.Sigaction(tk, sig, SigAction{Handler: SigIgn}); e != uapi.EINVAL {
			t.Errorf("Sigaction(%d) = %v, want EINVAL", sig, e)
		}
	}
}

// A process signal (PIDTYPE_TGID) to a leader that has exited while its
// thread runs on reaches the thread (complete_signal() picks it); a thread
// signal (PIDTYPE_PID) to the zombie leader is dropped; once the whole
// group has exited nothing is queued.
func TestSignalToExitedLeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		typ    PidType
		at     sim.Time
		queued bool
		by     string
	}{
		{"process signal reaches the thread", PIDTYPE_TGID, 200 * sim.Microsecond, true, "thread"},
		{"thread signal to the zombie leader", PIDTYPE_PID, 200 * sim.Microsecond, false, ""},
		{"process signal after the group exited", PIDTYPE_TGID, 5 * sim.Millisecond, false, ""},
	} {
		m, s := newSched(t, 2, DefaultConfig())
		leader := s.Spawn("leader", MaskOf(0), Call(func(tk *Task) {
			s.Sigaction(tk, SIGUSR1, SigAction{Handler: SigHandled})
		}), Fork("th", ThreadFlags, Compute(sim.Millisecond)), Exit())
		var queued bool
		var leaderExited bool
		s.Spawn("sender", MaskOf(1), Compute(tc.at), Call(func(*Task) {
			leaderExited = leader.exited()
			queued, _ = s.SendSignalTo(leader, Signal{Sig: SIGUSR1, Code: SI_USER}, tc.typ)
		}))
		if err := m.Run(sim.Second); err != nil {
			t.Fatal(err)
		}
		by := ""
		for _, d := range s.Delivered {
			by = "thread"
			if d.Task == leader {
				by = "leader"
			}
		}
		if d := cmp.Diff([]any{true, tc.queued, tc.by}, []any{leaderExited, queued, by}); d != "" {
			t.Errorf("%s: leader exited, queued, delivered to (-want +got):\n%s", tc.name, d)
		}
	}
}

// RLIMIT_SIGPENDING: a real-time signal past the target's limit is not
// queued (-EAGAIN); a standard one from the kernel overrides it; a
// standard one already pending is not queued twice; dequeueing frees the
// count; the order of delivery is the synchronous signals, then by number.
// (With SIG_DFL the first real-time signal would end the process and the
// rest be dropped: the handlers are installed.)
func TestSigqueueLimitAndOrder(t *testing.T) {
	_, s := newSched(t, 1, DefaultConfig())
	tk := s.Spawn("t", CPUMask{})
	s.SetRlimitSigpending(tk, 2)
	for _, sig := range []int{40, SIGIO, SIGTRAP} {
		s.Sigaction(tk, sig, SigAction{Handler: SigHandled})
	}
	var got []any
	for _, sig := range []Signal{{Sig: 40, Code: POLL_IN}, {Sig: 40, Code: POLL_IN}, {Sig: 40, Code: POLL_IN}, {Sig: SIGIO, Code: SI_KERNEL}, {Sig: SIGIO, Code: SI_KERNEL}, {Sig: SIGTRAP, Code: 6}} {
		q, e := s.SendSignalTo(tk, sig, PIDTYPE_PID)
		got = append(got, q, e)
	}
	want := []any{true, uapi.Errno(0), true, uapi.Errno(0), false, uapi.EAGAIN, true, uapi.Errno(0), false, uapi.Errno(0), true, uapi.Errno(0)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sends (-want +got):\n%s", d)
	}
	if s.Sigpending() != 4 {
		t.Errorf("sigpending = %d, want 4", s.Sigpending())
	}
	var order []int
	for {
		sig, ok := s.dequeueSignal(tk)
		if !ok {
			break
		}
		order = append(order, sig.Sig)
	}
	if d := cmp.Diff([]int{SIGTRAP, SIGIO, 40, 40}, order); d != "" {
		t.Errorf("dequeue order (-want +got):\n%s", d)
	}
	if s.Sigpending() != 0 {
		t.Errorf("sigpending after dequeue = %d, want 0", s.Sigpending())
	}
}

// Process groups: a forked child inherits its parent's; setpgid(0, 0)
// makes a new one; setpgid() of a process that is neither the caller nor
// its child is ESRCH, into a group that does not exist EPERM, a negative
// pgid EINVAL; a thread is not a process (EINVAL).
func TestSetpgid(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	var got []int64
	var child, thread *Task
	p := s.Spawn("p", CPUMask{}, Fork("c", ForkFlags, Compute(sim.Millisecond)), Fork("th", ThreadFlags, Compute(sim.Millisecond)), Call(func(tk *Task) {
		for _, x := range s.Tasks {
			switch x.fam.prog {
			case "c":
				child = x
			case "th":
				thread = x
			}
		}
		got = append(got, int64(child.Pgid()), int64(tk.Pgid()))
		got = append(got, s.setpgid(tk, int64(child.PID), 0), int64(child.Pgid()))
		got = append(got, s.setpgid(tk, int64(child.PID), 9999), s.setpgid(tk, 0, -1), s.setpgid(tk, int64(thread.TID), 0))
		got = append(got, s.getpgid(tk, int64(child.PID)), s.getpgid(tk, 0), s.getpgid(tk, 9999))
	}))
	other := s.Spawn("o", CPUMask{}, Compute(2*sim.Millisecond))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	_ = other
	want := []int64{int64(p.PID), int64(p.PID), 0, int64(child.PID), -int64(uapi.EPERM), -int64(uapi.EINVAL), -int64(uapi.EINVAL),
		int64(child.PID), int64(p.PID), -int64(uapi.ESRCH)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if r := s.setpgid(other, int64(p.PID), 0); r != -int64(uapi.ESRCH) {
		t.Errorf("setpgid of a non-child = %d, want ESRCH", r)
	}
}

// A process whose dispositions were never set has no sighand_struct made:
// a fork without CLONE_SIGHAND and exec's flush leave both tasks' unmade,
// all SIG_DFL and each its own (a change in one is not seen in the other);
// once set, a fork copies them and exec's flush resets the handled ones,
// leaving SIG_IGN, as before.
func TestSighandMadeOnFirstChange(t *testing.T) {
	_, s := newSched(t, 1, DefaultConfig())
	p, c, c2 := s.Spawn("p", CPUMask{}), s.Spawn("c", CPUMask{}), s.Spawn("c2", CPUMask{})
	disp := func(tk *Task) [3]SigHandler {
		return [3]SigHandler{tk.SigactionOf(SIGUSR1).Handler, tk.SigactionOf(SIGUSR2).Handler, tk.SigactionOf(SIGTERM).Handler}
	}
	s.forkSignals(p, c, 0)
	s.flushSignalHandlers(c)
	if p.sigh != nil || c.sigh != nil {
		t.Fatalf("sighand made: parent %v, child %v", p.sigh != nil, c.sigh != nil)
	}
	if e := s.Sigaction(c, SIGUSR1, SigAction{Handler: SigIgn}); e != 0 {
		t.Fatal(e)
	}
	if e := s.Sigaction(p, SIGUSR2, SigAction{Handler: SigHandled}); e != 0 {
		t.Fatal(e)
	}
	if e := s.Sigaction(p, SIGTERM, SigAction{Handler: SigIgn}); e != 0 {
		t.Fatal(e)
	}
	s.forkSignals(p, c2, 0)
	if e := s.Sigaction(c2, SIGUSR1, SigAction{Handler: SigHandled}); e != 0 {
		t.Fatal(e)
	}
	got := [][3]SigHandler{disp(p), disp(c), disp(c2)}
	want := [][3]SigHandler{{SigDfl, SigHandled, SigIgn}, {SigIgn, SigDfl, SigDfl}, {SigHandled, SigHandled, SigIgn}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("after the forks (-want +got):\n%s", d)
	}
	s.flushSignalHandlers(c2)
	if d := cmp.Diff([3]SigHandler{SigDfl, SigDfl, SigIgn}, disp(c2)); d != "" {
		t.Errorf("after exec's flush (-want +got):\n%s", d)
	}
	if d := cmp.Diff([3]SigHandler{SigDfl, SigHandled, SigIgn}, disp(p)); d != "" {
		t.Errorf("the parent after the child's flush (-want +got):\n%s", d)
	}
}
