package sched

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// rwsemSection is a syscall body that holds r (for write when write, else
// for read) for hold, logging when it got and released it.
func rwsemSection(s *Sched, r *RWSem, log *[]string, name string, write bool, hold sim.Duration) SyscallFunc {
	return func(tk *Task) {
		if write {
			s.DownWrite(tk, r)
		} else {
			s.DownRead(tk, r)
		}
		*log = append(*log, name+" in at "+tk.CPU().Now().String())
		tk.Spend(hold)
		*log = append(*log, name+" out at "+tk.CPU().Now().String())
		if write {
			s.UpWrite(tk, r)
		} else {
			s.UpRead(tk, r)
		}
	}
}

// Two readers hold the lock together; a writer that comes while they do
// waits for the last of them, and a reader that comes after the writer
// started waiting queues behind it instead of joining the readers.
func TestRWSemReadersShareWriterWaits(t *testing.T) {
	m, s := newSched(t, 4, DefaultConfig())
	r := &RWSem{Name: "test_rwsem"}
	var log []string
	task := func(name string, c int, at sim.Duration, write bool, hold sim.Duration) {
		s.Spawn(name, MaskOf(c), Compute(at), Call(func(tk *Task) { s.Syscall(tk, name, rwsemSection(s, r, &log, name, write, hold)) }))
	}
	task("r1", 0, 1*sim.Microsecond, false, 10*sim.Microsecond)
	task("r2", 1, 2*sim.Microsecond, false, 20*sim.Microsecond)
	task("w", 2, 3*sim.Microsecond, true, 5*sim.Microsecond)
	task("r3", 3, 4*sim.Microsecond, false, 1*sim.Microsecond)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"r1 in at 1us", "r2 in at 2us", "r1 out at 11us", "r2 out at 22us",
		"w in at 22us", "w out at 27us", "r3 in at 27us", "r3 out at 28us",
	}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// w slept once; r3 twice: r2's up_read woke it with w still waiting.
	if r.Contended != 3 || r.Writer() != nil || r.Readers() != 0 {
		t.Errorf("contended %d writer %v readers %d, want 3, nil, 0", r.Contended, r.Writer(), r.Readers())
	}
}

