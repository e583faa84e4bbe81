package sched

import (
	"perfsim/cpu"
	"perfsim/uapi"
)

// The footprints of the syscall entry and the return to user mode, and the
// two fragments declared complete with them (cpu.DeclareComplete):
//
//   - "syscall_enter_from_user_mode": the sys_enter tracepoints (perf's
//     SyscallHook: what it reads to find no event, or the mark of perf_tp_event
//     when one fires), the body, sys_exit, the registers written back, then
//     exit_to_user_mode_loop's step point. Two kinds of body are
//     annotated: a syscall with no model but its time in the kernel
//     (spendSysCost: newuname, getpid, ...), and one whose Go func its
//     author annotated (SyscallAnnotated: perf's write(2) of perf.data,
//     the scheduler's nanosleep, sched_yield, pipe and futex bodies:
//     footprint_syscalls.go, footprint_wait.go);
//     every other body is marked unaudited where it starts (enterBody).
//   - "exit_to_user_mode_loop": the thread flags read; then a reschedule (up
//     to __schedule's step point), task work (up to task_work_run's), or the
//     return to user: the user-return hooks, the mode switch, and the
//     program's next operations up to the next syscall's step point. Only
//     runOps's own operations are annotated (userOpAudited), and Go code
//     its author annotated (CallAnnotated, RunAnnotated: footprint_user.go);
//     an operation whose code is a Go callback (OpCall) and the rest are
//     marked where they start, a return into such code is marked where
//     it returns (returnInto), and signal delivery where it starts;
//     do_exit() and do_group_exit() are annotated (footprint_exit.go),
//     their hooks nobody annotated marked where they run.
//
// A path nobody annotated is marked with cpu.CPU.Unaudited: the fragment
// that reaches it counts as touching everything. The write audit
// (explore's TestWriteAuditRealModel) checks the writes of the fragments
// that reach no mark; the reads are annotated here by reading the code.
func init() {
	cpu.DeclareComplete("syscall_enter_from_user_mode", "exit_to_user_mode_loop")
}

// userOpAudited are the program operations whose own code (in runOps, up to
// the step point of the syscall each enters) is annotated: a compute (time
// in user mode), a syscall op, a loop, the operations that enter one
// syscall through syscallWith (whose body is judged by enterBody), a pipe's
// or futex's (the object's lookup: footprint_wait.go), a touch of memory
// (its page walk: accessTouch; the fault it takes starts at its own step
// point), a stack step (accessStack; a tracer's hook marked unless it is an
// AnnotatedStackHook), and a call of code its author annotated
// (CallAnnotated).
var userOpAudited = [...]bool{
	OpCompute: true, OpSyscall: true, OpLoop: true, OpSleep: true, OpMigrate: true, OpAffinity: true,
	OpYield: true, OpExit: true, OpFork: true, OpExitGroup: true, OpWait: true,
	OpPipe: true, OpFutex: true, OpCallAnnotated: true, OpTouch: true, OpStack: true, OpJoin: true,
	OpCall: false,
}

// accessRegs annotates the entry and exit code's writes of the task's own
// saved state: its registers (the syscall's number, arguments and return
// value, the mode they say it runs in) and the model's count of entries and
// name of the syscall in progress. Another CPU reads none of it; the
// task's own CPU's interrupts do (a sample's user regs). Only plain writes
// (which KCSAN assumes atomic) annotate the field, so the data-race oracle
// could report nothing on it and does not hear it (cpu.CPU.AccessMarkedOnly).
func (t *Task) accessRegs(fn string) {
	if c := t.CPU(); t.s.M.FootprintListening() {
		c.AccessMarkedOnly(t, "task_pt_regs(current)", cpu.PlainWrite, fn) // arch/x86/entry/syscall_64.c: do_syscall_64(): the pt_regs the entry saved and the exit restores
	}
}

// bodyKind says whose a syscall's body is, for enterBody.
type bodyKind uint8

const (
	bodyGo        bodyKind = iota // a Go func nobody annotated (syscallWith)
	bodyModelled                  // the scheduler's model (modelledSyscall)
	bodyAnnotated                 // a Go func its author annotated (SyscallAnnotated)
)

// enterBody marks a syscall body nobody annotated, as it starts: every body
// but one of time in the kernel only (modelled, with no model in
// sysModels: spendSysCost, which touches nothing another context sees)
// and one whose author annotated it (SyscallAnnotated).
func (s *Sched) enterBody(t *Task, name string, kind bodyKind) {
	if !s.M.FootprintListening() {
		return
	}
	if kind == bodyAnnotated || kind == bodyModelled && !hasSysModel(name) {
		return
	}
	t.CPU().Unaudited("sys_" + name)
}

// hasSysModel reports whether name's modelled body is one of sysModels
// (modelledSyscall) whose accesses are not annotated: not only time, and
// not one of annotatedSysModels.
func hasSysModel(name string) bool {
	sc, known := uapi.LookupSyscall(name)
	return known && sysModels[sc.TraceName()] != nil && !annotatedSysModels[sc.TraceName()]
}

// accessWork annotates what exit_to_user_mode_loop() reads each round: the
// thread flags (the model's NotifyResume, NotifySignal, SigPending and the
// group's SIGKILL are bits of them, and other CPUs set them) and
// TIF_NEED_RESCHED (the model keeps it per CPU: resched() sets it from
// any CPU).
func (s *Sched) accessWork(c *cpu.CPU, t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedRead, "exit_to_user_mode_loop") // kernel/entry/common.c: exit_to_user_mode_loop(): ti_work = read_thread_flags()
	c.AccessMarkedOnly(c, "TIF_NEED_RESCHED", cpu.MarkedRead, "exit_to_user_mode_loop")   // kernel/entry/common.c: exit_to_user_mode_loop(): if (ti_work & _TIF_NEED_RESCHED_MASK)
}

// returnInto marks the return to user mode into code nobody annotated: the
// task's user-mode code is a Go callback (OpCall: perf's own user-space
// code, a runner action) or a fault's caller, not runOps's own.
func (s *Sched) returnInto(t *Task) {
	if !t.userAudited {
		t.CPU().Unaudited("the task's user-mode code")
	}
}
