package runner

import (
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// taskMask returns the CPUs a task may start on (0: any).
func taskMask(t *scenarios.Task) sched.CPUMask {
	if t.Affinity == nil {
		return 0
	}
	return sched.MaskOf(t.Affinity.CPUs...)
}

// taskOps turns a task's program into scheduler operations. Nice is not modelled
// by the scheduler yet and is ignored.
func taskOps(ops []scenarios.Op) []sched.Op {
	out := make([]sched.Op, 0, len(ops))
	for _, op := range ops {
		switch op := op.(type) {
		case *scenarios.Compute:
			out = append(out, sched.Compute(sim.Duration(op.Dur)))
		case *scenarios.Syscall:
			out = append(out, sched.SyscallFor(op.Name, sim.Duration(op.Dur)))
		case *scenarios.Sleep:
			out = append(out, sched.Sleep(sim.Duration(op.Dur)))
		case *scenarios.Repeat:
			out = append(out, sched.Loop(int(op.Count), taskOps(op.Body)...))
		case *scenarios.Stack:
			frames := append([]string(nil), op.Frames...)
			if op.Kernel {
				out = append(out, sched.Call(func(t *sched.Task) { t.KernelStack = frames }))
			} else {
				out = append(out, sched.UserStack(frames...))
			}
		case *scenarios.Migrate:
			out = append(out, sched.Migrate(op.CPU))
		case *scenarios.Pin:
			out = append(out, sched.Affinity(sched.MaskOf(op.CPUs.CPUs...)))
		case *scenarios.Exit:
			out = append(out, sched.Exit())
		}
	}
	return out
}
