package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/sim"
)

// markSteps is a cpu.SegmentListener that logs a task's step points and
// the marks of unaudited code in between.
type markSteps struct{ log []string }

func (l *markSteps) Boundary(_ *cpu.CPU, kind cpu.BoundaryKind, ctx cpu.Context, _ *cpu.Thread, label string) {
	if kind == cpu.BoundaryStep && ctx == cpu.CtxTask {
		l.log = append(l.log, "step "+label)
	}
}

func (l *markSteps) Touch(obj any, _ string, _ bool) {
	if u, ok := obj.(cpu.Unaudited); ok {
		l.log = append(l.log, "unaudited "+string(u))
	}
}

// TestRunAnnotatedMarks: a Go callback's syscalls return into it marked;
// inside RunAnnotated they return unmarked, a SyscallAnnotated body is not
// marked, MarkUnlessAnnotated marks nothing, RunUnannotated marks where it
// starts and its syscalls' returns; back in the callback after
// RunAnnotated, the fragment is marked again.
func TestRunAnnotatedMarks(t *testing.T) {
	m, s := newSched(t, 1, DefaultConfig())
	l := &markSteps{}
	nop := func(*Task) {}
	s.Spawn("a", MaskOf(0), Call(func(t *Task) {
		t.Step("test:callback")
		s.Syscall(t, "write", nop)
		s.RunAnnotated(t, func() {
			s.Syscall(t, "write", nop)
			s.SyscallAnnotated(t, "write", nop)
			t.Step("test:annotated")
			t.MarkUnlessAnnotated("test_reader")
			s.RunUnannotated(t, func() { s.Syscall(t, "write", nop) })
			t.Step("test:annotated-again")
		})
		t.MarkUnlessAnnotated("test_reader")
		t.Step("test:end")
	}))
	m.OnSegments(l)
	if err := m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	var got []string
	on := false
	for _, e := range l.log {
		if e == "step test:callback" {
			on = true
		}
		if on {
			got = append(got, e)
		}
		if e == "step test:end" {
			break
		}
	}
	want := []string{
		"step test:callback",
		"step syscall_enter_from_user_mode", "unaudited sys_write",
		"step exit_to_user_mode_loop", "unaudited the task's user-mode code", // back in the callback
		// RunAnnotated
		"step syscall_enter_from_user_mode", "unaudited sys_write",
		"step exit_to_user_mode_loop", // back in annotated code: no mark
		"step syscall_enter_from_user_mode",
		"step exit_to_user_mode_loop",         // SyscallAnnotated: body and return unmarked
		"step test:annotated",                 // MarkUnlessAnnotated: nothing
		"unaudited the task's user-mode code", // RunUnannotated starts
		"step syscall_enter_from_user_mode", "unaudited sys_write",
		"step exit_to_user_mode_loop", "unaudited the task's user-mode code",
		"step test:annotated-again",
		"unaudited the caller of RunAnnotated", // back in the callback
		"unaudited test_reader",
		"step test:end",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps and marks (-want +got):\n%s", diff)
	}
}
