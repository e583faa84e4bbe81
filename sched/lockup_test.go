package sched

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestSpinRound: a task spinning in the kernel on a flag nobody sets is
// reported once, when it has spun for the livelock bound
// (Cfg.HungTaskTimeout), with the loop's step point, since when, and what it
// waits for; the listener stops the run there while another task would go
// on. A loop that ends before the bound, and one without a bound, report
// nothing.
func TestSpinRound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout sim.Duration
		spinFor sim.Duration // 0: forever
		want    []string
	}{
		{"stuck", sim.Millisecond, 0, []string{"spinner/101 on cpu0 at step test:spin since 1us, reported at 1.001ms: the test's flag, cpu1 runs other-102 (task context, irqs on, last step context_switch)"}},
		{"ends", sim.Millisecond, 500 * sim.Microsecond, nil},
		{"no-bound", 0, 2 * sim.Millisecond, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.HungTaskTimeout = tc.timeout
			m, s := newSched(t, 2, cfg)
			var got []string
			s.OnLockup = func(l Lockup) {
				got = append(got, fmt.Sprintf("%s on cpu%d at step %s since %s, reported at %s: %s", l.Task, l.CPU, l.Label, l.Since, s.M.Now(), l.What))
				s.M.Eng.Stop()
			}
			s.Spawn("spinner", MaskOf(0), Compute(sim.Microsecond), Call(func(tk *Task) {
				s.Syscall(tk, "spin", func(tk *Task) {
					start := tk.CPU().Now()
					for tc.spinFor == 0 || tk.CPU().Now()-start < sim.Time(tc.spinFor) {
						tk.Step("test:spin")
						s.SpinRound(tk, start, "test:spin", func() string { return "the test's flag, " + s.CPUState(1) })
						tk.Spend(100 * sim.Nanosecond)
					}
				})
			}))
			s.Spawn("other", MaskOf(1), Compute(50*sim.Millisecond))
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("lockups (-want +got):\n%s", d)
			}
		})
	}
}
