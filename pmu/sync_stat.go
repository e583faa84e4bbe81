package pmu

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sim"
)

// syncStatPairKnob picks how perf_event_sync_stat() pairs the events of two
// swapped contexts.
var syncStatPairKnob = sim.KnobSpec{
	Name:   "sync-stat-pair",
	Values: []string{"today", "proposed"},
	Help: "perf_event_sync_stat() swaps the inherit_stat counts and times of two swapped contexts' events pairwise in ctx->event_list order; " +
		"the original context lists its events newest first and an inherited one in the reverse of the group rb-tree's walk (CPU, PMU, group_index), " +
		"so with events on several CPUs (perf record -s -- cmd) or PMUs it swaps counts between different events (sync-stat-swaps-twins); " +
		"proposed: each inherit_stat event is swapped with its own copy in the other context (the event inherited from the same original)",
	Source: "today: kernel/events/core.c perf_event_sync_stat(), list_add_event(), perf_event_init_context() (post-v6.19), " +
		"measured on 6.18.44 (realperf/testdata/inherit-stat-swap); proposed: docs/upstream/inherit-stat-sync-pairing.md, no fix posted",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, syncStatPairKnob)
	InheritInvariants = append(InheritInvariants, struct{ Name, Says, Why string }{
		"sync-stat-swaps-twins",
		"at a context swap perf_event_sync_stat() swaps an inherit_stat event's count and times only with its own copy in the other context (the event inherited from the same original)",
		"the swap keeps each task's figures with the task (perf record -s, perf report -T); a count swapped with another event's belongs to neither (docs/upstream/inherit-stat-sync-pairing.md)",
	})
}

// perfEventSyncStat swaps the counts and times of the inherit_stat events of
// two swapped contexts so each task keeps its own figures: today pairwise
// in event_list order, judged by sync-stat-swaps-twins; knob
// sync-stat-pair=proposed each with its twin.
// kernel/events/core.c: perf_event_sync_stat() -> __perf_event_sync_stat()
func (k *Kernel) perfEventSyncStat(c *cpu.CPU, ctx, nextCtx *Context) {
	if ctx.nrStat == 0 {
		return
	}
	ctx.updateContextTime(true) // update_context_time(ctx)
	if k.KnobIs(syncStatPairKnob.Name, "proposed") {
		for _, e := range ctx.events {
			for _, ne := range nextCtx.events {
				if e.syncStatOrigin() == ne.syncStatOrigin() {
					k.perfEventSyncStatPair(c, e, ne)
					break
				}
			}
		}
		return
	}
	for i := 0; i < len(ctx.events) && i < len(nextCtx.events); i++ {
		e, ne := ctx.events[i], nextCtx.events[i]
		if e.Attr.InheritStat && e.syncStatOrigin() != ne.syncStatOrigin() {
			k.inheritViolationOf("sync-stat-swaps-twins", c.ID, fmt.Sprintf(
				"perf_event_sync_stat() swapped %s with %s: at place %d of the two contexts' event lists, not copies of one event",
				e.syncStatName(), ne.syncStatName(), i+1))
		}
		k.perfEventSyncStatPair(c, e, ne)
	}
}

// perfEventSyncStatPair is __perf_event_sync_stat(): e read and its times
// updated, then its count and times exchanged with ne's.
// kernel/events/core.c: __perf_event_sync_stat()
func (k *Kernel) perfEventSyncStatPair(c *cpu.CPU, e, ne *Event) {
	if !e.Attr.InheritStat {
		return
	}
	if e.state == StateActive { // perf_pmu_read()
		e.pmu.Read(c, e)
	}
	e.updateTime("__perf_event_sync_stat")
	c.Step("__perf_event_sync_stat:read")
	// local64_xchg(): one instruction, an NMI sees it whole.
	e.count, ne.count = ne.count, e.count
	e.totalTimeEnabled, ne.totalTimeEnabled = ne.totalTimeEnabled, e.totalTimeEnabled
	e.totalTimeRunning, ne.totalTimeRunning = ne.totalTimeRunning, e.totalTimeRunning
}

// syncStatOrigin is the original event e copies (e itself for an original):
// two events are twins when they share it.
func (e *Event) syncStatOrigin() *Event {
	if e.parent != nil {
		return e.parent
	}
	return e
}

// syncStatName names e for a violation: its original's id, its PMU,
// config and CPU, and its count before the swap.
func (e *Event) syncStatName() string {
	return fmt.Sprintf("event %d (%s %#x on cpu%d, count %d)", e.syncStatOrigin().id, e.pmuName(), e.Attr.Config, e.cpu, e.count)
}
