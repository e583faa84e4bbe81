package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The footprint of a tracepoint event's destroy (core_hotplug.go:
// perfTraceDestroy), declared complete from its step point
// "perf_trace_destroy:event_mutex" up to the task's next:
//
//   - perf_trace_event_close() (TRACE_REG_PERF_CLOSE: nothing for the
//     syscall and sched tracepoints the model has), then
//     perf_trace_event_unreg()'s decrement of tp_event->perf_refcount,
//     which the tracepoints' readers look at (the SyscallHook's
//     accessSyscallTPs, the sched tracepoints' accessTpRegistered: the
//     enabled_perf_enter_syscalls bit and the static key it stands for).
//   - The last perf user: TRACE_REG_PERF_UNREGISTER's
//     tracepoint_probe_unregister() (tracepoints_mutex, the tracepoint's
//     funcs and static_key_disable() under cpus_read_lock(): a take of
//     either that sleeps is marked), then the per-CPU perf_events lists
//     freed (free_percpu(tp_event->perf_events): a write of every CPU's
//     list; the model keeps its lists, empty by then). The model has no
//     syscall_trace_lock (taken only under event_mutex) and frees no
//     perf_trace_buf (the rows another tracepoint's records use are its
//     own: traceBufKey).
//   - trace_event_put_ref() (a module reference: nothing the model has),
//     event_mutex released (a waiter woken is marked).
//   - The return: from _free_event() (freeing true) the rest of it after
//     event->destroy() (accessFreeEventTail: the hrtimer, a driver's
//     destroy, the cgroup, the target's put_task_struct(), the pmu_ctx's
//     and the context's puts; each last put, which frees, marked), then
//     put_event()'s parent put (marked) and its return into its caller:
//     into perf_event_release_kernel() (the put of the file's reference,
//     whose code after it is annotated: footprint_release.go) or, from
//     any other put_event() caller, marked. Another caller of
//     perf_trace_destroy() (perf_event_alloc()'s error path) is marked.
//
// TestTpDestroyFootprint pins the footprint; explore's
// TestWriteAuditExit checks the writes.
//
// "perf_trace_init:event_mutex" is the same code in reverse (core_hotplug.go:
// perfTraceInit): perf_trace_event_reg()'s increment of perf_refcount
// (the first user: the per-CPU lists allocated, the probe registered:
// tracepoints_mutex, static_key_enable() under cpus_read_lock()),
// event_mutex released, then the return into perf_event_open()'s body,
// which annotates itself when it is one whose paths were read
// (footprint_open.go: openCPU); from any other (an unannotated open,
// inherit_event()'s perf_event_alloc() in a fork) it is marked.
// TestTpInitFootprint pins it.
func init() {
	cpu.DeclareComplete("perf_trace_destroy:event_mutex", "perf_trace_init:event_mutex")
}

// globalMutexKey is a global mutex (event_mutex, tracepoints_mutex) as
// the model keeps it, its extent (explore's write audit); its SyncClock's
// takes and releases touch the mutex's name (SetKey with no owner).
type globalMutexKey struct{ m *sched.Mutex }

// FootprintKey implements cpu.FootprintKeyer: NAME (struct mutex), the
// model's mutex (its SyncClock's key is NAME).
func (k globalMutexKey) FootprintKey() string { return k.m.Name + " (struct mutex)" }

// FootprintExtent is where the model keeps the mutex.
func (k globalMutexKey) FootprintExtent() []any { return []any{k.m} }

// lockGlobal takes the global mutex mu, annotated: its owner's word (a
// take that finds it held sleeps: marked) and current's held locks. Its
// answer is unlockGlobal's n: the mutex's count of contended takes once
// held.
// kernel/locking/mutex.c: mutex_lock()
func (k *Kernel) lockGlobal(t *sched.Task, mu *sched.Mutex, fn string) int {
	if c := k.setupCPU(t); c != nil {
		accessMutexLock(c, t, mu, globalMutexKey{mu}, fn)
	}
	k.S.MutexLock(t, mu)
	return mu.Contended
}

// unlockGlobal releases mu, annotated; a take that found it held meanwhile
// queued a waiter, which the release wakes: marked.
// kernel/locking/mutex.c: mutex_unlock()
func (k *Kernel) unlockGlobal(t *sched.Task, mu *sched.Mutex, fn string, n int) {
	if c := k.setupCPU(t); c != nil {
		accessMutexUnlock(c, t, mu, globalMutexKey{mu}, fn, n)
	}
	k.S.MutexUnlock(t, mu)
}

