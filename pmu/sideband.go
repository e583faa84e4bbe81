package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
)

// The side-band records the kernel writes for the tool's bookkeeping: the
// COMM of an exec or prctl and the EXIT of a task, to every event that asked
// for them (attr.comm, attr.task...) and can see the task. MMAP/MMAP2 and
// the exec's effects are in sideband_mm.go.

// perfIterateSB calls fn for each event that hears side-band records on c:
// with taskCtx, only the events of that context (a task's EXIT); else the
// CPU's events (the per-CPU pmu_sb_events list holds the events of no task),
// then the current task's. Only INACTIVE or ACTIVE events that match c.
// kernel/events/core.c: perf_iterate_sb() -> perf_iterate_sb_cpu(), perf_iterate_ctx()
func (k *Kernel) perfIterateSB(c *cpu.CPU, taskCtx *Context, fn func(e *Event)) {
	fp := k.M.FootprintListening()
	iter := func(ctx *Context) {
		for _, e := range ctx.events {
			if fp {
				k.accessSBList(c, ctx) // footprint_sideband.go: each step of the walk, a record's fragment goes on from it
				k.accessSBMatch(c, e)
			}
			if e.state < StateInactive || !eventFilterMatch(e, c) {
				continue
			}
			fn(e)
		}
		if fp {
			k.accessSBList(c, ctx) // the walk's end
		}
	}
	if taskCtx != nil {
		iter(taskCtx)
		return
	}
	iter(&k.cpuCtx[c.ID].ctx)
	if t := sched.TaskOf(c.Curr()); t != nil {
		ctx := k.taskCtx[t]
		k.accessTaskCtxp(c, t, ctx, sbFn) // core.c: perf_iterate_sb(): ctx = rcu_dereference(current->perf_event_ctxp)
		if ctx != nil && !ctx.dead {
			iter(ctx)
		}
	}
}

// perfEventComm writes PERF_RECORD_COMM {pid, tid, comm} to every event with
// attr.comm that hears t's side band.
// kernel/events/core.c: perf_event_comm() -> perf_event_comm_event() -> perf_event_comm_output()
func (k *Kernel) perfEventComm(t *sched.Task, exec bool) {
	c := t.CPU()
	r := &rb.Comm{Pid: uint32(t.PID), Tid: uint32(t.TID), Comm: t.Comm, Exec: exec}
	fp := k.M.FootprintListening()
	wrote := false
	k.perfIterateSB(c, nil, func(e *Event) {
		if fp {
			k.accessSBOutput(c, e.outputEvent())
		}
		if oe := e.outputEvent(); e.Attr.Comm && oe.rb != nil { // perf_event_comm_match()
			wrote = true
			_ = rb.PerfOutputSidebandAudited(c, oe.rb, oe, r, k.sidebandID(c, e), e.Attr.WriteBackward)
		}
	})
	if fp {
		caller := "perf_event_comm's caller"
		if exec {
			caller = "begin_new_exec" // fs/exec.c: begin_new_exec(): __set_task_comm(me, kbasename(bprm->filename), true), then the rest of the exec
		}
		k.sidebandReturn(c, wrote, k.commCallerAudited(t, exec), caller) // footprint_sideband.go
	}
}

// perfEventTaskExit writes PERF_RECORD_EXIT {pid, ppid, tid, ptid, time} to
// the events of ctx (taskCtx set: t's own, after they were scheduled out) or
// to the CPU's (taskCtx nil, once t's context is gone) that asked for task,
// comm or mmap records.
// kernel/events/core.c: perf_event_task() -> perf_event_task_output()
func (k *Kernel) perfEventTaskExit(c *cpu.CPU, t *sched.Task, taskCtx *Context) {
	k.perfEventTask(c, t, nil, taskCtx)
}

