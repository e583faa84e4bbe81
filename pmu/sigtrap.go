package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// attr.sigtrap: a synchronous SIGTRAP (si_code TRAP_PERF, si_perf_data =
// attr.sig_data) to the task the event overflowed in, sent from a task_work
// (perf_pending_task) the task runs on its way back to user mode.

// pendingTaskRefKnob picks whether the queued perf_pending_task holds a
// reference on the event.
var pendingTaskRefKnob = sim.KnobSpec{
	Name:    "pending-task-ref",
	Values:  []string{"today", "pre-517e6a301f34"},
	Implies: map[string][]string{"pre-517e6a301f34": closeFputPreV66}, // v6.1
	Help: "attr.sigtrap: today __perf_event_overflow() takes a reference on the event (atomic_long_inc_not_zero(&event->refcount)) when it " +
		"queues perf_pending_task(), which drops it (put_event()) after sending SIGTRAP, so the event outlives the task_work; " +
		"pre-517e6a301f34: no reference, so closing the event while the task_work is queued frees it and perf_pending_task() " +
		"then reads freed memory (syzbot: slab-use-after-free in perf_pending_task)",
	Source:  "517e6a301f34 perf: Fix perf_pending_task() UaF (Peter Zijlstra, v6.1-rc8; reported by syzbot+9228d6098455bb209ec8; Fixes ca6c21327c6a perf: Fix missing SIGTRAPs)",
	Package: "pmu",
}

// sigtrapSendKnob picks how perf_sigtrap() sends the SIGTRAP.
var sigtrapSendKnob = sim.KnobSpec{
	Name:    "sigtrap-send",
	Values:  []string{"today", "pre-78ed93d72ded"},
	Implies: map[string][]string{"pre-78ed93d72ded": closeFputPreV66}, // v5.18
	Help: "attr.sigtrap's SIGTRAP: today send_sig_perf() sends it with send_sig_info(), so SIGTRAP at SIG_IGN is dropped and a " +
		"thread that blocks SIGTRAP takes it when it unblocks, with TRAP_PERF_FLAG_ASYNC in si_perf_flags; pre-78ed93d72ded " +
		"(v5.13-v5.17) force_sig_perf() forced it (force_sig_info()): blocked or ignored, SIGTRAP is unblocked and reset to " +
		"SIG_DFL, so the process ends (\"processes terminated due to user space attempting to block delivery of SIGTRAP\")",
	Source:  "78ed93d72ded signal: Deliver SIGTRAP on perf event asynchronously if blocked (Marco Elver, v5.18-rc1; reported by Dmitry Vyukov; Fixes 97ba62b27867 perf: Add support for SIGTRAP on perf events)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, pendingTaskRefKnob, sigtrapSendKnob)
	RegisterObservable("sigtrap.queued", "perf_pending_task() task works queued by attr.sigtrap events (__perf_event_overflow)",
		func(k *Kernel) int64 { return int64(k.sigStats.queued) })
	RegisterObservable("sigtrap.sent", "SIGTRAPs (TRAP_PERF) perf_sigtrap() sent",
		func(k *Kernel) int64 { return int64(k.sigStats.sent) })
	RegisterObservable("sigtrap.exiting", "perf_sigtrap() calls that sent nothing because the task was exiting (PF_EXITING)",
		func(k *Kernel) int64 { return int64(k.sigStats.exiting) })
	RegisterObservable("sigtrap.warn", "WARN_ON_ONCE(event->ctx->task != current) in perf_sigtrap(), or a reference taken on a dead event",
		func(k *Kernel) int64 { return int64(k.sigStats.warn) })
}

// sigStats are the sigtrap path's counters.
type sigStats struct {
	queued, sent, exiting, warn uint64
	syncWaits, syncCancels      uint64 // perf_pending_task_sync() (sigtrap_sync.go)
}

