package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// ipiCost is how long the caller spins between looks at an IPI it waits for.
const ipiCost = 100 * sim.Nanosecond

// IPIName is the name of the cross-CPU function call interrupt: what a
// scenario's "ipi cpuN at LABEL" delivers.
const IPIName = "call_function_single"

// smpCallFunctionSingle runs fn on CPU target with irqs off and waits for it:
// locally with irqs disabled, or through an IPI that the target takes where
// its irqs are on, the caller spinning meanwhile. It returns -ENXIO for a CPU
// that does not exist.
// kernel/smp.c: smp_call_function_single(wait=1)
func (k *Kernel) smpCallFunctionSingle(t *sched.Task, target int, fn func(c *cpu.CPU)) error {
	return k.smpCallWith(t, target, fn, csdCall{})
}

// smpCallWith is smpCallFunctionSingle for a call whose annotations how
// tells (footprint_funccall.go): unannotated parts are marked.
func (k *Kernel) smpCallWith(t *sched.Task, target int, fn func(c *cpu.CPU), how csdCall) error {
	if target < 0 || target >= len(k.M.CPUs) || !k.S.CPUOnline(target) {
		k.markCSDDone(t.CPU(), how) // the return into the caller, as after a call
		return uapi.ENXIO           // "if (cpu >= nr_cpu_ids || !cpu_online(cpu)) err = -ENXIO"
	}
	c := t.CPU()
	if target == c.ID {
		f := c.LocalIrqSave()
		k.markRemoteFn(c, how) // run here, in the caller's fragment
		fn(c)
		c.LocalIrqRestore(f)
		k.markCSDDone(c, how)
		return nil
	}
	done := false
	var csd cpu.SyncClock // csd->flags, for the data-race oracle
	k.keyCSD(&csd, t)     // its stable key (footprint_key.go)
	k.M.CPUs[target].RaiseIRQ(cpu.Interrupt{Name: IPIName, Fn: func(rc *cpu.CPU) {
		k.stats.ipis++
		k.markRemoteFn(rc, how)
		fn(rc)
		rc.Release(&csd) // csd_unlock(): smp_store_release(&csd->flags, 0)
		done = true
	}})
	start := c.Now()
	for !done {
		t.Step("smp_call_function_single:wait")
		k.accessCSDWait(t.CPU(), &csd)
		if done {
			break
		}
		k.S.SpinRound(t, start, "smp_call_function_single:wait", func() string {
			return fmt.Sprintf("csd_lock_wait() in smp_call_function_single(): the IPI to cpu%d not handled yet: %s", target, k.S.CPUState(target))
		})
		t.Spend(ipiCost) // csd_lock_wait(): spin, taking our own interrupts
	}
	k.markCSDDone(t.CPU(), how)
	t.CPU().Acquire(&csd) // csd_lock_wait(): smp_cond_load_acquire()
	return nil
}

// remoteFunc is a remote_function_f: it runs with irqs off on the target CPU
// and returns the call's result (0 or a negative errno as uapi.Errno).
type remoteFunc func(c *cpu.CPU) error

// cpuFunctionCall runs fn on cpuID and returns its result, or -ENXIO when the
// CPU does not exist.
// kernel/events/core.c: cpu_function_call() -> remote_function()
func (k *Kernel) cpuFunctionCall(t *sched.Task, cpuID int, fn remoteFunc) error {
	return k.cpuFunctionCallWith(t, cpuID, fn, csdCall{})
}

// cpuFunctionCallWith is cpuFunctionCall with its annotations told (csdCall).
func (k *Kernel) cpuFunctionCallWith(t *sched.Task, cpuID int, fn remoteFunc, how csdCall) error {
	ret := error(uapi.ENXIO)
	if err := k.smpCallWith(t, cpuID, func(c *cpu.CPU) { ret = fn(c) }, how); err != nil {
		return err
	}
	return ret
}

// taskFunctionCall runs fn on the CPU p runs on, when p is running there:
// -EAGAIN (p moved before the IPI landed) retries, -ESRCH says p was not
// running, -ENXIO that task_cpu(p) is offline (p asleep since its CPU went
// down). With task-function-call=pre-6d6b8b9f4fce the -ENXIO is retried as
// -EAGAIN too: a loop no schedule ends while p sleeps.
// kernel/events/core.c: task_function_call() -> remote_function()
func (k *Kernel) taskFunctionCall(t *sched.Task, p *sched.Task, fn remoteFunc) error {
	return k.taskFunctionCallWith(t, p, fn, csdCall{})
}

