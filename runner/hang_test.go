package runner

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
	"perfsim/sim"
)

// TestHang: a run whose tasks all wait for a wake that cannot come stops as
// a hang (a *LimitError, Limit "hang") naming each blocked task and what it
// waits on, with the replay token of its schedule; a wait that is woken,
// or a lost wake the waiter never needed, ends normally. Under this machine's
// cost model (the default) each context switch takes 723 ns: the first hang
// comes after two (CFS places b, made while a waits on cpu0, on idle cpu1:
// swapper to a and a to swapper on cpu0, the same on cpu1 at the same
// time), the second after two.
func TestHang(t *testing.T) {
	tests := []struct {
		name, src string
		want      *LimitError // nil: the run ends normally
		msg       string
	}{
		{"futex and pipe nobody wakes", "cpus 2\ntask a\n  futex wait f\ntask b\n  pipe read p\n",
			&LimitError{Limit: HangLimit, Value: "no runnable task", At: 2 * 723 * sim.Nanosecond, Detail: "deadlock: blocked forever: a/101 (futex f), b/102 (pipe p)"},
			"hang at 1.446us: no task can ever run again, deadlock: blocked forever: a/101 (futex f), b/102 (pipe p) (replay token s2.ANIC740)"},
		{"a wake lost before the wait", "task a\n  futex wake f\n  futex wait f\n",
			&LimitError{Limit: HangLimit, Value: "no runnable task", At: 2 * 723 * sim.Nanosecond, Detail: "deadlock: blocked forever: a/101 (futex f)"},
			"hang at 1.446us: no task can ever run again, deadlock: blocked forever: a/101 (futex f) (replay token s2.ANIC740)"},
		{"a join of a thread that never exits", "cpus 2\ntask a cpu0\n  thread w\n    futex wait f\n  join w\n",
			&LimitError{Limit: HangLimit, Value: "no runnable task", At: 9820 * sim.Nanosecond, Detail: "deadlock: blocked forever: a/101 (join a/102: futex on its tid), a/102 (futex f)"},
			"hang at 9.82us: no task can ever run again, deadlock: blocked forever: a/101 (join a/102: futex on its tid), a/102 (futex f) (replay token s2.ANIC740)"},
		{"a joined thread that exits", "cpus 2\ntask a cpu0\n  thread w\n    compute 5us\n  join w\n", nil, ""},
		{"a pipe written", "cpus 2\ntask a\n  pipe read p\ntask b\n  compute 5us\n  pipe write p\n", nil, ""},
		{"a futex woken", "cpus 2\ntask a\n  futex wait f\ntask b\n  compute 5us\n  futex wake f\n", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Load(&scenarios.Source{Name: "hang.sim", Src: []byte(tt.src)})
			if err != nil {
				t.Fatal(err)
			}
			_, res, err := RunOnce(f, Options{})
			if tt.want == nil {
				if err != nil || res == nil || !res.AllExited {
					t.Fatalf("RunOnce = %+v, %v; want every task exited", res, err)
				}
				return
			}
			var le *LimitError
			if !errors.As(err, &le) || res != nil {
				t.Fatalf("RunOnce = %v, %v; want a hang", res, err)
			}
			got := *le
			got.Steps, got.Token = 0, ""
			if diff := cmp.Diff(*tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if le.Error() != tt.msg {
				t.Errorf("Error() = %q\nwant %q", le.Error(), tt.msg)
			}
		})
	}
}
