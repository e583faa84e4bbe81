package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// TestLockdepHardirqUsage: a spinlock class taken by a timer's irq handler
// at 10us and by a task on the same CPU, at 0 (before) or 20us (after),
// with irqs on or off; and a hardirq-safe class S taken before a
// hardirq-unsafe class U (taken with irqs on elsewhere).
func TestLockdepHardirqUsage(t *testing.T) {
	type take struct {
		at     sim.Duration
		locks  []string // taken in this order, released in reverse
		irqsOn bool
	}
	for _, tc := range []struct {
		name  string
		task  []take
		inIRQ []string // the irq handler's locks at 10us
		want  []string
	}{
		{"irqs-on-then-irq", []take{{0, []string{"L"}, true}}, []string{"L"},
			[]string{"inconsistent-lock-state: inconsistent {HARDIRQ-ON-W} -> {IN-HARDIRQ-W} usage: irq context on cpu0 at 10us takes L in hardirq context; " +
				"it was taken with hardirqs enabled by t/101 on cpu0 at 0 in s"}},
		{"irq-then-irqs-on", []take{{20 * sim.Microsecond, []string{"L"}, true}}, []string{"L"},
			[]string{"inconsistent-lock-state: inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage: t/101 on cpu0 at 20us in s takes L with hardirqs enabled; " +
				"it was taken in hardirq context by irq context on cpu0 at 10us"}},
		{"irqs-off", []take{{0, []string{"L"}, false}, {20 * sim.Microsecond, []string{"L"}, false}}, []string{"L"}, nil},
		{"safe-before-unsafe", []take{{0, []string{"U"}, true}, {20 * sim.Microsecond, []string{"S", "U"}, false}}, []string{"S"},
			[]string{"irq-safe-unsafe: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected: S (taken in hardirq context by irq context on cpu0 at 10us) " +
				"reaches U (taken with hardirqs enabled by t/101 on cpu0 at 0 in s) through S then U (t/101 on cpu0 at 20us in s)"}},
		{"unsafe-before-safe-edge-first", []take{{0, []string{"S", "U"}, false}, {20 * sim.Microsecond, []string{"U"}, true}}, []string{"S"},
			[]string{"irq-safe-unsafe: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected: S (taken in hardirq context by irq context on cpu0 at 10us) " +
				"reaches U (taken with hardirqs enabled by t/101 on cpu0 at 20us in s) through S then U (t/101 on cpu0 at 0 in s)"}},
		{"unsafe-outside-safe", []take{{0, []string{"U"}, true}, {20 * sim.Microsecond, []string{"U", "S"}, false}}, []string{"S"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, 1, exactSleeps())
			var got []string
			s.Lockdep.Report = func(c *cpu.CPU, kind, msg string) { got = append(got, kind+": "+msg) }
			c := m.CPUs[0]
			c.NewTimer(false, cpu.Interrupt{Name: "irq", Fn: func(c *cpu.CPU) {
				for _, l := range tc.inIRQ {
					s.Lockdep.Acquire(c, nil, LockClass{Name: l})
				}
				for i := len(tc.inIRQ) - 1; i >= 0; i-- {
					s.Lockdep.ReleaseAny(c, nil, tc.inIRQ[i])
				}
			}}).Arm(sim.Time(10 * sim.Microsecond))
			var prog []Op
			last := sim.Duration(0)
			for _, tk := range tc.task {
				tk := tk
				if tk.at > last {
					prog = append(prog, Sleep(tk.at-last))
				}
				last = tk.at
				prog = append(prog, Call(func(task *Task) {
					s.Syscall(task, "s", func(task *Task) {
						c := task.CPU()
						f := true
						if !tk.irqsOn {
							f = c.LocalIrqSave()
						}
						for _, l := range tk.locks {
							s.Lockdep.Acquire(c, nil, LockClass{Name: l})
						}
						for i := len(tk.locks) - 1; i >= 0; i-- {
							s.Lockdep.ReleaseAny(c, nil, tk.locks[i])
						}
						if !tk.irqsOn {
							c.LocalIrqRestore(f)
						}
					})
				}))
			}
			s.Spawn("t", MaskOf(0), prog...)
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("reports (-want +got):\n%s", d)
			}
		})
	}
}