// taskFunctionCallWith is taskFunctionCall with its annotations told
// (csdCall): how.ret is about task_function_call()'s own caller, which
// it returns into from a round that is not retried.
func (k *Kernel) taskFunctionCallWith(t *sched.Task, p *sched.Task, fn remoteFunc, how csdCall) error {
	start := k.now()
	var lastErr error // the round's smp_call_function_single() error, for the lockup report
	for {
		ret := error(uapi.EAGAIN)
		target := p.CPUID() // task_cpu(p)
		err := k.smpCallWith(t, target, func(c *cpu.CPU) {
			// remote_function(): "-EAGAIN" when task_cpu(p) is another CPU
			k.accessRemoteFunction(c, p, how)
			if p.CPUID() != c.ID {
				return
			}
			ret = uapi.ESRCH // "No such (running) process"
			if sched.TaskOf(c.Curr()) != p {
				return
			}
			ret = fn(c)
		}, csdCall{fn: how.fn, ret: true}) // its own code to the retry's step point is annotated: the return is marked below
		lastErr = err
		if err == uapi.ENXIO {
			k.stats.funcCallENXIO++
		}
		switch {
		case err == nil:
			err = ret
		case k.taskFunctionCallRetriesErrors():
			// 2ed6edd33a21..6d6b8b9f4fce: "ret = !ret ? data.ret : -EAGAIN;"
			err = uapi.EAGAIN
			t.Spend(ipiCost) // smp_call_function_single()'s refusal and cond_resched(): the round takes the CPU
		}
		if err != uapi.EAGAIN {
			k.markReturn(t, how, "task_function_call's caller")
			return err
		}
		t.Step("task_function_call:retry") // cond_resched()
		k.S.SpinRound(t, start, "task_function_call:retry", func() string {
			if lastErr != nil {
				return fmt.Sprintf("task_function_call() on %s: smp_call_function_single(cpu%d) fails with -%s (task_cpu(%s) is offline: %s) "+
					"and task-function-call=pre-6d6b8b9f4fce retries it as -EAGAIN on every round",
					p, target, errnoName(lastErr), p, k.taskWhere(p))
			}
			return fmt.Sprintf("task_function_call() on %s: the task was not on the CPU the IPI reached (-EAGAIN) on every round since %s: %s", p, start, k.S.CPUState(p.CPUID()))
		})
	}
}

// eventFunc is the function event_function_call() runs with the context
// locked on the CPU where it is active (or locally when it is not).
type eventFunc func(c *cpu.CPU, e *Event, ctx *Context)

// eventFunction is the IPI side of event_function_call(): it checks that the
// context it was sent for is still the one here.
// kernel/events/core.c: event_function()
func (k *Kernel) eventFunction(c *cpu.CPU, e *Event, fn eventFunc) error {
	e.checkLive("event_function")
	k.accessEventFunction(c, e)
	ctx := e.ctx
	if ctx.task != nil && sched.TaskOf(c.Curr()) != ctx.task {
		return uapi.ESRCH // "double check we hit the task we set out to hit"
	}
	fn(c, e, ctx)
	return nil
}

// eventFunctionCall runs fn for e where its context lives: on the event's
// CPU for a CPU event (cpu_function_call); for a task event on the CPU
// running the task (task_function_call, retried when it moved) or, when the
// task is not running, right here under ctx->lock with the context inactive;
// nothing when the task has exited (TASK_TOMBSTONE).
// kernel/events/core.c: event_function_call()
func (k *Kernel) eventFunctionCall(t *sched.Task, e *Event, fn eventFunc) {
	k.eventFunctionCallWith(t, e, fn, csdCall{})
}

