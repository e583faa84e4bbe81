package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// eventLife is the part of struct perf_event that keeps it alive: its
// refcount, the children inherited from it, and the RCU-deferred free.
type eventLife struct {
	refcount   int64    // atomic_long_t refcount: the file, plus every pending user
	freeQueued bool     // __free_event() ran: call_rcu(&event->rcu_head, free_event_rcu) is queued
	freedAt    sim.Time // when its grace period ends and free_event_rcu() frees the memory

	disableIrqQueued bool // event->pending_disable_irq queued (pending.go)

	pendingWork uint32 // event->pending_work: perf_pending_task queued (sigtrap.go)
	pendingAddr uint64 // event->pending_addr
	pendingRef  bool   // the queued perf_pending_task holds a reference (pending-task-ref=today)
	// the task the perf_pending_task work is queued on, and
	// event->pending_work_wait (pending-task-sync=pre-56799bc03565, sigtrap_sync.go)
	pendingTask     *sched.Task
	pendingWorkWait sched.RCUWait

	targetRef bool // perf_event_alloc()'s get_task_struct() of event->hw.target, not put yet (epc_life.go)

	get, put lifePoint // the last reference taken and dropped (lifetime.go's reports)
	refused  lifePoint // where free_event() found a refcount other than 1 and leaked it
}

// ctxMutex is ctx->mutex (perf_event_ctx_lock()).
func (k *Kernel) ctxMutex(ctx *Context) *sched.Mutex {
	if k.ctxMutexes == nil {
		k.ctxMutexes = map[*Context]*sched.Mutex{}
	}
	m := k.ctxMutexes[ctx]
	if m == nil {
		// A CPU context's mutex is its own lockdep class (perf_event_init_all_cpus():
		// lockdep_set_class(&cpuctx->ctx.mutex, &cpuctx_mutex)).
		name := "ctx->mutex"
		if ctx.task == nil {
			name = "cpuctx_mutex"
		}
		m = &sched.Mutex{Name: name}
		m.SetKey(ctx, "ctx->mutex")
		k.ctxMutexes[ctx] = m
	}
	return m
}

// rcuGracePeriod is how long after call_rcu() its callback may run: the
// grace period, modelled as a later point in time. It is evaluated lazily
// (no timer keeps the machine running for it): memory whose grace period has
// ended is freed memory.
const rcuGracePeriod = 200 * sim.Microsecond

// checkLive is what KASAN says when freed event memory is touched: a model
// oops naming where.
func (e *Event) checkLive(where string) {
	if e.life.isFreed(e.k.now()) {
		e.k.eventUAF(e, where)
	}
}

// Freed reports whether free_event_rcu() ran for the event.
func (e *Event) Freed() bool { return e.life.isFreed(e.k.now()) }

func (l *eventLife) isFreed(now sim.Time) bool { return l.freeQueued && now >= l.freedAt }

