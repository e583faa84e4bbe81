package pmu

import "perfsim/sim"

// Between 2ed6edd33a21 (v5.8, "perf: Add cond_resched() to
// task_function_call()") and 6d6b8b9f4fce (v5.9, "perf: Fix
// task_function_call() error handling") task_function_call() folded every
// error of smp_call_function_single() into -EAGAIN:
//
//	ret = !ret ? data.ret : -EAGAIN;
//
// and so retried it. smp_call_function_single() returns -ENXIO for a CPU
// that is not online, and a task asleep keeps the task_cpu() of the CPU it
// last ran on when that CPU goes offline (only queued tasks are pushed away):
// an event_function_call() or perf_install_in_context() aimed at such a
// task went round task_function_call()'s loop forever (reported by Srikar
// Dronamraju: "perf stat -a --per-thread && (offline a CPU)", the call
// "hung and increases CPU usage"). Today -ENXIO is returned, and both
// callers fall back to their local path under ctx->lock (the context is
// inactive: the task does not run).

// taskFunctionCallKnob picks task_function_call()'s error handling.
var taskFunctionCallKnob = sim.KnobSpec{
	Name:    "task-function-call",
	Values:  []string{"today", "pre-6d6b8b9f4fce"},
	Implies: map[string][]string{"pre-6d6b8b9f4fce": closeFputPreV66}, // v5.9
	Help: "task_function_call()'s loop around smp_call_function_single(task_cpu(p)): today only remote_function()'s -EAGAIN (the task " +
		"left that CPU before the IPI ran) is retried; an error of the call itself (-ENXIO: task_cpu(p) is offline, as it stays for a task " +
		"asleep when its CPU went down) is returned, and event_function_call() / perf_install_in_context() go on under ctx->lock here; " +
		"pre-6d6b8b9f4fce (2ed6edd33a21's 'ret = !ret ? data.ret : -EAGAIN'): every error becomes -EAGAIN and is retried, so a call aimed " +
		"at a task asleep on an offline CPU spins in task_function_call() forever (the soft-lockup invariant)",
	Source: "6d6b8b9f4fce perf: Fix task_function_call() error handling (Kajol Jain, v5.9; reported by Srikar Dronamraju; Fixes " +
		"2ed6edd33a21 perf: Add cond_resched() to task_function_call(), Barret Rhoden, v5.8, syzbot+bb4935a5c09b5ff79940)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, taskFunctionCallKnob)
	RegisterObservable("funccall.enxio", "task_function_call() rounds whose smp_call_function_single(task_cpu(p)) was refused with -ENXIO: the task asleep on an offline CPU "+
		"(returned today; retried as -EAGAIN with task-function-call=pre-6d6b8b9f4fce)",
		func(k *Kernel) int64 { return int64(k.stats.funcCallENXIO) })
}

// taskFunctionCallRetriesErrors reports task-function-call=pre-6d6b8b9f4fce:
// an smp_call_function_single() error is retried as -EAGAIN.
func (k *Kernel) taskFunctionCallRetriesErrors() bool {
	return k.KnobIs(taskFunctionCallKnob.Name, "pre-6d6b8b9f4fce")
}