// perfEventTask writes PERF_RECORD_FORK (parent set: the task that forked t,
// current) or PERF_RECORD_EXIT. An EXIT's ppid and ptid are both the real
// parent's pid (perf_event_pid() twice); a FORK's are current's pid and tid.
// kernel/events/core.c: perf_event_task() -> perf_event_task_output()
func (k *Kernel) perfEventTask(c *cpu.CPU, t, parent *sched.Task, taskCtx *Context) {
	fp := k.M.FootprintListening()
	wrote := false
	k.perfIterateSB(c, taskCtx, func(e *Event) {
		a := &e.Attr
		oe := e.outputEvent()
		if fp {
			k.accessSBOutput(c, oe)
		}
		if !(a.Comm || a.Mmap || a.Mmap2 || a.MmapData || a.Task) || oe.rb == nil { // perf_event_task_match()
			return
		}
		r := &rb.Task{Pid: uint32(t.PID), Tid: uint32(t.TID), Time: uint64(k.now())} // perf_event_clock(event)
		if parent != nil {
			r.Fork, r.Ppid, r.Ptid = true, uint32(parent.PID), uint32(parent.TID)
		} else {
			r.Ppid, r.Ptid = uint32(t.PPID), uint32(t.PPID)
		}
		wrote = true
		_ = rb.PerfOutputSidebandAudited(c, oe.rb, oe, r, k.sidebandID(c, e), a.WriteBackward)
	})
	if fp {
		// Back into fork (copy_process()'s perf_event_fork()): nobody
		// annotated it. Or, the EXIT of the dead context's events
		// (taskCtx tombstoned), back into perf_event_exit_task_context():
		// the events' exits, the ctx->mutex unlock, the pin's put and the
		// CPU contexts' EXIT, each annotated or marked at its own call
		// (footprint_exit.go); or the CPU contexts' EXIT (parent and
		// taskCtx nil: TaskExit's, the last thing perf_event_exit_task()
		// does), back into do_exit() after its TaskExitHooks, which
		// sched/footprint_exit.go annotates (a later hook marked at its
		// own call). Both but in do_exit()'s old order (PerfExitLate),
		// whose code after perf_event_exit_task() nobody annotated.
		exitWalk := parent == nil && (taskCtx == nil || taskCtx.dead) && !k.S.Cfg.PerfExitLate
		k.sidebandReturn(c, wrote, exitWalk, "perf_event_task's caller") // footprint_sideband.go
	}
}

// perfEventSwitch writes a context switch to every event with
// attr.context_switch that hears the switch: PERF_RECORD_SWITCH for an event
// of a task, PERF_RECORD_SWITCH_CPU_WIDE with the other task's pid/tid for a
// CPU-wide one; out (PERF_RECORD_MISC_SWITCH_OUT, with _PREEMPT when task is
// still runnable) at sched-out, in at sched-in. task nil is the idle task.
// kernel/events/core.c: perf_event_switch() -> perf_event_switch_output()
func (k *Kernel) perfEventSwitch(c *cpu.CPU, task, nextPrev *sched.Task, in bool) {
	fp := k.M.FootprintListening()
	if fp && !in && task != nil {
		c.AccessMarkedOnly(task, "p->__state", cpu.MarkedRead, "perf_event_switch") // core.c: perf_event_switch(): if (!sched_in && task_is_runnable(task)) (the model's: the task's state, which a wakeup writes)
	}
	r := rb.Switch{Out: !in, Preempt: !in && task != nil && task.State == sched.Runnable}
	wrote := false
	k.perfIterateSB(c, nil, func(e *Event) {
		oe := e.outputEvent()
		if fp {
			k.accessSBOutput(c, oe)
		}
		if !e.Attr.ContextSwitch || oe.rb == nil { // perf_event_switch_match()
			return
		}
		rec := r
		if fp {
			k.accessSwitchMatch(c, e)
		}
		if e.ctx == nil || e.ctx.task == nil { // only CPU-wide events see next/prev
			rec.CPUWide = true
			if nextPrev != nil {
				rec.NextPrevPid, rec.NextPrevTid = uint32(nextPrev.PID), uint32(nextPrev.TID)
			}
		}
		wrote = true
		_ = rb.PerfOutputSidebandAudited(c, oe.rb, oe, &rec, k.sidebandID(c, e), e.Attr.WriteBackward)
	})
	if fp {
		// Back into perf_event_task_sched_out() or __perf_event_task_sched_in(),
		// whose rest footprint_sched.go annotates (the same path as with no
		// switch event) up to the switch's next step point; but the
		// sched-in of the idle task (no step point of its own) returns into
		// finish_task_switch() of a path nobody vouched for.
		k.sidebandReturn(c, wrote, !(in && task == nil), "perf_event_task_sched_in's caller (the idle task's)") // footprint_sideband.go
	}
}
