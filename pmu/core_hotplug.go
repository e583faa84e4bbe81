package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// perfGlobal holds the global locks of core.c and of the tracing core that
// perf takes, and the hotplug callbacks' counters.
type perfGlobal struct {
	pmusLock sched.Mutex // core.c: static DEFINE_MUTEX(pmus_lock)
	// eventMutex is kernel/trace/trace_events.c's event_mutex, taken by
	// perf_trace_init() and perf_trace_destroy(); tracepointsMutex is
	// kernel/tracepoint.c's tracepoints_mutex, taken by
	// tracepoint_probe_register() and _unregister().
	eventMutex, tracepointsMutex sched.Mutex

	exitRemoved uint64 // events __perf_event_exit_context() removed
	tpRegisters uint64 // tracepoint probes registered (static_key_enable())
	freedLocked uint64 // inherited events freed under ctx->mutex and child_mutex (knob)

	// releasePut holds the events whose put_event() of the file's
	// reference perf_event_release_kernel() is in: a free there returns
	// into the release's annotated code (footprint_tp_destroy.go).
	releasePut map[*Event]bool
	// openAudited holds the tasks in a perf_event_open() whose body is
	// annotated (footprint_open.go's openCPU): a tracepoint's
	// perf_trace_init() returns into it (footprint_tp_destroy.go).
	openAudited map[*sched.Task]bool
}

// releaseChildFreeKnob selects where perf_event_release_kernel() frees the
// inherited copies of the event it releases.
var releaseChildFreeKnob = sim.KnobSpec{
	Name:    "release-child-free",
	Values:  []string{"today", "pre-82d94856fa22"},
	Implies: map[string][]string{"pre-82d94856fa22": closeFputPreV66}, // v4.19
	Help: "perf_event_release_kernel(): today each inherited copy is removed under its ctx->mutex and the parent's child_mutex, " +
		"moved to a free_list and freed after both are dropped; pre-82d94856fa22 free_event(child) ran under both, so a " +
		"tracepoint copy's perf_trace_destroy() took event_mutex inside child_mutex and lockdep sees event_mutex -> " +
		"tracepoints_mutex -> cpu_hotplug_lock (perf_trace_init(), static_key_enable()) -> pmus_lock -> cpuctx_mutex " +
		"(perf_event_init_cpu()/perf_event_exit_cpu()) -> event->child_mutex (read() of a CPU event) -> event_mutex",
	Source:  "82d94856fa22 perf/core: Fix lock inversion between perf,trace,cpuhp (Peter Zijlstra, v4.19-rc1)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, releaseChildFreeKnob)
	RegisterStepHelp(map[string]string{
		"perf_event_exit_cpu_context:ctx-locked": "kernel/events/core.c: perf_event_exit_cpu_context(): CPU hotplug (cpu_hotplug_lock held for write) holds pmus_lock and the dying CPU's cpuctx mutex; the cross-call that removes its events is next",
		"__perf_event_exit_context":              "kernel/events/core.c: __perf_event_exit_context(): on the dying CPU with irqs off and ctx->lock held, before the context's time stops and each event is removed (DETACH_GROUP)",
		"perf_event_init_cpu:ctx-locked":         "kernel/events/core.c: perf_event_init_cpu(): CPU hotplug holds pmus_lock and the CPU's cpuctx mutex, about to set cpuctx->online = 1",
		"perf_trace_init:event_mutex":            "kernel/trace/trace_event_perf.c: perf_trace_init(): event_mutex held; the tracepoint's first perf user registers its probe (tracepoints_mutex, static_key_enable() -> cpus_read_lock()) next",
		"perf_trace_destroy:event_mutex":         "kernel/trace/trace_event_perf.c: perf_trace_destroy(): event_mutex held; the last perf user unregisters the probe (static_key_disable() -> cpus_read_lock()) next",
		"sched_cpu_deactivate":                   "kernel/sched/core.c: sched_cpu_deactivate(), in cpuhp/N on the CPU going down: it left cpu_active_mask and pushes its tasks away (balance_push); the AP teardown callbacks (perf_event_exit_cpu) are next",
		"sched_cpu_wait_empty":                   "kernel/sched/core.c: sched_cpu_wait_empty(), in cpuhp/N: the last task left the dying CPU; the control task parks cpuhp/N and runs take_cpu_down() in stop_machine next",
		"take_cpu_down":                          "kernel/cpu.c: take_cpu_down(): the dying CPU's stopper, irqs off, every other online CPU spinning in multi_cpu_stop() with irqs off; the CPU leaves cpu_online_mask, its timers move, its tick stops",
		"bringup_cpu":                            "kernel/cpu.c: bringup_cpu(): the CPU coming up is online again (after the PREPARE callbacks); its idle task unparks its stopper, then cpuhp/N starts the AP states and sched_cpu_activate() on it",
	})
	RegisterObservable("hotplug.offlines", "CPUs taken offline (cpu-offline actions that completed)",
		func(k *Kernel) int64 { o, _, _ := k.S.HotplugCounts(); return int64(o) })
	RegisterObservable("hotplug.onlines", "CPUs brought back online",
		func(k *Kernel) int64 { _, o, _ := k.S.HotplugCounts(); return int64(o) })
	RegisterObservable("hotplug.failed", "hotplug requests refused (cpu0 has no online file: -ENOENT; the last online CPU: -EBUSY)",
		func(k *Kernel) int64 { _, _, f := k.S.HotplugCounts(); return int64(f) })
	RegisterObservable("hotplug.events-removed", "events __perf_event_exit_context() removed from a dying CPU's context (state OFF, out of the context)",
		func(k *Kernel) int64 { return int64(k.glob.exitRemoved) })
	RegisterObservable("hotplug.cpus-online", "CPUs whose perf context is online (cpuctx->online)",
		func(k *Kernel) int64 {
			var n int64
			for i := range k.cpuCtx {
				if !k.cpuCtx[i].offline {
					n++
				}
			}
			return n
		})
	RegisterObservable("tracepoint.registers", "tracepoint probes perf registered (first perf user of a tracepoint: static_key_enable())",
		func(k *Kernel) int64 { return int64(k.glob.tpRegisters) })
	RegisterObservable("release.freed-under-locks", "inherited events perf_event_release_kernel() freed under ctx->mutex and child_mutex (release-child-free=pre-82d94856fa22)",
		func(k *Kernel) int64 { return int64(k.glob.freedLocked) })
}

