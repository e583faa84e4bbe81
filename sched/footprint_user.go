package sched

import "perfsim/cpu"

// User-mode Go code whose accesses are annotated: a task's program runs
// Go callbacks (OpCall) that nobody annotated, so runOps marks each one
// (footprint_entry.go) and a syscall returns into it marked (returnInto).
// A callback whose author annotated a part of its code, every access to
// state another context can see (the perf tool's record loop reading the
// rings it mapped: perftool/session.go), runs that part with RunAnnotated:
// the syscalls it makes return into it unmarked, so the fragments that
// return there (exit_to_user_mode_loop) and the ones that start at its own
// step points may be complete; back in its caller's code, nobody's, the
// fragment is marked again.

// RunAnnotated runs fn, user-mode code of t's whose every access to state
// another context can see is annotated, and every path out of it nobody
// annotated marked (cpu.CPU.Unaudited) where it begins. The fragment open
// when fn returns goes on in the caller's code: marked unless that is
// annotated too.
func (s *Sched) RunAnnotated(t *Task, fn func()) {
	outer := t.userAudited
	t.userAudited = true
	fn()
	t.userAudited = outer
	if !outer {
		t.CPU().Unaudited("the caller of RunAnnotated") // back in Go code nobody annotated
	}
}

// RunUnannotated runs fn, user-mode code of t's nobody annotated, from
// annotated code (RunAnnotated): the fragment is marked as fn starts, and
// the syscalls fn makes return into it marked (returnInto); back in the
// annotated caller, the fragment fn's code ran in stays marked up to the
// context's next step point.
func (s *Sched) RunUnannotated(t *Task, fn func()) {
	outer := t.userAudited
	t.userAudited = false
	t.CPU().Unaudited("the task's user-mode code") // Go code nobody annotated
	fn()
	t.userAudited = outer
}

// MarkUnlessAnnotated marks the fragment running in t's context as
// reaching code nobody annotated, fn, unless t's user-mode code is
// annotated now (RunAnnotated, or runOps's own operations): for a step
// point in user code that annotated and unannotated callers both reach,
// whose declaration vouches for the annotated callers only.
func (t *Task) MarkUnlessAnnotated(fn string) {
	if !t.userAudited {
		t.CPU().Unaudited(fn)
	}
}

// SyscallAnnotated is Syscall for a body whose author annotated every
// access it makes to state another context can see, and marked every path
// in it nobody annotated (cpu.CPU.Unaudited): enterBody does not mark it,
// so the syscall's entry fragment may be complete.
func (s *Sched) SyscallAnnotated(t *Task, name string, body SyscallFunc) {
	s.syscallEntry(t, name, body, bodyAnnotated)
}

// CallAnnotated is Call for fn, user-mode code of the task's whose every
// access to state another context can see is annotated and every path
// nobody annotated marked where it begins (as RunAnnotated's): runOps does
// not mark it, and the syscalls it makes return into it unmarked. A
// runner's bookkeeping between a task's steps (the engine's count of a
// repeat's rounds) is such code: it touches no state of the model's.
func CallAnnotated(fn func(t *Task)) Op { return Op{Kind: OpCallAnnotated, Fn: fn} }

// accessTouch annotates a touch step's access of a page of its address
// space, in user mode: the MMU's walk of the page tables and the VMA it
// finds (whether the access faults), which another thread's fault, mmap()
// or munmap() writes. The fault itself (pageFault) starts at its own step
// point, "exc_page_fault", not declared; the return to user mode is into
// the touch step's loop, runOps's own code.
func (s *Sched) accessTouch(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t.MM, "mm->mmap", cpu.DataRaceRead, "the program's memory access") // the MMU's page walk (the hardware, not kernel code): the PTE, the VMA's protection
	}
}

// accessStack annotates the program's step into another function of its
// own (a stack step: the user stack, or the scenario's kernel frames of
// its next entry), which a sample of the task reads (the callchain, the
// IP a tracepoint's sample reports, intel_pt's trace of the function it
// runs in).
func (s *Sched) accessStack(t *Task, fn string) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t, "the task's mode and stacks", cpu.PlainWrite, fn) // the program's own state: the function it runs in (user memory, its registers)
	}
}

// AccessStack is accessStack for a stack step the runner makes itself
// (the scenario's kernel frames: runner's taskOps).
func (t *Task) AccessStack(fn string) { t.s.accessStack(t, fn) }

// AnnotatedStackHook is a StackHook whose UserStackChanged annotates every
// access it makes to state another context can see (and marks every path
// nobody annotated): a stack step does not mark it. Any other StackHook's
// is marked where it is called (userStackChanged).
type AnnotatedStackHook interface {
	StackHook
	StackChangeAnnotated()
}
