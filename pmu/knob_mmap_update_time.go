package pmu

import "perfsim/sim"

// mmapUpdateTimeKnob picks whether perf_mmap_rb() folds the event's times
// under ctx->lock.
var mmapUpdateTimeKnob = sim.KnobSpec{
	Name:   "mmap-update-time",
	Values: []string{"today", "proposed"},
	Help: "perf_mmap_rb() calls perf_event_update_time(event) with event->mmap_mutex held but not ctx->lock, so its plain read and write of " +
		"event->tstamp (and total_time_enabled/running) race with perf_event_set_state() on the event's CPU, which holds ctx->lock " +
		"(event_sched_out(), event_sched_in(), __perf_install_in_context()): the data-race oracle reports it as KCSAN did on syzbot; " +
		"proposed: perf_mmap_rb() takes raw_spin_lock_irqsave(&ctx->lock) around the update, which orders it with every other update",
	Source: "today: kernel/events/core.c perf_mmap_rb() (post-v6.19), syzbot \"KCSAN: data-race in perf_event_set_state / perf_mmap_rb\" " +
		"(2026-01-14, assessed not benign 2026-02-06); proposed: docs/upstream/mmap-rb-update-time.md, no fix posted",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, mmapUpdateTimeKnob) }

// perfMmapRBUpdateTime is perf_mmap_rb()'s perf_event_update_time(event)
// after ring_buffer_attach(): today without ctx->lock; knob
// mmap-update-time=proposed under it.
// kernel/events/core.c: perf_mmap_rb()
func (k *Kernel) perfMmapRBUpdateTime(e *Event) {
	c := k.curCPU()
	if e.ctx == nil || c == nil || !k.KnobIs(mmapUpdateTimeKnob.Name, "proposed") {
		e.updateTime("perf_mmap_rb")
		return
	}
	f := c.LocalIrqSave()
	k.ctxLock(c, e.ctx)
	e.updateTime("perf_mmap_rb")
	k.ctxUnlock(c, e.ctx)
	c.LocalIrqRestore(f)
}