// initHotplug names the global locks and registers perf's hotplug states:
// CPUHP_PERF_PREPARE ("perf:prepare") and CPUHP_AP_PERF_ONLINE
// ("perf:online"), both perf_event_init_cpu() / perf_event_exit_cpu().
// kernel/cpu.c: cpuhp_hp_states[CPUHP_PERF_PREPARE], [CPUHP_AP_PERF_ONLINE]
func (k *Kernel) initHotplug() {
	k.glob.pmusLock.Name = "pmus_lock"
	k.glob.eventMutex.Name = "event_mutex"
	k.glob.tracepointsMutex.Name = "tracepoints_mutex"
	k.glob.pmusLock.SetKey(nil, "pmus_lock")
	k.glob.eventMutex.SetKey(nil, "event_mutex")
	k.glob.tracepointsMutex.SetKey(nil, "tracepoints_mutex")
	k.S.CPUHPSetupState(sched.CPUHPState{Name: "perf:prepare", Startup: k.perfEventInitCPU, Teardown: k.perfEventExitCPU})
	k.S.CPUHPSetupState(sched.CPUHPState{Name: "perf:online", AP: true, Startup: k.perfEventInitCPU, Teardown: k.perfEventExitCPU})
}

// perfEventInitCPU marks the CPU's perf context online, under pmus_lock and
// the context's mutex (what perf_event_open() checks under that mutex).
// kernel/events/core.c: perf_event_init_cpu()
func (k *Kernel) perfEventInitCPU(t *sched.Task, n int) {
	k.S.MutexLock(t, &k.glob.pmusLock)
	ctx := &k.cpuCtx[n].ctx
	mu := k.ctxMutex(ctx)
	k.S.MutexLock(t, mu)
	t.Step("perf_event_init_cpu:ctx-locked")
	k.cpuCtx[n].offline = false // cpuctx->online = 1
	k.S.MutexUnlock(t, mu)
	k.S.MutexUnlock(t, &k.glob.pmusLock)
}

