package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestSigprocmask: a process signal goes to the thread that does not block
// it (wants_signal()); one every thread blocks stays pending and is taken
// by the thread that unblocks it first, on its way back to user; a thread
// that blocks a process signal it was chosen for hands it to another
// (retarget_shared_pending()); SIGKILL and SIGSTOP are never blocked; a
// fork's child and a thread start with the creator's mask.
func TestSigprocmask(t *testing.T) {
	type want struct {
		Takers   []string // who took SIGUSR1, in order
		Pending  int      // process signals left pending at the end
		ChildBlk bool     // the forked child blocks SIGUSR1 too
	}
	for _, tc := range []struct {
		name           string
		leaderBlocks   bool // after it created the thread, before the child
		threadBlocks   bool
		threadUnblocks bool // at 300us, after the send at 100us
		retarget       bool // the leader sends it to its process itself, is chosen, then blocks it (no send at 100us)
		want           want
	}{
		{"leader blocks: the thread takes it", true, false, false, false, want{[]string{"th"}, 0, true}},
		{"both block: pending", true, true, false, false, want{nil, 1, true}},
		{"both block, the thread unblocks: it takes it then", true, true, true, false, want{[]string{"th"}, 0, true}},
		{"neither blocks: the leader takes it", false, false, false, false, want{[]string{"p"}, 0, false}},
		{"chosen, the leader blocks it: retargeted to the thread", true, false, false, true, want{[]string{"th"}, 0, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 2, DefaultConfig())
			usr1 := SigMask(SIGUSR1)
			var child *Task
			var got want
			leader := s.Spawn("p", MaskOf(0), Call(func(tk *Task) {
				if e := s.Sigaction(tk, SIGUSR1, SigAction{Handler: SigHandled}); e != 0 {
					t.Errorf("Sigaction: %v", e)
				}
			}), Fork("th", ThreadFlags, sigprocmaskIf(tc.threadBlocks, SIG_BLOCK, usr1), Sleep(300*sim.Microsecond),
				sigprocmaskIf(tc.threadUnblocks, SIG_UNBLOCK, usr1), // taken on this syscall's way back to user
				Compute(10*sim.Microsecond)), Call(func(tk *Task) {
				if tc.retarget {
					_, _ = s.SendSignalTo(tk, Signal{Sig: SIGUSR1, Code: SI_USER}, PIDTYPE_TGID)
					if !tk.SigPending {
						t.Errorf("the running leader was not chosen (wants_signal(): task_curr())")
					}
				}
				if tc.leaderBlocks {
					s.setCurrentBlocked(tk, tk.blocked|usr1|SigMask(SIGKILL)|SigMask(SIGSTOP))
					if tk.blocked != usr1 {
						t.Errorf("blocked %#x, want only SIGUSR1 (%#x): SIGKILL and SIGSTOP cannot be blocked", tk.blocked, usr1)
					}
				}
			}), Fork("c", 0, Call(func(tk *Task) { child = tk }), Compute(sim.Microsecond)),
				Sleep(sim.Millisecond))
			s.Spawn("sender", MaskOf(1), Compute(100*sim.Microsecond), Call(func(*Task) {
				if !tc.retarget {
					_, _ = s.SendSignalTo(leader, Signal{Sig: SIGUSR1, Code: SI_USER}, PIDTYPE_TGID)
				}
			}), Sleep(400*sim.Microsecond), Call(func(*Task) {
				got.Pending = len(leader.sigstruct().shared) // at 500us, every thread still alive
			}))
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			for _, d := range s.Delivered {
				who := "th" // a thread keeps its creator's comm: told apart by task
				if d.Task == leader {
					who = "p"
				}
				got.Takers = append(got.Takers, who)
			}
			got.ChildBlk = child != nil && child.sigBlocked(SIGUSR1)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// sigprocmaskIf is rt_sigprocmask(how, &set, NULL, 8) when do, else nothing.
func sigprocmaskIf(do bool, how, set uint64) Op {
	if !do {
		return Compute(0)
	}
	return SyscallArgs("rt_sigprocmask", 0, "", SysArg{Val: how}, UserStruct(set), SysArg{}, SysArg{Val: 8})
}
