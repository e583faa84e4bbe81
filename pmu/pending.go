package pmu

import "perfsim/cpu"

// pending_disable: its own irq_work (event->pending_disable_irq), apart from
// pending_irq's wakeups, that follows the event to the CPU it runs on.

// perfEventDisableInatomic defers the disable to the event's
// pending_disable_irq (one queued entry per event: IRQ_WORK_PENDING).
// kernel/events/core.c: perf_event_disable_inatomic()
func (k *Kernel) perfEventDisableInatomic(e *Event) {
	c := k.curCPU()
	c.Access(e, "event->pending_disable", cpu.PlainWrite, "perf_event_disable_inatomic") // core.c: perf_event_disable_inatomic(): event->pending_disable = 1
	e.pendingDisable = true
	if c == nil || e.life.disableIrqQueued {
		return
	}
	e.life.disableIrqQueued = true
	c.IrqWorkQueue(func(c *cpu.CPU) { k.perfPendingDisable(c, e) })
}

// perfPendingDisable is the pending_disable_irq handler: disable the event
// here if it runs here, follow it to the CPU it runs on now, or leave it to
// event_sched_out() when it does not run.
// kernel/events/core.c: perf_pending_disable() -> __perf_pending_disable()
func (k *Kernel) perfPendingDisable(c *cpu.CPU, e *Event) {
	e.life.disableIrqQueued = false
	e.checkLive("perf_pending_disable")
	c.Access(e, "event->oncpu", cpu.MarkedRead, "__perf_pending_disable") // core.c: __perf_pending_disable(): int cpu = READ_ONCE(event->oncpu)
	cpuID := e.oncpu
	// "If the event isn't running; we done. event_sched_out() will have
	// taken care of things."
	if cpuID < 0 {
		return
	}
	// "Yay, we hit home and are in the context of the event."
	if cpuID == c.ID {
		c.Access(e, "event->pending_disable", cpu.PlainRead, "__perf_pending_disable") // core.c: __perf_pending_disable(): if (event->pending_disable)
		if e.pendingDisable {
			c.Access(e, "event->pending_disable", cpu.PlainWrite, "__perf_pending_disable") // core.c: __perf_pending_disable(): event->pending_disable = 0
			e.pendingDisable = false
			k.perfEventDisableLocal(c, e)
		}
		return
	}
	// "But the event runs on CPU-B and wants disabling there."
	k.stats.pendingDisableRemote++
	e.life.disableIrqQueued = true
	k.M.CPUs[cpuID].IrqWorkQueue(func(c *cpu.CPU) { k.perfPendingDisable(c, e) }) // irq_work_queue_on()
}

func init() {
	RegisterObservable("pending-disable.remote", "pending_disable irq_works sent on to the CPU the event moved to (irq_work_queue_on() in __perf_pending_disable())",
		func(k *Kernel) int64 { return int64(k.stats.pendingDisableRemote) })
}