// eventFunctionCallWith is eventFunctionCall with its annotations told
// (csdCall): how.fn says fn's code up to its first step point or return
// is annotated; how.ret is about event_function_call()'s caller.
func (k *Kernel) eventFunctionCallWith(t *sched.Task, e *Event, fn eventFunc, how csdCall) {
	ctx := e.ctx
	t.CPU().Access(ctx, "ctx->task", cpu.MarkedRead, "event_function_call") // core.c: event_function_call(): struct task_struct *task = READ_ONCE(ctx->task)
	if ctx.task == nil {
		_ = k.cpuFunctionCallWith(t, e.cpu, func(c *cpu.CPU) error { return k.eventFunction(c, e, fn) }, how)
		return
	}
	if ctx.dead {
		return // TASK_TOMBSTONE
	}
	start := k.now()
	for {
		round := k.now()
		err := k.taskFunctionCallWith(t, ctx.task, func(c *cpu.CPU) error { return k.eventFunction(c, e, fn) }, csdCall{fn: how.fn, ret: true})
		if err == nil {
			k.markReturn(t, how, "event_function_call's caller")
			return
		}
		// Not running: lock the context here (raw_spin_lock_irq(&ctx->lock));
		// if it became active meanwhile, try again.
		c := t.CPU()
		f := c.LocalIrqSave()
		k.ctxLock(c, ctx)
		c.Step("event_function_call:ctx-locked")
		if ctx.dead {
			k.ctxUnlock(c, ctx)
			c.LocalIrqRestore(f)
			return
		}
		if ctx.isActive != 0 {
			active := ctx.isActive
			k.ctxUnlock(c, ctx)
			c.LocalIrqRestore(f)
			k.retryRound(t, "event_function_call:retry", start, round, func() string {
				return fmt.Sprintf("event_function_call() for event %d: task_function_call() on %s fails (-%s) while ctx->is_active is %#x under ctx->lock, "+
					"on every round since %s: %s; %s", e.id, ctx.task, errnoName(err), active, start, k.taskWhere(ctx.task), k.S.CPUState(ctx.task.CPUID()))
			})
			continue
		}
		fn(c, e, ctx)
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return
	}
}

// perfRemoveFromContext removes e from its context: right here under
// ctx->lock when the context is not active (which also works after the task
// exited), else where the context lives through event_function_call().
// kernel/events/core.c: perf_remove_from_context()
func (k *Kernel) perfRemoveFromContext(t *sched.Task, e *Event) {
	k.perfRemoveFromContextFn(t, e, k.__perfRemoveFromContextClose)
}

// perfRemoveFromContextFn is perf_remove_from_context() with the detach
// step given: __perf_remove_from_context() for a close, or with
// DETACH_EXIT's state (core_exec.go). fn must start with
// __perfRemoveFromContext (its step point first): the IPI's handler
// vouches for its code up to there (footprint_funccall.go).
func (k *Kernel) perfRemoveFromContextFn(t *sched.Task, e *Event, fn eventFunc) {
	k.perfRemoveFromContextWith(t, e, fn, csdCall{fn: true}) // fn starts with __perf_remove_from_context's step point
}

// perfRemoveFromContextRelease is perf_event_release_kernel()'s
// perf_remove_from_context(): its code after the return is annotated
// (footprint_release.go), so the calls' returns are not marked.
func (k *Kernel) perfRemoveFromContextRelease(t *sched.Task, e *Event) {
	k.perfRemoveFromContextWith(t, e, k.__perfRemoveFromContextRelease, csdCall{fn: true, ret: true})
}

// perfRemoveFromContextWith is perf_remove_from_context() with the
// event_function_call()'s annotations told (csdCall).
func (k *Kernel) perfRemoveFromContextWith(t *sched.Task, e *Event, fn eventFunc, how csdCall) {
	ctx := e.ctx
	c := t.CPU()
	f := c.LocalIrqSave()
	k.ctxLock(c, ctx)
	k.accessCtx(c, ctx, "ctx->is_active", cpu.PlainRead, "perf_remove_from_context") // kernel/events/core.c: perf_remove_from_context(): if (!ctx->is_active)
	if ctx.isActive == 0 {
		c.Step("perf_remove_from_context:inactive")
		fn(c, e, ctx)
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return
	}
	k.ctxUnlock(c, ctx)
	c.LocalIrqRestore(f)
	k.eventFunctionCallWith(t, e, fn, how)
}

