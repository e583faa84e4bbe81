package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestUserOpMarks: the program operations and syscall bodies annotated
// (footprint_syscalls.go, footprint_wait.go, CallAnnotated) mark nothing:
// a nanosleep (its return from schedule() too), a yield, a pipe write and
// a futex wake that find no waiter, an annotated call; a Go callback
// (Call) is marked where it starts, and a pipe write that finds the reader
// waiting marks try_to_wake_up() (the reader's wait, on the other CPU,
// returns into the pipe body unmarked).
func TestUserOpMarks(t *testing.T) {
	nop := func(*Task) {}
	for _, tc := range []struct {
		name  string
		progs [][]Op // one task per CPU
		hook  ModeHook
		want  []string
	}{
		{
			name: "one task",
			progs: [][]Op{{
				CallAnnotated(nop), UserStack("main"), Sleep(sim.Microsecond), Yield(), PipeWrite("p", 1), FutexWake("f", 1),
				Call(nop), Compute(sim.Microsecond),
			}},
			want: []string{
				"step syscall_enter_from_user_mode", "step exit_to_user_mode_loop", // nanosleep: to idle and back, woken by its hrtimer
				"step syscall_enter_from_user_mode", "step exit_to_user_mode_loop", // sched_yield: the only task, it runs on
				"step exit_to_user_mode_loop",
				"step syscall_enter_from_user_mode", "step pipe_write:copied", "step exit_to_user_mode_loop", // no reader waiting
				"step syscall_enter_from_user_mode", "step exit_to_user_mode_loop", // futex wake: no waiter
				"unaudited the program's user-mode code", // Call (its do_exit() annotated: footprint_exit.go)
			},
		},
		{
			name:  "a stack step heard by a tracer nobody vouched for",
			progs: [][]Op{{UserStack("main"), Compute(sim.Microsecond)}},
			hook:  stackHook{},
			want:  []string{"unaudited a StackHook's UserStackChanged"},
		},
		{
			name: "pipe reader waits",
			progs: [][]Op{
				{Compute(5 * sim.Microsecond), PipeWrite("p", 1)},
				{PipeRead("p", 1)},
			},
			want: []string{
				"step syscall_enter_from_user_mode", "step pipe_read:wait", // the reader waits
				"step syscall_enter_from_user_mode", "step pipe_write:copied", // the wake-up annotated (footprint_wake.go)
				"step exit_to_user_mode_loop", // the writer's end: its do_exit() annotated (footprint_exit.go)
				"step exit_to_user_mode_loop", // the reader back on its CPU (its wake-list IPI annotated): no mark, nor at its exit
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, s := newSched(t, len(tc.progs), DefaultConfig())
			l := &markSteps{}
			if tc.hook != nil {
				s.ModeHooks = append(s.ModeHooks, tc.hook)
			}
			for i, p := range tc.progs {
				s.Spawn(string(rune('a'+i)), MaskOf(i), p...)
			}
			m.OnSegments(l)
			if err := m.Run(sim.Second); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range l.log {
				switch e {
				case "step __schedule:irqs-off", "step context_switch", "step ttwu_queue_wakelist": // the scheduler's own (footprint_switch.go)
				default:
					got = append(got, e)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("steps and marks (-want +got):\n%s", diff)
			}
		})
	}
}

// stackHook is a StackHook that is no AnnotatedStackHook.
type stackHook struct{}

func (stackHook) ModeSwitch(*Task, bool) {}
func (stackHook) UserStackChanged(*Task) {}