// perfEventReleaseKernel kills the event: removes it from its context where
// the context lives (event_function_call), marks it DEAD, releases its
// children, then drops the file's reference; the last reference frees it.
// via says where it runs: as ____fput's task work, which returns into
// task_work_run() (annotated, sched/footprint_taskwork.go), in close(2)
// (fput_close_sync(): back into the syscall's return, annotated), or
// inside fput()'s caller (delayed_fput() of a task past exit_task_work()),
// whose code after it is marked (footprint_release.go).
// kernel/events/core.c: perf_event_release_kernel()
func (k *Kernel) perfEventReleaseKernel(t *sched.Task, e *Event, via releaseVia) {
	k.accessRelease(t, e, "event->ctx", cpu.PlainRead) // kernel/events/core.c: perf_event_release_kernel(): struct perf_event_context *ctx = event->ctx
	if e.ctx != nil {
		// perf_remove_from_owner(); ctx = perf_event_ctx_lock(event)
		mu, n := k.ctxMutexLocked(t, e.ctx)
		t.Step("perf_event_release_kernel:ctx-locked")
		k.accessRelease(t, e, "event->state", cpu.PlainRead) // kernel/events/core.c: perf_event_release_kernel(): if (event->state > PERF_EVENT_STATE_REVOKED)
		k.accessRelease(t, e, "event->ctx", cpu.PlainRead)   // kernel/events/core.c: perf_remove_from_context(): struct perf_event_context *ctx = event->ctx
		if e.state > StateRevoked {
			k.perfRemoveFromContextRelease(t, e)
		}
		k.accessRelease(t, e, "event->state", cpu.MarkedWrite) // kernel/events/core.c: __perf_remove_from_context(): DETACH_DEAD's state = PERF_EVENT_STATE_DEAD (or perf_event_release_kernel()'s, revoked)
		e.state = StateDead
		if e.parent == nil && e.Attr.Inherit && len(e.childList) == 0 {
			k.accessInheritOracle(t, e)
			e.inhAtRelease = &[2]int64{e.count + e.childCount, k.familyCount(e)} // the oracle's last look (inherit_observe.go)
		}
		k.unlockMutex(t, mu, e.ctx, "ctx->mutex", n) // perf_event_ctx_unlock()
		k.perfEventReleaseChildren(t, e)
	}
	k.stats.closes++
	k.accessPutEvent(t, e)
	k.releasePutting(e, true) // a free in it returns here (footprint_tp_destroy.go)
	k.putEvent(t, e)
	k.releasePutting(e, false)
	k.markReleaseReturn(t, via)
}

// perfEventReleaseChildren removes and puts every event inherited from e,
// each under its own context's mutex, restarting after each one as the
// kernel does (child_mutex nests inside ctx->mutex). The first look at the
// child list is annotated; a child's release is marked (accessReleaseChildList).
// kernel/events/core.c: perf_event_release_kernel() "again:" loop over event->child_list
func (k *Kernel) perfEventReleaseChildren(t *sched.Task, e *Event) {
	for {
		held := k.lockMutex(t, &e.childMutex, e, "event->child_mutex", 0)
		k.accessReleaseChildList(t, e)
		if len(e.childList) == 0 {
			k.unlockMutex(t, &e.childMutex, e, "event->child_mutex", held)
			return
		}
		child := e.childList[0]
		ctx := child.ctx
		// "Since the event cannot get freed while we hold the child_mutex,
		// the context must also exist and have a !0 reference count."
		k.getCtx(ctx, "perf_event_release_kernel") // get_ctx(ctx)
		k.unlockMutex(t, &e.childMutex, e, "event->child_mutex", held)
		t.Step("perf_event_release_kernel:ctx-ref")
		mu := k.ctxMutex(ctx)
		k.S.MutexLock(t, mu)
		k.S.MutexLock(t, &e.childMutex)
		if len(e.childList) > 0 && e.childList[0] == child {
			k.perfRemoveFromContext(t, child) // DETACH_GROUP | DETACH_CHILD
			child.state = StateDead
			e.childList = e.childList[1:]
			if k.releaseChildFreeOld() {
				// before 82d94856fa22: free_event(child) under ctx->mutex and child_mutex
				k.glob.freedLocked++
				k.putEvent(t, child)
				child = nil
			}
		} else {
			child = nil
		}
		k.S.MutexUnlock(t, &e.childMutex)
		k.S.MutexUnlock(t, mu)
		if child != nil {
			t.Step("perf_event_release_kernel:child-detached")
			k.releaseChild(t, child) // put_event(child): last reference unless ->pending_task work is pending
		}
		k.putCtx(ctx, "perf_event_release_kernel") // put_ctx(ctx): wakes a perf_event_free_task() waiting on a dead context
		if child != nil && k.KnobIs(freeTaskWaitKnob.Name, "pre-74751ef5c191") {
			// before 74751ef5c191 the only wake: after free_event(child) of a
			// child it stole, "smp_mb(); wake_up_var(var);"
			k.wakeUpVarCtx(ctx)
		}
	}
}