// perfInstallInContext puts a new event into its context: without an IPI
// for a disabled event joining a populated context, else on the CPU (CPU
// event) or where the task runs, or here when it does not run.
// kernel/events/core.c: perf_install_in_context()
func (k *Kernel) perfInstallInContext(t *sched.Task, ctx *Context, e *Event, cpuID int) {
	k.accessInstall(t.CPU(), e, ctx) // footprint_open.go
	e.ctx = ctx                      // smp_store_release(&event->ctx, ctx)
	if e.state == StateOff && len(ctx.events) > 0 && e.cgrp == nil {
		// "perf_event_attr::disabled events will not run and can be
		// initialized without IPI."
		c := t.CPU()
		f := c.LocalIrqSave()
		k.ctxLock(c, ctx)
		k.accessCtxTask(c, ctx, "perf_install_in_context")
		if !ctx.dead {
			k.accessAddEventToCtx(c, e, ctx)
			ctx.addEventToCtx(c, e)
		}
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return
	}
	if ctx.task == nil {
		k.accessCPUOnline(t.CPU(), "cpu_function_call")
		_ = k.cpuFunctionCallWith(t, cpuID, func(c *cpu.CPU) error { return k.__perfInstallInContext(c, e, ctx) }, csdCall{fn: true, ret: true}) // its step point first; the return into perf_event_open() annotated
		return
	}
	k.accessCtxTask(t.CPU(), ctx, "perf_install_in_context")
	if ctx.dead {
		return
	}
	start := k.now()
	for {
		round := k.now()
		k.accessTaskCurr(t.CPU(), ctx.task, "task_function_call") // task_cpu(p), the target of the call
		k.accessCPUOnline(t.CPU(), "task_function_call")
		err := k.taskFunctionCallWith(t, ctx.task, func(c *cpu.CPU) error { return k.__perfInstallInContext(c, e, ctx) }, csdCall{fn: true, ret: true})
		if err == nil {
			return // into perf_event_open(), annotated (footprint_open.go)
		}
		c := t.CPU()
		f := c.LocalIrqSave()
		k.ctxLock(c, ctx)
		c.Step("perf_install_in_context:ctx-locked")
		k.accessCtxTask(c, ctx, "perf_install_in_context")
		if ctx.dead {
			k.ctxUnlock(c, ctx)
			c.LocalIrqRestore(f)
			return
		}
		// "If the task is not running, ctx->lock will avoid it becoming so,
		// thus we can safely install the event."
		k.accessTaskCurr(c, ctx.task, "perf_install_in_context")
		if ctx.task.CPU() != nil {
			k.ctxUnlock(c, ctx)
			c.LocalIrqRestore(f)
			k.retryRound(t, "perf_install_in_context:retry", start, round, func() string {
				return fmt.Sprintf("perf_install_in_context() of event %d: task_function_call() on %s fails (-%s) while task_curr() says it runs, "+
					"on every round since %s: %s; %s", e.id, ctx.task, errnoName(err), start, k.taskWhere(ctx.task), k.S.CPUState(ctx.task.CPUID()))
			})
			continue
		}
		k.accessAddEventToCtx(c, e, ctx)
		ctx.addEventToCtx(c, e)
		k.ctxUnlock(c, ctx)
		c.LocalIrqRestore(f)
		return
	}
}

// __perfInstallInContext adds the event on this CPU, rescheduling the
// context when it runs here.
// kernel/events/core.c: __perf_install_in_context()
func (k *Kernel) __perfInstallInContext(c *cpu.CPU, e *Event, ctx *Context) error {
	c.Step("__perf_install_in_context")
	cc := &k.cpuCtx[c.ID]
	reprogram := true
	k.accessCPUCtx(c, "cpuctx->task_ctx", cpu.MarkedRead, "__perf_install_in_context") // core.c: __perf_install_in_context(): task_ctx = cpuctx->task_ctx
	if ctx.task != nil {
		k.accessCtxTask(c, ctx, "__perf_install_in_context")
		reprogram = sched.TaskOf(c.Curr()) == ctx.task
		// "If the task is running, it must be running on this CPU,
		// otherwise we cannot reprogram things."
		k.accessTaskCurr(c, ctx.task, "__perf_install_in_context")
		if ctx.task.CPU() != nil && !reprogram {
			return uapi.ESRCH
		}
	}
	k.accessEvent(c, e, "event->state", cpu.MarkedRead, "__perf_install_in_context") // core.c: __perf_install_in_context(): if (event->state > PERF_EVENT_STATE_OFF && is_cgroup_event(event))
	if e.state > StateOff && e.cgrp != nil {
		markOpen(c, "perf_cgroup_from_task") // a cgroup event's match: nobody annotated it
		// "If the current cgroup doesn't match the event's cgroup, we
		// should not try to schedule it."
		reprogram = k.S.CgroupOf(sched.TaskOf(c.Curr())).IsDescendant(e.cgrp.cg)
	}
	if !reprogram {
		k.accessAddEventToCtx(c, e, ctx)
		ctx.addEventToCtx(c, e)
		return nil
	}
	taskCtx := cc.taskCtx
	if ctx.task != nil {
		taskCtx = ctx
	}
	// ctx_time_freeze(); add_event_to_ctx(); ctx_resched()
	k.accessCtx(c, ctx, "ctx->is_active", cpu.MarkedRead, "ctx_time_freeze") // core.c: ctx_time_freeze(): if (ctx->is_active & EVENT_TIME)
	if ctx.isActive&EVENT_TIME != 0 {
		k.accessTimeFreeze(c, ctx)
		ctx.updateContextTime(true)
		k.updateCgrpTimeFromCPUCtx(k.cpuCtxOf(ctx), false)
	}
	k.accessAddEventToCtx(c, e, ctx)
	ctx.addEventToCtx(c, e)
	if !eventFilterMatch(e, c) && ctx.task != nil {
		return nil
	}
	k.ctxReschedThen(c, taskCtx, getEventType(e), ctx.task == nil) // its return annotated: back here, then the IPI's return or perf_event_open()'s
	return nil
}

