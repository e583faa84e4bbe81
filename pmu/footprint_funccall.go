package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
)

// The footprints of the cross-CPU function call (kernel/smp.c,
// core.c's cpu_function_call(), task_function_call(), event_function_call()),
// declared complete:
//
//   - "enter:call_function_single": the IPI's handler, up to the remote
//     function's first step point or the handler's return: the count of
//     IPIs (an observable), remote_function()'s look at task_cpu(p) and
//     current (accessRemoteFunction), event_function()'s at event->ctx and
//     ctx->task (accessEventFunction), the function's own code where its
//     caller says it is annotated (csdCall.fn: __perf_remove_from_context()
//     and __perf_install_in_context() begin with their step points,
//     __perf_event_read() is annotated, footprint_read.go), then csd_unlock()
//     (the Release the waiter's csd_lock_wait() reads). Every other remote
//     function (__perf_event_enable(), __perf_event_stop(), the hotplug's,
//     the cgroup's, ...) is marked where the handler calls it
//     (markRemoteFn), and sched's CALL_FUNCTION_SINGLE for the wake list
//     (sched_ttwu_pending()) marks itself (sched/wake.go).
//   - "smp_call_function_single:wait", up to the next round's step point
//     (cpu.DeclareCompleteUntil): a round that finds the call not done
//     (accessCSDWait, the soft-lockup watchdog's look, the spin). A round
//     that finds it done returns into the caller: annotated up to the
//     caller's next step point where the caller says so (csdCall.ret: its
//     code reaches one of the ends below, or it marks where it returns
//     into code nobody annotated: markReturn), else marked there
//     (markCSDDone). The ends: the retry of task_function_call(), the
//     ctx->lock of event_function_call() and perf_install_in_context() for
//     a task that is not running (and its spin), perf_event_read()'s next
//     look at an event's state and the child step of
//     perf_event_read_value(), and read(2)'s return to user mode after its
//     last read (footprint_read.go).
//
// A call to this CPU runs the function right here, in the caller's
// fragment, with the same marks: the function's at its start, the
// caller's at the return.
//
// With them, the walks see the IPI's handler as independent of what
// another CPU does that the remote function does not touch, and a
// spinning CPU's rounds as independent of whatever another CPU does that
// is not the call's handler.
func init() {
	cpu.DeclareComplete("enter:" + IPIName)
	cpu.DeclareCompleteUntil("smp_call_function_single:wait",
		"smp_call_function_single:wait",      // the next round
		"task_function_call:retry",           // remote_function()'s -EAGAIN: task_function_call() goes round
		"event_function_call:ctx-locked",     // the task not running: event_function_call() locks its context here
		"perf_install_in_context:ctx-locked", // ... perf_install_in_context() likewise
		"raw_spin_lock:ctx->lock",            // ... and spins for that ctx->lock
		"perf_event_read:state-read",         // a read's next event (footprint_read.go)
		"perf_event_read_value:child",        // ... the child's step after its read
		"exit_to_user_mode_loop",             // read(2)'s last read: its return to user mode (footprint_read.go)
	)
}

// csdCall says what of one cross-CPU call is annotated, for its marks.
type csdCall struct {
	// fn: the remote function's code, from the handler's entry up to its
	// first step point or its return, is annotated (its caller read it).
	fn bool
	// ret: the caller annotates its code after the call returns, up to
	// its next step point, and marks where it returns into code nobody
	// annotated (markReturn).
	ret bool
}

// markRemoteFn marks, at the IPI handler's entry, a remote function whose
// code nobody annotated.
func (k *Kernel) markRemoteFn(c *cpu.CPU, how csdCall) {
	if !how.fn {
		c.Unaudited("smp_call_function_single's function") // kernel/smp.c: __flush_smp_call_function_queue(): csd_do_func(func, info, csd)
	}
}

// accessCSDWait annotates csd_lock_wait()'s look at the call's csd->flags,
// which the target CPU's handler releases (csd_unlock(), the Release in
// smpCallWith's handler: the same key and field).
// kernel/smp.c: csd_lock_wait(): smp_cond_load_acquire(&csd->node.u_flags, !(VAL & CSD_FLAG_LOCK))
func (k *Kernel) accessCSDWait(c *cpu.CPU, csd *cpu.SyncClock) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(csd, "sync", cpu.MarkedRead, "csd_lock_wait")
	}
}

// markCSDDone marks the return from smp_call_function_single() into a
// caller whose code nobody annotated.
func (k *Kernel) markCSDDone(c *cpu.CPU, how csdCall) {
	if !how.ret {
		c.Unaudited("smp_call_function_single's caller")
	}
}

// markReturn marks the return of a call helper (task_function_call(),
// event_function_call(), perf_event_read()) into fn, a caller whose code
// nobody annotated, unless how says it is annotated.
func (k *Kernel) markReturn(t *sched.Task, how csdCall, fn string) {
	if !how.ret {
		t.CPU().Unaudited(fn)
	}
}

// accessRemoteFunction annotates remote_function()'s look at p: its CPU
// and whether it is current here. task_cpu(p) changes where p is switched
// or moved (sched's context switch writes p->se of both tasks, which the
// model's last CPU is a part of); current is this CPU's own, which only
// its own code changes.
func (k *Kernel) accessRemoteFunction(c *cpu.CPU, p *sched.Task, how csdCall) {
	if how.fn && k.M.FootprintListening() {
		c.AccessMarkedOnly(p, "p->se (exec_start, wake_cpu)", cpu.MarkedRead, "remote_function") // kernel/events/core.c: remote_function(): if (task_cpu(p) != smp_processor_id()) return -EAGAIN
		c.AccessMarkedOnly(&p.Thread, "p->on_cpu", cpu.MarkedRead, "remote_function")            // kernel/events/core.c: remote_function(): if (p != current) return -ESRCH (the model asks where p runs)
	}
}

// accessEventFunction annotates event_function()'s look at the event's
// context and its task (TASK_TOMBSTONE once the task exited).
func (k *Kernel) accessEventFunction(c *cpu.CPU, e *Event) {
	if !k.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(e, "event->ctx", cpu.PlainRead, "event_function") // kernel/events/core.c: event_function(): struct perf_event_context *ctx = event->ctx
	if e.ctx != nil {
		c.AccessMarkedOnly(e.ctx, "ctx->task", cpu.MarkedRead, "event_function") // kernel/events/core.c: event_function(): if (ctx->task) { if (ctx->task != current) ... }
	}
}

// accessCtxLockHeld annotates raw_spin_lock()'s look at a ctx->lock another
// CPU holds: the fragment that finds it held ends at the spin's step point
// with no other access to the lock, and the holder's release changes what
// it finds.
func (k *Kernel) accessCtxLockHeld(c *cpu.CPU, ctx *Context) {
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(ctx, "ctx->lock", cpu.MarkedRead, "raw_spin_lock") // kernel/locking/spinlock.c: raw_spin_lock() -> queued_spin_lock(): atomic_try_cmpxchg_acquire(&lock->val, ...) fails
	}
}