// tpUsersKey is the model's count of a tracepoint's perf users (the
// slot's), the write audit's extent of a write of its perf_refcount,
// which is annotated on the tracepoint's own key (tpKey) beside it.
type tpUsersKey struct{ s *tpSlot }

// FootprintKey implements cpu.FootprintKeyer.
func (k tpUsersKey) FootprintKey() string {
	return tpKey{&k.s.info}.FootprintKey() + " (the model's count of users)"
}

// String is the key's identity (explore's TestFootprintKeysStable).
func (k tpUsersKey) String() string { return k.FootprintKey() }

// FootprintExtent is where the model counts the users.
func (k tpUsersKey) FootprintExtent() []any { return []any{&k.s.users} }

// totalRefCountKey is trace_event_perf.c's total_ref_count, the count of
// tracepoints with a perf user: the first registration and the last
// unregistration write it (and allocate or free perf_trace_buf[] with it),
// each under event_mutex.
type totalRefCountKey struct{ t *tpTable }

// FootprintKey implements cpu.FootprintKeyer.
func (totalRefCountKey) FootprintKey() string { return "total_ref_count" }

// String is the key's identity (explore's TestFootprintKeysStable).
func (k totalRefCountKey) String() string { return k.FootprintKey() }

// FootprintExtent is where the model counts them.
func (k totalRefCountKey) FootprintExtent() []any { return []any{&k.t.totalRefCount} }

// String is tpKey's identity (explore's TestFootprintKeysStable): the
// tracepoint, whichever copy of its catalogue entry names it (the
// catalogue's, the slot's).
func (k tpKey) String() string { return k.FootprintKey() }

// accessTpRefcount annotates a write of the tracepoint's perf_refcount:
// its key, and the model's count.
func (k *Kernel) accessTpRefcount(c *cpu.CPU, s *tpSlot, fn string) {
	c.AccessMarkedOnly(tpKey{&s.info}, "tp_event->perf_refcount", cpu.MarkedWrite, fn)
	c.AccessMarkedOnly(tpUsersKey{s}, "users", cpu.MarkedWrite, fn)
}

// accessTpUnreg annotates perf_trace_event_unreg()'s decrement of the
// tracepoint's perf_refcount (before the model's users--), and for the
// last user the per-CPU lists freed.
// kernel/trace/trace_event_perf.c: perf_trace_event_unreg()
func (k *Kernel) accessTpUnreg(t *sched.Task, s *tpSlot) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	k.accessTpRefcount(c, s, "perf_trace_event_unreg") // kernel/trace/trace_event_perf.c: perf_trace_event_unreg(): if (--tp_event->perf_refcount > 0) return
	if s.users > 1 {
		return
	}
	c.AccessMarkedOnly(totalRefCountKey{&k.tp}, "total_ref_count", cpu.MarkedWrite, "perf_trace_event_unreg") // kernel/trace/trace_event_perf.c: perf_trace_event_unreg(): if (!--total_ref_count) free_percpu(perf_trace_buf[i])
	for i := range s.perCPU {
		c.AccessMarkedOnly(tpCPUKey{s, i}, "tp_event->perf_events", cpu.MarkedWrite, "perf_trace_event_unreg") // kernel/trace/trace_event_perf.c: perf_trace_event_unreg(): free_percpu(tp_event->perf_events); tp_event->perf_events = NULL
	}
}

// accessTpProbe annotates tracepoint_probe_(un)register()'s change of the
// tracepoint's funcs and static key (which the tracepoint's readers see
// as its perf_refcount: the enabled bit the probe tests).
// kernel/tracepoint.c: tracepoint_remove_func(): rcu_assign_pointer(tp->funcs, tp_funcs); static_key_disable(&tp->key)
func (k *Kernel) accessTpProbe(t *sched.Task, s *tpSlot, fn string) {
	if c := k.setupCPU(t); c != nil {
		k.accessTpRefcount(c, s, fn) // kernel/tracepoint.c: tracepoint_add_func() / tracepoint_remove_func(): rcu_assign_pointer(tp->funcs, ...), static_key_enable() / static_key_disable(&tp->key)
	}
}

