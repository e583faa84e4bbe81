package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestJoin: pthread_join() of a thread still running futex-waits on its
// tid word once and returns when the thread's exit_mm() clears it and
// wakes it (mm_release()); of a thread already gone it makes no syscall.
func TestJoin(t *testing.T) {
	type got struct {
		Entries  uint64   // kernel entries the join made
		Returned sim.Time // when the join returned
		Cleared  bool     // the thread's tid word is 0
		Exited   sim.Time // the thread's exit
	}
	for _, tc := range []struct {
		name         string
		thread, main sim.Duration // the thread's compute, main's sleep before its join
		want         got          // but Returned and Exited, which are compared with each other
	}{
		{"running: one futex wait", 20 * sim.Microsecond, 0, got{Entries: 1, Cleared: true}},
		{"gone: no syscall", sim.Microsecond, 50 * sim.Microsecond, got{Entries: 0, Cleared: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, s := newSched(t, 2, exactSleeps())
			var g got
			var before uint64
			var th *Task
			s.Spawn("main", MaskOf(0),
				Fork("w", ThreadFlags, Migrate(1), Compute(tc.thread)),
				Sleep(tc.main),
				Call(func(t *Task) { before = t.KernelEntries; th = t.join.joinable["w"][0] }),
				Join("w"),
				Call(func(t *Task) { g.Entries, g.Returned = t.KernelEntries-before, t.CPU().Now() }))
			if err := s.M.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			g.Cleared, g.Exited = th.join.tidCleared, th.Exited
			if g.Returned < g.Exited {
				t.Errorf("the join returned at %s, before the thread exited at %s", g.Returned, g.Exited)
			}
			want := tc.want
			want.Returned, want.Exited = g.Returned, g.Exited
			if d := cmp.Diff(want, g); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