// perfOverflowSigtrap is the attr.sigtrap part of __perf_event_overflow():
// queue perf_pending_task on current, once per pending_work.
// kernel/events/core.c: __perf_event_overflow() "if (event->attr.sigtrap)"
func (k *Kernel) perfOverflowSigtrap(c *cpu.CPU, e *Event, data *perfSampleData) {
	if !e.Attr.Sigtrap {
		return
	}
	cur := sched.TaskOf(c.Curr())
	if cur == nil {
		return
	}
	mode := sched.TWAResume
	if c.InNMI() {
		mode = sched.TWANMICurrent
	}
	c.Access(e, "event->pending_work", cpu.PlainRead, "__perf_event_overflow") // core.c: __perf_event_overflow(): if (!event->pending_work && !task_work_add(...))
	if e.life.pendingWork != 0 {
		return
	}
	ev := e
	if k.S.TaskWorkAdd(c, cur, sched.TaskWork{Name: "perf_pending_task", Fn: func(t *sched.Task) { k.perfPendingTask(t, ev) }, Key: pendingTaskCB{e}}, mode) != nil {
		return
	}
	c.Access(e, "event->pending_work", cpu.PlainWrite, "__perf_event_overflow") // core.c: __perf_event_overflow(): event->pending_work = pending_id
	e.life.pendingWork = 1
	e.life.pendingTask = cur
	k.sigStats.queued++
	if k.pendingTaskRefToday() {
		// WARN_ON_ONCE(!atomic_long_inc_not_zero(&event->refcount))
		if !e.getEvent() {
			k.sigStats.warn++
		} else {
			e.life.pendingRef = true
		}
	}
	e.life.pendingAddr = 0
	if e.Attr.SampleType&uapi.PERF_SAMPLE_ADDR != 0 && data != nil {
		e.life.pendingAddr = data.addr
	}
}

// perfPendingTask is the task work: send the SIGTRAP, drop the reference.
// kernel/events/core.c: perf_pending_task()
func (k *Kernel) perfPendingTask(t *sched.Task, e *Event) {
	e.checkLive("perf_pending_task")
	c := t.CPU()
	c.Access(e, "event->pending_work", cpu.PlainRead, "perf_pending_task") // core.c: perf_pending_task(): if (event->pending_work)
	if e.life.pendingWork != 0 {
		c.Access(e, "event->pending_work", cpu.PlainWrite, "perf_pending_task") // core.c: perf_pending_task(): event->pending_work = 0
		e.life.pendingWork = 0
		e.life.pendingTask = nil
		k.perfSigtrap(t, e)
		if k.pendingTaskSyncOld() {
			k.S.RCUWaitWakeUp(&e.life.pendingWorkWait) // 3a5465418f5f: rcuwait_wake_up(&event->pending_work_wait)
		}
	}
	if k.pendingTaskRefToday() {
		e.life.pendingRef = false
		k.putEvent(t, e)
	}
}

// pendingTaskRefToday reports whether the queued perf_pending_task() holds a
// reference on the event: pending-task-ref=today, except between
// 3a5465418f5f and 56799bc03565 (pending-task-sync=pre-56799bc03565), which
// waited for the work instead.
func (k *Kernel) pendingTaskRefToday() bool {
	return k.KnobIs(pendingTaskRefKnob.Name, "today") && !k.pendingTaskSyncOld()
}

// perfSigtrap sends SIGTRAP/TRAP_PERF to current unless it is exiting:
// with TRAP_PERF_FLAG_ASYNC when current blocks SIGTRAP (it is taken
// later, when unblocked), or before 78ed93d72ded forced.
// kernel/events/core.c: perf_sigtrap() -> kernel/signal.c: send_sig_perf()
func (k *Kernel) perfSigtrap(t *sched.Task, e *Event) {
	// "Both perf_pending_task() and perf_pending_irq() can race with the
	// task exiting."
	if t.Exiting() { // PF_EXITING
		k.sigStats.exiting++
		return
	}
	if e.ctx == nil || e.ctx.task != t {
		k.sigStats.warn++ // WARN_ON_ONCE(event->ctx->task != current)
		return
	}
	k.sigStats.sent++
	sig := sched.Signal{Sig: sched.SIGTRAP, Code: sched.TRAP_PERF, Addr: e.life.pendingAddr,
		PerfData: e.Attr.SigData, PerfType: e.Attr.Type}
	if k.KnobIs(sigtrapSendKnob.Name, "pre-78ed93d72ded") {
		k.S.ForceSigInfo(t, sig) // kernel/signal.c (v5.17): force_sig_perf() -> force_sig_info()
		return
	}
	// kernel/signal.c: send_sig_perf(): "Signals generated by perf events
	// should not terminate the whole process if SIGTRAP is blocked"
	if t.SigBlocked(sched.SIGTRAP) {
		sig.PerfFlags = sched.TRAP_PERF_FLAG_ASYNC
	}
	k.S.SendSignal(t, sig)
}