// getEvent takes a reference for a user that may outlive the file
// (perf_pending_task, the mmap'ed rb's users): atomic_long_inc_not_zero().
func (e *Event) getEvent() bool {
	e.checkLive("atomic_long_inc_not_zero")
	if e.life.refcount <= 0 {
		return false
	}
	e.life.refcount++
	if e.k.lifeOn() {
		e.k.mark(&e.life.get, "atomic_long_inc_not_zero(&event->refcount)")
	}
	return true
}

// putEvent drops a reference; the last one frees the event, then drops the
// reference the event held on its parent.
// kernel/events/core.c: put_event()
func (k *Kernel) putEvent(t *sched.Task, e *Event) {
	e.checkLive("put_event")
	if e.life.refcount <= 0 {
		k.eventUnderflow(e)
	}
	e.life.refcount--
	if k.lifeOn() {
		k.mark(&e.life.put, "put_event")
	}
	if e.life.refcount > 0 {
		return
	}
	parent := e.parent
	k.freeEvent(t, e)
	if parent != nil {
		k.putEvent(t, parent)
	}
}

// freeEvent waits for the event's irq_work, unaccounts it, detaches its
// buffer and its PMU state, and queues the memory's free after a grace
// period.
// kernel/events/core.c: _free_event() -> __free_event() -> call_rcu(free_event_rcu)
func (k *Kernel) freeEvent(t *sched.Task, e *Event) {
	k.accessFreeEvent(t, e) // footprint_release.go
	// irq_work_sync(&event->pending_irq): spin until a queued irq_work ran.
	start := k.now()
	for e.pendingIrqQueued || e.life.disableIrqQueued { // and irq_work_sync(&event->pending_disable_irq)
		t.Step("_free_event:irq_work_sync")
		if !e.pendingIrqQueued && !e.life.disableIrqQueued {
			break
		}
		k.S.SpinRound(t, start, "_free_event:irq_work_sync", func() string {
			return fmt.Sprintf("irq_work_sync() in _free_event(): event %d's irq_work (pending_irq %v, pending_disable_irq %v) still queued: it runs when its CPU takes the irq_work interrupt; %s",
				e.id, e.pendingIrqQueued, e.life.disableIrqQueued, k.S.CPUState(t.CPUID()))
		})
		t.Spend(ipiCost)
	}
	k.perfPendingTaskSync(t, e) // before 56799bc03565
	k.unaccountEvent(e)
	if e.rb != nil {
		// "Can happen when we close an event with re-directed output."
		n := k.lockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", 0)
		k.ringBufferAttach(e, nil) // its step point; its return into _free_event() marked
		k.unlockMutex(t, &e.mmapMutex, e, "event->mmap_mutex", n)
	}
	if e.attachCallchain {
		k.putCallchainBuffers(t) // __free_event(): put_callchain_buffers()
	}
	if e.tp != nil {
		k.perfTraceDestroy(t, e, true) // event->destroy() = tp_perf_event_destroy()
	}
	if e.hw.timer != nil {
		e.hw.timer.Cancel()
	}
	k.pmuDestroy(e) // event->destroy()
	k.perfDetachCgroup(e)
	k.perfEventPutTarget(e)              // __free_event(): put_task_struct(event->hw.target)
	k.putPMUCtx(e.pmuCtx, "_free_event") // __free_event(): put_pmu_ctx(event->pmu_ctx), before put_ctx()
	k.putCtx(e.ctx, "_free_event")       // __free_event(): put_ctx(event->ctx)
	e.state = StateDead
	if k.lifeOn() && e.life.put.where == "" {
		k.mark(&e.life.put, "_free_event") // freed without a put (free_event() of a never-published event)
	}
	// call_rcu(&event->rcu_head, free_event_rcu)
	e.life.freeQueued = true
	e.life.freedAt = k.now() + sim.Time(rcuGracePeriod)
}

// pmuDestroy is event->destroy() for PMUs that hold per-event resources.
func (k *Kernel) pmuDestroy(e *Event) {
	if d, ok := e.pmu.(interface{ Destroy(e *Event) }); ok {
		d.Destroy(e)
	}
}