// perfEventStop stops an ACTIVE event on its CPU, restarting it if asked:
// cpu_function_call(event->oncpu, __perf_event_stop) until the IPI does not
// find the event gone to another CPU (-EAGAIN). Each retry is a round of a
// spinning loop (step point perf_event_stop:retry, a soft-lockup round). It
// returns nil for an event not ACTIVE, -ENXIO when event->oncpu is -1 or an
// offline CPU.
// kernel/events/core.c: perf_event_stop()
func (k *Kernel) perfEventStop(t *sched.Task, e *Event, restart bool) error {
	start := k.now()
	for {
		if e.state != StateActive { // READ_ONCE(event->state)
			return nil
		}
		// "if the event goes inactive here (event->oncpu==-1), there's
		// nothing more to do; fall through with ret==-ENXIO."
		where := e.oncpu // READ_ONCE(event->oncpu)
		round := k.now()
		now := -1 // where the IPI found it, for the report
		err := k.cpuFunctionCall(t, where, func(c *cpu.CPU) error {
			now = e.oncpu
			return k.__perfEventStop(c, e, restart)
		})
		if err != uapi.EAGAIN {
			return err
		}
		k.stats.stopRetries++
		k.retryRound(t, "perf_event_stop:retry", start, round, func() string {
			return fmt.Sprintf("perf_event_stop() of event %d: __perf_event_stop() on cpu%d found it ACTIVE on cpu%d (-EAGAIN), "+
				"on every round since %s: %s", e.id, where, now, start, k.S.CPUState(now))
		})
	}
}

// __perfEventStop is the IPI side of perf_event_stop(): on the CPU it was
// sent to, with irqs off, nothing for an event no longer ACTIVE, -EAGAIN for
// one ACTIVE on another CPU (it moved after the caller read event->oncpu),
// else pmu->stop(PERF_EF_UPDATE) and, to restart, pmu->start(0).
// kernel/events/core.c: __perf_event_stop()
func (k *Kernel) __perfEventStop(c *cpu.CPU, e *Event, restart bool) error {
	if e.state != StateActive { // "if it's already INACTIVE, do nothing"
		return nil
	}
	if e.oncpu != c.ID { // "lest we try to stop another CPU's event"
		return uapi.EAGAIN
	}
	e.pmu.Stop(c, e, PERF_EF_UPDATE)
	if restart {
		e.pmu.Start(c, e, 0)
	}
	return nil
}

func init() {
	RegisterObservable("funccall.stop-eagain", "perf_event_stop() rounds whose IPI found the event ACTIVE on another CPU (__perf_event_stop(): -EAGAIN, "+
		"it moved after the caller read event->oncpu) and were retried (step point perf_event_stop:retry)",
		func(k *Kernel) int64 { return int64(k.stats.stopRetries) })
}

// retryRound is the "goto again" of event_function_call() and
// perf_install_in_context() and the -EAGAIN loop of perf_event_stop(): the
// retry's step point, a round of the loop for the soft-lockup watchdog (what
// says what it waits for), and, for a round that passed no virtual time (a
// local call, or the IPI taken at the same instant), the round trip it costs
// in the kernel (ctx->lock, the cross-call), so that a loop that never ends
// reaches the livelock bound.
func (k *Kernel) retryRound(t *sched.Task, label string, start, round sim.Time, what func() string) {
	t.Step(label)
	k.S.SpinRound(t, start, label, what)
	if k.now() == round {
		t.Spend(spinCost)
	}
}

// taskWhere says where p is, for a lockup report: running on a CPU, or
// asleep (and on what) with the CPU it last ran on.
func (k *Kernel) taskWhere(p *sched.Task) string {
	if c := p.CPU(); c != nil {
		return fmt.Sprintf("%s runs on cpu%d", p, c.ID)
	}
	what := k.S.WaitingOn(p)
	switch {
	case p.State == sched.Dead:
		what = "exited"
	case what == "" && p.State == sched.Runnable:
		what = "runnable"
	case what == "":
		what = "asleep"
	default:
		what = "asleep on " + what
	}
	return fmt.Sprintf("%s is %s, last on cpu%d", p, what, p.CPUID())
}

// errnoName is the symbolic name of an errno error ("ENXIO").
func errnoName(err error) string {
	if e, ok := err.(uapi.Errno); ok {
		return e.Name()
	}
	return err.Error()
}
