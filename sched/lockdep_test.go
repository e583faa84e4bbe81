package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// Two tasks take two mutexes in opposite orders, one after the other (no
// deadlock happens in this schedule): lockdep reports the cycle once, at the
// second task's second lock, naming both chains.
func TestLockdepReportsOrderCycle(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bOrder  [2]string // the order task b takes the two locks in
		off     bool
		want    []string
		wantDep []string
	}{
		{"inversion", [2]string{"B", "A"}, false,
			[]string{"circular-dependency: possible circular locking dependency: b/102 on cpu1 at 20us in b takes A while holding B " +
				"(taken by b/102 on cpu1 at 20us in b); the run already took A then B (a/101 on cpu0 at 0 in a)"},
			[]string{"A -> B", "B -> A"}},
		{"same-order", [2]string{"A", "B"}, false, nil, []string{"A -> B"}},
		{"lockdep-off", [2]string{"B", "A"}, true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.NoLockdep = tc.off
			m, s := newSched(t, 2, cfg)
			var got []string
			s.Lockdep.Report = func(c *cpu.CPU, kind, msg string) { got = append(got, kind+": "+msg) }
			spawnTwoOrders(s, "A", "B", tc.bOrder[0], tc.bOrder[1])
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("reports (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantDep, s.Lockdep.Dependencies()); d != "" {
				t.Errorf("dependencies (-want +got):\n%s", d)
			}
		})
	}
}

// The other checks, on the validator alone: a second lock of a held class
// (unless nested with a subclass), a lock taken in NMI context, a trylock
// (which adds no dependency), and a three-class cycle found through a path.
func TestLockdepChecks(t *testing.T) {
	tk := func(tid int) *Task { return &Task{TID: tid, Comm: fmt.Sprint("t", tid)} }
	A, A1, B, C := LockClass{Name: "A"}, LockClass{"A", 1}, LockClass{Name: "B"}, LockClass{Name: "C"}
	type op struct {
		t       *Task
		acquire bool
		try     bool
		cl      LockClass
	}
	t1, t2 := tk(1), tk(2)
	for _, tc := range []struct {
		name string
		ops  []op
		want []string
	}{
		{"recursive", []op{{t1, true, false, A}, {t1, true, false, A}},
			[]string{"recursive-locking: possible recursive locking: t1/1 on cpu-1 at 0 takes A while holding another A (taken by t1/1 on cpu-1 at 0); annotate with a subclass if the order is fixed"}},
		{"nested-subclass", []op{{t1, true, false, A}, {t1, true, false, A1}}, nil},
		{"trylock-adds-no-edge", []op{{t1, true, false, A}, {t1, true, true, B}, {t1, false, false, B}, {t1, false, false, A},
			{t2, true, false, B}, {t2, true, false, A}}, nil},
		{"three-class-cycle", []op{
			{t1, true, false, A}, {t1, true, false, B}, {t1, false, false, B}, {t1, false, false, A},
			{t1, true, false, B}, {t1, true, false, C}, {t1, false, false, C}, {t1, false, false, B},
			{t2, true, false, C}, {t2, true, false, A}},
			[]string{"circular-dependency: possible circular locking dependency: t2/2 on cpu-1 at 0 takes A while holding C (taken by t2/2 on cpu-1 at 0); " +
				"the run already took A then B (t1/1 on cpu-1 at 0); B then C (t1/1 on cpu-1 at 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ld Lockdep
			var got []string
			ld.Report = func(c *cpu.CPU, kind, msg string) { got = append(got, kind+": "+msg) }
			for _, o := range tc.ops {
				switch {
				case o.acquire && o.try:
					ld.AcquireTry(nil, o.t, o.cl)
				case o.acquire:
					ld.Acquire(nil, o.t, o.cl)
				default:
					ld.ReleaseAny(nil, o.t, o.cl.Name)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// A lock taken in an NMI handler is reported as lock-in-nmi, once, with the
// CPU it ran on; the NMI's locks are its own (they do not nest under the
// interrupted task's).
func TestLockdepLockInNMI(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	var got []string
	s.Lockdep.Report = func(c *cpu.CPU, kind, msg string) { got = append(got, fmt.Sprintf("cpu%d %s: %s", c.ID, kind, msg)) }
	X := LockClass{Name: "X"}
	s.Spawn("a", MaskOf(0), Call(func(tk *Task) {
		s.Syscall(tk, "a", func(tk *Task) {
			c := tk.CPU()
			c.RaiseNMI(cpu.Interrupt{Name: "pmi", Now: true, Fn: func(c *cpu.CPU) {
				s.Lockdep.Acquire(c, nil, X)
				s.Lockdep.ReleaseAny(c, nil, X.Name)
			}})
			c.Step("test:nmi-here")
		})
	}))
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	want := []string{"cpu0 lock-in-nmi: X taken in NMI context (nmi context on cpu0 at 0): an NMI can interrupt its holder on this CPU and spin or sleep forever"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// spawnTwoOrders spawns a, which takes mutexes a1 then a2 in a system call
// on cpu0, and b, which takes b1 then b2 on cpu1 20us later (each holds both
// for 1us).
func spawnTwoOrders(s *Sched, a1, a2, b1, b2 string) {
	mus := map[string]*Mutex{}
	for _, n := range []string{a1, a2, b1, b2} {
		if mus[n] == nil {
			mus[n] = &Mutex{Name: n}
		}
	}
	section := func(first, second string) SyscallFunc {
		return func(tk *Task) {
			s.MutexLock(tk, mus[first])
			s.MutexLock(tk, mus[second])
			tk.Spend(sim.Microsecond)
			s.MutexUnlock(tk, mus[second])
			s.MutexUnlock(tk, mus[first])
		}
	}
	s.Spawn("a", MaskOf(0), Call(func(tk *Task) { s.Syscall(tk, "a", section(a1, a2)) }))
	s.Spawn("b", MaskOf(1), Compute(20*sim.Microsecond), Call(func(tk *Task) { s.Syscall(tk, "b", section(b1, b2)) }))
}
