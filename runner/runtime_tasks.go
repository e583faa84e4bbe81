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
func taskOps(ops []scenarios.Op, tick func(), perfOps map[scenarios.Op]func(*sched.Task)) []sched.Op {
	out := make([]sched.Op, 0, len(ops))
	for _, op := range ops {
		switch op := op.(type) {
		case *scenarios.Compute:
			out = append(out, sched.Compute(clampDur(op.Dur)))
		case *scenarios.Syscall:
			out = append(out, sched.SyscallFor(op.Name, clampDur(op.Dur)))
		case *scenarios.Sleep:
			out = append(out, sched.Sleep(clampDur(op.Dur)))
		case *scenarios.Repeat:
			body := append([]sched.Op{sched.Call(func(*sched.Task) { tick() })}, taskOps(op.Body, tick, perfOps)...)
			out = append(out, sched.Loop(int(op.Count), body...))
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
		case *scenarios.PerfOp, *scenarios.Touch:
			if fn := perfOps[op]; fn != nil {
				out = append(out, sched.Call(fn))
			}
		}
	}
	return out
}