// perfEventExitCPU removes every event from the dying CPU's context, on that
// CPU (smp_call_function_single(), only when the context has events), and
// marks the context offline, under pmus_lock and the context's mutex. The
// removed events are OFF and out of the context: they do not come back
// when the CPU does (PERF_EVENT_IOC_ENABLE cannot reach them either: their
// cross-call finds no context to run in).
// kernel/events/core.c: perf_event_exit_cpu() -> perf_event_exit_cpu_context()
func (k *Kernel) perfEventExitCPU(t *sched.Task, n int) {
	k.S.MutexLock(t, &k.glob.pmusLock)
	ctx := &k.cpuCtx[n].ctx
	mu := k.ctxMutex(ctx)
	k.S.MutexLock(t, mu)
	t.Step("perf_event_exit_cpu_context:ctx-locked")
	if len(ctx.events) > 0 {
		_ = k.smpCallFunctionSingle(t, n, func(c *cpu.CPU) { k.__perfEventExitContext(c, ctx) })
	}
	k.cpuCtx[n].offline = true // cpuctx->online = 0
	k.S.MutexUnlock(t, mu)
	k.S.MutexUnlock(t, &k.glob.pmusLock)
}

// __perfEventExitContext runs on the dying CPU with irqs off: the context's
// time stops and each event is removed (DETACH_GROUP), which leaves it OFF;
// the emptied context is inactive.
// kernel/events/core.c: __perf_event_exit_context()
func (k *Kernel) __perfEventExitContext(c *cpu.CPU, ctx *Context) {
	k.ctxLock(c, ctx)
	c.Step("__perf_event_exit_context")
	k.ctxSchedOut(c, ctx, EVENT_TIME)
	returnUnaudited(c, "__perf_event_exit_context")
	for _, e := range append([]*Event(nil), ctx.events...) {
		k.__perfRemoveFromContext(c, e, ctx)
		k.glob.exitRemoved++
	}
	if len(ctx.events) == 0 {
		ctx.isActive = 0 // __perf_remove_from_context(): !ctx->nr_events && ctx->is_active
	}
	k.ctxUnlock(c, ctx)
}

// current is the task running on the CPU the engine runs (current), or nil
// outside a task's context.
func (k *Kernel) current() *sched.Task {
	c := k.curCPU()
	if c == nil || c.Context() != cpu.CtxTask {
		return nil
	}
	return sched.TaskOf(c.Curr())
}

// perfTraceInit attaches a tracepoint event under event_mutex; the first
// perf user of the tracepoint allocates its per-CPU event lists (and the
// machine's first, perf_trace_buf[]) and registers its probe
// (tracepoints_mutex), which enables the tracepoint's static key under
// cpu_hotplug_lock for read. An allocation failing (fault injection: site
// perf_trace_event_reg) is -ENOMEM before the probe: perf_trace_event_reg()
// drops the perf_refcount it took, and perf_tp_event_init() fails the
// event's perf_init_event() before it set event->destroy.
// kernel/trace/trace_event_perf.c: perf_trace_init() -> perf_trace_event_init() -> perf_trace_event_reg(); kernel/tracepoint.c: tracepoint_add_func() -> static_key_enable()
func (k *Kernel) perfTraceInit(s *tpSlot) error {
	t := k.current()
	if t == nil {
		s.users++
		if s.users == 1 {
			k.tp.totalRefCount++
		}
		return nil
	}
	n := k.lockGlobal(t, &k.glob.eventMutex, "perf_trace_init")
	t.Step("perf_trace_init:event_mutex")
	k.accessTpReg(t, s)
	err := k.perfTraceEventReg(t, s)
	k.unlockGlobal(t, &k.glob.eventMutex, "perf_trace_init", n)
	k.markTpInitReturn(t)
	return err
}