// accessTpDestroyReturn annotates what follows perf_trace_destroy() in its
// caller up to the task's next step point: the rest of _free_event() and
// put_event()'s return (freeing), or a caller nobody annotated: marked.
func (k *Kernel) accessTpDestroyReturn(t *sched.Task, e *Event, freeing bool) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	if !freeing {
		c.Unaudited("perf_trace_destroy's caller") // kernel/events/core.c: perf_event_alloc()'s err_pmu path
		return
	}
	k.accessFreeEventTail(c, e)
	if e.parent != nil {
		c.Unaudited("put_event(parent)") // kernel/events/core.c: put_event(): "Matches the refcount bump in inherit_event()"
	}
	if !k.glob.releasePut[e] {
		c.Unaudited("put_event's caller") // kernel/events/core.c: put_event() from another caller than perf_event_release_kernel()
	}
}

// accessFreeEventTail annotates _free_event() after event->destroy() of a
// tracepoint event (perf_trace_destroy()'s step point starts a fragment
// in its middle): what accessFreeEvent annotated for the fragment before,
// again for this one.
// kernel/events/core.c: _free_event() -> __free_event()
func (k *Kernel) accessFreeEventTail(c *cpu.CPU, e *Event) {
	k.accessFreeEventRefs(c, e)                                            // footprint_release.go
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedWrite, "_free_event")  // the model's state DEAD once freed
	c.AccessMarkedOnly(e, "event (freed)", cpu.MarkedWrite, "_free_event") // call_rcu(&event->rcu_head, free_event_rcu): the memory's free queued
}

// releasePutting records that perf_event_release_kernel() is in (on) or
// back from (off) its put_event() of e.
func (k *Kernel) releasePutting(e *Event, on bool) {
	if !k.M.FootprintListening() {
		return
	}
	if !on {
		delete(k.glob.releasePut, e)
		return
	}
	if k.glob.releasePut == nil {
		k.glob.releasePut = map[*Event]bool{}
	}
	k.glob.releasePut[e] = true
}

// accessTpReg annotates perf_trace_event_reg()'s increment of the
// tracepoint's perf_refcount (before the model's users++), and for the
// first user the per-CPU lists allocated.
// kernel/trace/trace_event_perf.c: perf_trace_event_reg(): alloc_percpu(), tp_event->perf_events = list; tp_event->perf_refcount++
func (k *Kernel) accessTpReg(t *sched.Task, s *tpSlot) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	k.accessTpRefcount(c, s, "perf_trace_event_reg") // kernel/trace/trace_event_perf.c: perf_trace_event_reg(): if (tp_event->perf_refcount++ > 0) return 0
	if s.users > 0 {
		return
	}
	c.AccessMarkedOnly(totalRefCountKey{&k.tp}, "total_ref_count", cpu.MarkedWrite, "perf_trace_event_reg") // kernel/trace/trace_event_perf.c: perf_trace_event_reg(): if (!total_ref_count) perf_trace_buf[i] = alloc_percpu(...); total_ref_count++
	for i := range s.perCPU {
		c.AccessMarkedOnly(tpCPUKey{s, i}, "tp_event->perf_events", cpu.MarkedWrite, "perf_trace_event_reg") // kernel/trace/trace_event_perf.c: perf_trace_event_reg(): INIT_HLIST_HEAD(per_cpu_ptr(list, cpu)); tp_event->perf_events = list
	}
}

// openAuditing records that t is in (on) or back from (off) a
// perf_event_open() whose body is annotated.
func (k *Kernel) openAuditing(t *sched.Task, on bool) {
	if !k.M.FootprintListening() {
		return
	}
	if !on {
		delete(k.glob.openAudited, t)
		return
	}
	if k.glob.openAudited == nil {
		k.glob.openAudited = map[*sched.Task]bool{}
	}
	k.glob.openAudited[t] = true
}

// markTpInitReturn marks perf_trace_init()'s return into a caller whose
// code nobody annotated: an open that is not annotated, a fork's
// inherit_event().
func (k *Kernel) markTpInitReturn(t *sched.Task) {
	if c := k.setupCPU(t); c != nil && !k.glob.openAudited[t] {
		c.Unaudited("perf_trace_init's caller") // kernel/events/core.c: perf_init_event()'s caller, not an annotated sys_perf_event_open()
	}
}
