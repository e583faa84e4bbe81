package sched

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// Two tasks on two CPUs take one mutex: the second sleeps until the first
// unlocks it, then owns it; the critical sections never overlap.
func TestMutexSerializes(t *testing.T) {
	m, s := newSched(t, 2, DefaultConfig())
	mu := &Mutex{Name: "test_mutex"}
	var log []string
	section := func(name string) SyscallFunc {
		return func(tk *Task) {
			s.MutexLock(tk, mu)
			log = append(log, name+" in at "+tk.CPU().Now().String())
			tk.Spend(10 * sim.Microsecond)
			log = append(log, name+" out at "+tk.CPU().Now().String())
			s.MutexUnlock(tk, mu)
		}
	}
	s.Spawn("a", MaskOf(0), Call(func(tk *Task) { s.Syscall(tk, "a", section("a")) }))
	s.Spawn("b", MaskOf(1), Compute(5*sim.Microsecond), Call(func(tk *Task) { s.Syscall(tk, "b", section("b")) }))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"a in at 0", "a out at 10us", "b in at 10us", "b out at 20us"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if mu.Contended != 1 || mu.Owner() != nil {
		t.Errorf("contended %d owner %v, want 1 and nil", mu.Contended, mu.Owner())
	}
}

// Taking a mutex twice, unlocking one held by another task, sleeping on one
// with irqs off, or leaving the kernel holding one is an oops.
func TestMutexMisuseOopses(t *testing.T) {
	for _, tc := range []struct {
		name, want string // want: in the oops
		body       func(s *Sched, mu *Mutex) SyscallFunc
	}{
		{"recursive", "recursive locking", func(s *Sched, mu *Mutex) SyscallFunc {
			return func(tk *Task) { s.MutexLock(tk, mu); s.MutexLock(tk, mu) }
		}},
		{"unlock-unheld", "DEBUG_LOCKS_WARN_ON", func(s *Sched, mu *Mutex) SyscallFunc {
			return func(tk *Task) { s.MutexUnlock(tk, mu) }
		}},
		{"irqs-off", "sleeping function called from invalid context", func(s *Sched, mu *Mutex) SyscallFunc {
			return func(tk *Task) { tk.CPU().LocalIrqSave(); s.MutexLock(tk, mu) }
		}},
		{"held-at-return-to-user", "returning to user space with 1 mutex(es) held", func(s *Sched, mu *Mutex) SyscallFunc {
			return func(tk *Task) { s.MutexLock(tk, mu) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 1, DefaultConfig())
			mu := &Mutex{Name: "test_mutex"}
			s.Spawn("a", CPUMask{}, Call(func(tk *Task) { s.Syscall(tk, "x", tc.body(s, mu)) }))
			err := m.Run(sim.Second)
			var oops *sim.Oops
			if !errors.As(err, &oops) || !strings.Contains(oops.Error(), tc.want) {
				t.Fatalf("run = %v, want an oops with %q", err, tc.want)
			}
		})
	}
}