// perfTraceEventReg takes a perf_refcount of the tracepoint; the first
// takes its per-CPU hlist heads, then, when no tracepoint has a perf user
// (total_ref_count == 0), perf_trace_buf[], then registers the probe.
// Either allocation failing (site perf_trace_event_reg, its first and
// second call) takes the function's fail: path, which gives the reference
// back: "if (!--tp_event->perf_refcount)" the lists are freed (and "if
// (!total_ref_count)" the buffers).
// kernel/trace/trace_event_perf.c: perf_trace_event_reg()
func (k *Kernel) perfTraceEventReg(t *sched.Task, s *tpSlot) error {
	s.users++ // "if (tp_event->perf_refcount++ > 0) return 0;"
	if s.users > 1 {
		return nil
	}
	// "list = alloc_percpu(struct hlist_head); if (!list) goto fail;", then
	// for the machine's first "buf = (char __percpu *)alloc_percpu(perf_trace_t); if (!buf) goto fail;"
	if k.shouldFail(t, "perf_trace_event_reg") || k.tp.totalRefCount == 0 && k.shouldFail(t, "perf_trace_event_reg") {
		s.users-- // fail: "if (!--tp_event->perf_refcount) { free_percpu(tp_event->perf_events); ... }"
		return uapi.ENOMEM
	}
	k.tracepointProbe(t, s, true)
	k.glob.tpRegisters++
	k.tp.totalRefCount++
	return nil
}

// perfTraceDestroy detaches a tracepoint event under event_mutex; the last
// perf user unregisters the probe, disabling the static key under
// cpu_hotplug_lock. freeing says the caller is _free_event() (its
// event->destroy()), whose code after it is annotated
// (footprint_tp_destroy.go); another caller's is marked.
// kernel/trace/trace_event_perf.c: perf_trace_destroy() -> perf_trace_event_unreg(); kernel/tracepoint.c: tracepoint_remove_func() -> static_key_disable()
func (k *Kernel) perfTraceDestroy(t *sched.Task, e *Event, freeing bool) {
	if t == nil {
		e.tp.users--
		if e.tp.users == 0 {
			k.tp.totalRefCount--
		}
		return
	}
	n := k.lockGlobal(t, &k.glob.eventMutex, "perf_trace_destroy")
	t.Step("perf_trace_destroy:event_mutex")
	k.accessTpUnreg(t, e.tp)
	e.tp.users--
	if e.tp.users == 0 {
		k.tracepointProbe(t, e.tp, false)
		k.tp.totalRefCount-- // perf_trace_event_unreg(): "if (!--total_ref_count)" perf_trace_buf[] is freed
	}
	k.unlockGlobal(t, &k.glob.eventMutex, "perf_trace_destroy", n)
	k.accessTpDestroyReturn(t, e, freeing)
}

// tracepointProbe is tracepoint_probe_(un)register() flipping the
// tracepoint's static key: tracepoints_mutex, then cpus_read_lock() in
// static_key_enable() / static_key_disable().
// kernel/tracepoint.c: tracepoint_probe_register_prio(); kernel/jump_label.c: static_key_enable()
func (k *Kernel) tracepointProbe(t *sched.Task, s *tpSlot, reg bool) {
	fn, key := "tracepoint_probe_unregister", "static_key_disable"
	if reg {
		fn, key = "tracepoint_probe_register", "static_key_enable"
	}
	n := k.lockGlobal(t, &k.glob.tracepointsMutex, fn)
	k.accessTpProbe(t, s, fn)
	k.S.AccessCPUsReadLock(t, key)
	k.S.CPUsReadLock(t)
	k.S.AccessCPUsReadUnlock(t, key)
	k.S.CPUsReadUnlock(t)
	k.unlockGlobal(t, &k.glob.tracepointsMutex, fn, n)
}

// releaseChildFreeOld reports whether perf_event_release_kernel() frees the
// inherited copies under the locks, as before 82d94856fa22.
func (k *Kernel) releaseChildFreeOld() bool {
	return k.KnobIs("release-child-free", "pre-82d94856fa22")
}
