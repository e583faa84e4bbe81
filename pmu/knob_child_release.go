package pmu

import (
	"perfsim/sched"
	"perfsim/sim"
)

// childReleaseKnob picks how an inherited (child) event is let go when its
// original is released or its task exits.
var childReleaseKnob = sim.KnobSpec{
	Name:   "child-release",
	Values: []string{"today", "pre-3a5465418f5f"},
	Help: "an inherited event let go by perf_event_release_kernel() (its original's fd closed) or perf_event_exit_event() (its task exits): " +
		"today put_event(child), so a perf_pending_task() still queued on the child's task keeps its reference and frees it when it ran; " +
		"pre-3a5465418f5f: free_event(child), which refuses a refcount other than 1 (WARN \"unexpected event refcount: 2\", \"leak to avoid " +
		"use-after-free\"), so a child whose sigtrap task work was queued (517e6a301f34's reference) is never freed; the original's " +
		"inherit_event() reference is dropped by put_event(parent) beside it",
	Source: "3a5465418f5f perf: Fix event leak upon exec and file release (Frederic Weisbecker, v6.10-rc; tip b8accda880ea; Fixes 517e6a301f34); " +
		"today's put_event() of children: 56799bc03565 perf: Fix hang while freeing sigtrap event",
	Package: "pmu",
}

// childReleaseOld reports child-release=pre-3a5465418f5f.
// pending-task-sync=pre-56799bc03565 frees children the same way (56799bc03565
// is the commit that made it put_event(child)).
func (k *Kernel) childReleaseOld() bool {
	return k.KnobIs(childReleaseKnob.Name, "pre-3a5465418f5f") || k.pendingTaskSyncOld()
}

// releaseChild lets an inherited event go once it left its context and its
// original's child_list: put_event(child) today, which puts the original when
// it frees the child; before 3a5465418f5f free_event(child) and
// put_event(parent).
// kernel/events/core.c: perf_event_release_kernel(), perf_event_exit_event()
func (k *Kernel) releaseChild(t *sched.Task, child *Event) {
	if !k.childReleaseOld() {
		k.putEvent(t, child) // last reference unless ->pending_task work is pending
		return
	}
	parent := child.parent
	k.freeEventRefOne(t, child)
	if parent != nil {
		k.putEvent(t, parent) // "This matches the refcount bump in inherit_event()"
	}
}

// freeEventRefOne is free_event(): for an event whose refcount must be 1;
// any other count WARNs and the event is left alone ("leak to avoid
// use-after-free").
// kernel/events/core.c: free_event()
func (k *Kernel) freeEventRefOne(t *sched.Task, e *Event) {
	e.checkLive("free_event")
	if e.life.refcount != 1 { // atomic_long_cmpxchg(&event->refcount, 1, 0) != 1
		k.stats.freeEventWarn++
		if k.lifeOn() {
			k.mark(&e.life.refused, "free_event")
		}
		return
	}
	e.life.refcount = 0
	if k.lifeOn() {
		k.mark(&e.life.put, "free_event")
	}
	k.freeEvent(t, e)
}

func init() {
	RegisterObservable("events.free-warn", "free_event() WARNs \"unexpected event refcount\": an event freed with references left, leaked instead (child-release=pre-3a5465418f5f)",
		func(k *Kernel) int64 { return int64(k.stats.freeEventWarn) })
}
