package runner

import (
	"perfsim/scenarios"
	"perfsim/sched"
)

// taskMask returns the CPUs a task may start on (empty: any).
func taskMask(t *scenarios.Task) sched.CPUMask {
	if t.Affinity == nil {
		return sched.CPUMask{}
	}
	return sched.MaskOf(t.Affinity.CPUs...)
}

// taskOps turns a task's program into scheduler operations. Nice is not modelled
// by the scheduler yet and is ignored. Each round of a repeat calls tick first
// (the engine's step count: a repeat of zero-time statements never gives the
// engine its lane back, so only this counts its rounds against the limits).
func taskOps(f *scenarios.File, ops []scenarios.Op, tick func(), perfOps map[scenarios.Op]func(*sched.Task)) []sched.Op {
	out := make([]sched.Op, 0, len(ops))
	for _, op := range ops {
		switch op := op.(type) {
		case *scenarios.Compute:
			out = append(out, sched.Compute(clampDur(op.Dur)))
		case *scenarios.Syscall:
			out = append(out, sched.SyscallArgs(op.Name, clampDur(op.Dur), op.Bind, sysArgs(op.Name, op.Args)...))
		case *scenarios.Touch:
			out = append(out, sched.Touch(sysArg(op.At), int(op.Pages), op.Write))
		case *scenarios.Sleep:
			out = append(out, sched.Sleep(clampDur(op.Dur)))
		case *scenarios.Repeat:
			body := append([]sched.Op{sched.CallAnnotated(func(*sched.Task) { tick() })}, taskOps(f, op.Body, tick, perfOps)...)
			out = append(out, sched.Loop(int(op.Count), body...))
		case *scenarios.Stack:
			frames := append([]string(nil), op.Frames...)
			if op.Kernel {
				out = append(out, sched.CallAnnotated(func(t *sched.Task) {
					t.AccessStack("the program's stack step")
					t.KernelStack = frames
				}))
			} else {
				out = append(out, sched.UserStack(frames...))
			}
		case *scenarios.Migrate:
			out = append(out, sched.Migrate(op.CPU))
		case *scenarios.Pin:
			out = append(out, sched.Affinity(sched.MaskOf(op.CPUs.CPUs...)))
		case *scenarios.Exit:
			out = append(out, sched.Exit())
		case *scenarios.Fork:
			flags := uint64(sched.ForkFlags)
			if op.Thread {
				flags = sched.ThreadFlags
			}
			out = append(out, sched.Fork(op.Name, flags, taskOps(f, f.ProgramBody(op), tick, perfOps)...))
		case *scenarios.ExitGroup:
			out = append(out, sched.ExitGroup())
		case *scenarios.Wait:
			out = append(out, sched.Wait4())
		case *scenarios.Join:
			out = append(out, sched.Join(op.Name))
		case *scenarios.Yield:
			out = append(out, sched.Yield())
		case *scenarios.Sigaction:
			// glibc's sigaction(): rt_sigaction(sig, &{sa_handler, sa_flags, sa_restorer, sa_mask}, NULL, 8)
			h := map[string]uint64{"SIG_DFL": 0, "SIG_IGN": 1, "handler": handlerAddr}[op.Action]
			out = append(out, sched.SyscallArgs("rt_sigaction", 0, "", sched.SysArg{Val: uint64(op.Sig)},
				sched.UserStruct(h, saRestorer, restorerAddr, 0), sched.SysArg{}, sched.SysArg{Val: 8}))
		case *scenarios.Sigprocmask:
			// glibc's sigprocmask(): rt_sigprocmask(how, &set, NULL, 8)
			var set uint64
			for _, sig := range op.Sigs {
				set |= sched.SigMask(int(sig))
			}
			how := map[string]uint64{"SIG_BLOCK": sched.SIG_BLOCK, "SIG_UNBLOCK": sched.SIG_UNBLOCK, "SIG_SETMASK": sched.SIG_SETMASK}[op.How]
			out = append(out, sched.SyscallArgs("rt_sigprocmask", 0, "", sched.SysArg{Val: how}, sched.UserStruct(set), sched.SysArg{}, sched.SysArg{Val: 8}))
		case *scenarios.Setrlimit:
			// glibc's setrlimit(): prlimit64(0, RLIMIT_SIGPENDING, &{cur, max}, NULL)
			v := uint64(op.Value)
			out = append(out, sched.SyscallArgs("prlimit64", 0, "", sched.SysArg{}, sched.SysArg{Val: sched.RLIMIT_SIGPENDING},
				sched.UserStruct(v, v), sched.SysArg{}))
		case *scenarios.Pipe:
			if op.Write {
				out = append(out, sched.PipeWrite(op.Name, int(op.Bytes)))
			} else {
				out = append(out, sched.PipeRead(op.Name, int(op.Bytes)))
			}
		case *scenarios.Futex:
			if op.Wake {
				out = append(out, sched.FutexWake(op.Name, int(op.N)))
			} else {
				out = append(out, sched.FutexWait(op.Name))
			}
		case *scenarios.PerfOp:
			if fn := perfOps[op]; fn != nil {
				out = append(out, sched.CallAnnotated(fn)) // its user code annotated (footprint_perfops.go)
			}
		case *scenarios.Access:
			if fn := perfOps[op]; fn != nil {
				out = append(out, sched.Call(fn))
			}
		}
	}
	return out
}

// What glibc's sigaction() passes: sa_handler (an address in the
// program's text; the handler's body is empty), sa_flags SA_RESTORER and
// sa_restorer (__restore_rt).
const (
	handlerAddr  = 0x401136
	saRestorer   = 0x04000000 // SA_RESTORER
	restorerAddr = 0x7f0000042520
)