// A writer that downgrades lets a waiting reader in but not a waiting
// writer: the writer gets the lock only after the downgraded holder's up_read.
func TestRWSemDowngrade(t *testing.T) {
	m, s := newSched(t, 3, DefaultConfig())
	r := &RWSem{Name: "test_rwsem"}
	var log []string
	s.Spawn("d", MaskOf(0), Call(func(tk *Task) {
		s.Syscall(tk, "d", func(tk *Task) {
			s.DownWrite(tk, r)
			tk.Spend(5 * sim.Microsecond)
			s.DowngradeWrite(tk, r)
			log = append(log, "d downgraded at "+tk.CPU().Now().String())
			tk.Spend(10 * sim.Microsecond)
			log = append(log, "d out at "+tk.CPU().Now().String())
			s.UpRead(tk, r)
		})
	}))
	s.Spawn("rd", MaskOf(1), Compute(1*sim.Microsecond), Call(func(tk *Task) {
		s.Syscall(tk, "rd", rwsemSection(s, r, &log, "rd", false, 2*sim.Microsecond))
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"d downgraded at 5us", "rd in at 5us", "rd out at 7us", "d out at 15us"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	m, s = newSched(t, 2, DefaultConfig())
	r = &RWSem{Name: "test_rwsem"}
	log = nil
	s.Spawn("d", MaskOf(0), Call(func(tk *Task) {
		s.Syscall(tk, "d", func(tk *Task) {
			s.DownWrite(tk, r)
			tk.Spend(5 * sim.Microsecond)
			s.DowngradeWrite(tk, r)
			tk.Spend(10 * sim.Microsecond)
			log = append(log, "d out at "+tk.CPU().Now().String())
			s.UpRead(tk, r)
		})
	}))
	s.Spawn("w", MaskOf(1), Compute(1*sim.Microsecond), Call(func(tk *Task) {
		s.Syscall(tk, "w", rwsemSection(s, r, &log, "w", true, 2*sim.Microsecond))
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want = []string{"d out at 15us", "w in at 15us", "w out at 17us"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("writer after a downgrade (-want +got):\n%s", diff)
	}
}

// Taking the lock again while holding it, releasing it unheld, sleeping on
// it with irqs off, or leaving the kernel holding it is an oops.
func TestRWSemMisuseOopses(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		body       func(s *Sched, r *RWSem) SyscallFunc
	}{
		{"write-then-read", "recursive locking", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { s.DownWrite(tk, r); s.DownRead(tk, r) }
		}},
		{"read-then-write", "recursive locking", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { s.DownRead(tk, r); s.DownWrite(tk, r) }
		}},
		{"up-write-unheld", "up_write()s test_rwsem", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { s.UpWrite(tk, r) }
		}},
		{"up-read-unheld", "up_read()s test_rwsem", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { s.UpRead(tk, r) }
		}},
		{"downgrade-read", "downgrade_write()s test_rwsem", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { s.DownRead(tk, r); s.DowngradeWrite(tk, r) }
		}},
		{"irqs-off", "sleeping function called from invalid context", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { tk.CPU().LocalIrqSave(); s.DownWrite(tk, r) }
		}},
		{"held-at-return-to-user", "returning to user space with 1 mutex(es) held", func(s *Sched, r *RWSem) SyscallFunc {
			return func(tk *Task) { s.DownRead(tk, r) }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 1, DefaultConfig())
			r := &RWSem{Name: "test_rwsem"}
			s.Spawn("a", CPUMask{}, Call(func(tk *Task) { s.Syscall(tk, "x", tc.body(s, r)) }))
			err := m.Run(sim.Second)
			var oops *sim.Oops
			if !errors.As(err, &oops) || !strings.Contains(oops.Error(), tc.want) {
				t.Fatalf("run = %v, want an oops with %q", err, tc.want)
			}
		})
	}
}

// atSchedule runs another CPU at every decision of a __schedule step point
// and otherwise stays.
type atSchedule struct{}

func (atSchedule) Choose(n int, what string) int {
	if strings.Contains(what, "__schedule:irqs-off") {
		return 1
	}
	return 0
}

// A task that goes to sleep on a lock and is woken by its release while it
// is still inside __schedule() (the other CPU runs at its step point) is
// queued once: it gets the lock, runs on and exits. Queued twice, it was
// picked again after its exit ("thread ... returned while current").
func TestWakeInsideScheduleQueuesOnce(t *testing.T) {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, atSchedule{})
	t.Cleanup(m.Close)
	s := New(m, DefaultConfig())
	r := &RWSem{Name: "test_rwsem"}
	var log []string
	s.Spawn("a", MaskOf(1), Call(func(tk *Task) {
		s.Syscall(tk, "a", rwsemSection(s, r, &log, "a", true, 10*sim.Microsecond))
	}))
	s.Spawn("b", MaskOf(0), Compute(10*sim.Microsecond), Call(func(tk *Task) {
		s.Syscall(tk, "b", rwsemSection(s, r, &log, "b", true, 1*sim.Microsecond))
	}))
	// c waits on cpu0's run queue from the start: when b goes to sleep c is
	// picked, not b, so a second copy of b in the queue would outlive it.
	s.Spawn("c", MaskOf(0), Sleep(10*sim.Microsecond), Compute(2*sim.Microsecond))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"a in at 0", "a out at 10us", "b in at 10us", "b out at 11us"}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if r.Contended != 1 {
		t.Errorf("b slept %d times on the lock, want 1 (woken inside its __schedule)", r.Contended)
	}
	for i := range m.CPUs {
		if q := s.RunQueue(i); len(q) != 0 {
			t.Errorf("cpu%d run queue holds %v at the end", i, q)
		}
	}
}
