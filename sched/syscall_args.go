package sched

import (
	"perfsim/cpu"
	"perfsim/sim"
	"perfsim/uapi"
)

// SyscallRegs is a syscall in progress as the registers hold it: orig_ax
// (the number), di, si, dx, r10, r8, r9 (the arguments), ax (the return
// value). The tracepoints read them (syscall_get_arguments(),
// syscall_get_return_value()).
type SyscallRegs struct {
	Nr   int
	Args [6]uint64
	Ret  int64
}

// SysArg is one argument of a program's syscall: a number (a constant is
// resolved by the language), a string the task passes by its address in
// user memory, or the value an earlier "as NAME" bound.
type SysArg struct {
	Val   uint64
	Str   string
	IsStr bool
	Var   string
}

// SyscallArgs is a program step that makes syscall name with args, spending
// d in the kernel when the syscall has no model body (d 0: SyscallCost), and
// binds its return value to bind when bind is not "".
func SyscallArgs(name string, d sim.Duration, bind string, args ...SysArg) Op {
	return Op{Kind: OpSyscall, Name: name, D: d, Args: args, Bind: bind}
}

// Touch is a program step that accesses pages pages from the address arg
// (write: stores), each first access of a page a page fault.
func Touch(at SysArg, pages int, write bool) Op {
	op := Op{Kind: OpTouch, N: pages, Args: []SysArg{at}}
	if write {
		op.Name = "write"
	}
	return op
}

// argValue is the register value of a in t's context.
func (t *Task) argValue(a SysArg) uint64 {
	switch {
	case a.IsStr:
		t.s.accessMMAlloc(t) // a task made with no address space gets its first here (footprint_mm_alloc.go)
		t.ensureMM(t.s)
		t.CPU().AccessMarkedOnly(t.MM, "the program's strings (user memory)", cpu.MarkedWrite, "user space") // the program stores its string arguments in its address space (mm.MM.PutString), shared with its threads
		return t.MM.PutString(a.Str)
	case a.Var != "":
		return t.Vars[a.Var]
	}
	return a.Val
}

// syscallOp runs a program's syscall step: loads the registers, runs the
// syscall, binds the return value.
func (s *Sched) syscallOp(t *Task, op *Op) {
	if op.nr == 0 {
		op.nr = uapi.SyscallNr(op.Name) + 1
	}
	t.accessRegs("do_syscall_64")
	t.sysNext = SyscallRegs{Nr: op.nr - 1}
	for i, a := range op.Args {
		if i < len(t.sysNext.Args) {
			t.sysNext.Args[i] = t.argValue(a)
		}
	}
	t.sysNextOK = true
	s.syscall(t, op.Name, op.D)
	if op.Bind != "" {
		t.accessRegs("syscall_exit_to_user_mode")
		if t.Vars == nil {
			t.Vars = map[string]uint64{}
		}
		t.Vars[op.Bind] = uint64(t.Sys.Ret)
	}
}

// loadSysRegs sets t.Sys at syscall entry: the program's registers, or for a
// syscall the model makes on the task's behalf (perf's own read, ioctl, ...)
// its number and zero arguments.
func (t *Task) loadSysRegs(name string) {
	if t.sysNextOK {
		t.Sys, t.sysNextOK = t.sysNext, false
		return
	}
	t.Sys = SyscallRegs{Nr: uapi.SyscallNr(name)}
}

// Exec makes t call execve(file, NULL, NULL) from model code (the workload
// perf record forks and execs).
func (s *Sched) Exec(t *Task, file string) {
	op := SyscallArgs("execve", 0, "", SysArg{Str: file, IsStr: true})
	s.syscallOp(t, &op)
}
