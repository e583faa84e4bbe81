package pmu

import (
	"fmt"

	"perfsim/sim"
)

// inheritState is the bookkeeping of fork, exit and the context swap that
// the observables and the inheritance oracle read.
type inheritState struct {
	swaps      uint64 // perf_event_context_sched_out() swapped two contexts
	childSyncs uint64 // sync_child_event() folded a child into its original
	forks      uint64 // perf_event_init_task() gave a child a context
	reads      uint64 // read()s of an original inherit event the oracle judged
	// violations the read oracle found (judged at once, reported through
	// OnViolation).
	violations []InheritViolation
	hook       func(InheritViolation)
}

// InheritViolation is a read() of an inherited event that returned more than
// the event and its children ever counted (a child counted twice), or a
// context swap that exchanged the counts of two different events
// (sync-stat-swaps-twins, sync_stat.go).
type InheritViolation struct {
	Invariant string
	T         sim.Time
	CPU       int
	Message   string
}

// InheritInvariants are the invariants of inheritance the pmu judges itself:
// on every read() of an event with children, and at the end of the run.
var InheritInvariants = []struct{ Name, Says, Why string }{
	{"inherited-read-adds-up",
		"read() of an inherited event returns at most what the event and all its inherited copies counted, and at the end of the run the event's count plus child_count is exactly that",
		"a child's count is folded into child_count and the child leaves child_list together, under child_mutex, which read() holds (ef54c1a476ae); the context swap moves whole contexts, never counts between families (inherit_stat events aside, which it does not judge: sync-stat-swaps-twins)"},
}

func init() {
	KnobSpecs = append(KnobSpecs, sim.KnobSpec{
		Name:   "ctx-swap",
		Values: []string{"today", "off"},
		Help: "perf_event_context_sched_out(): today swaps two equivalent cloned contexts (context_equiv()) between the tasks at a switch and leaves their events on the PMU; " +
			"off always schedules the context out and the next one in, the slow path (the kernel takes it whenever the contexts are not clones, are pinned, or hold inherit+PERF_SAMPLE_READ events)",
		Source:  "kernel/events/core.c: perf_event_context_sched_out(), context_equiv(); the optimisation since \"perf_counter: Optimize context switch between identical inherited contexts\" (Paul Mackerras, v2.6.31)",
		Package: "pmu",
	}, sim.KnobSpec{
		Name:    "exit-event",
		Values:  []string{"today", "pre-ef54c1a476ae"},
		Implies: map[string][]string{"pre-ef54c1a476ae": closeFputPreV66}, // v5.13
		Help: "perf_event_exit_event() of an inherited event: today folds its counts into the original and unlinks it from child_list under child_mutex, in one go; " +
			"before ef54c1a476ae sync_child_event() added the counts to child_count without child_mutex and only then took it to unlink the child, so a read() in between counted the child twice",
		Source:  "ef54c1a476ae perf: Rework perf_event_exit_event() (v5.13)",
		Package: "pmu",
	})
	RegisterStepPoints(
		"perf_event_init_context:pinned", "inherit_event:child_mutex",
		"perf_event_exit_task_context:tombstone", "perf_event_exit_event:synced", "sync_child_event:folded",
		"perf_event_context_sched_out:locked", "perf_event_context_sched_out:swapped", "__perf_event_sync_stat:read",
		"perf_event_read_value:lock", "perf_event_read_value:child",
	)
	for _, o := range []struct {
		name, help string
		get        func(k *Kernel) int64
	}{
		{"ctx.swaps", "context switches that swapped two equivalent cloned contexts instead of scheduling them out and in", func(k *Kernel) int64 { return int64(k.inh.swaps) }},
		{"inherit.children", "inherited events created at fork (perf_event_init_task)", func(k *Kernel) int64 { return k.countInherited(false) }},
		{"inherit.live", "inherited events not yet folded back and freed", func(k *Kernel) int64 { return k.countInherited(true) }},
		{"inherit.synced", "exited children folded into their original events (sync_child_event)", func(k *Kernel) int64 { return int64(k.inh.childSyncs) }},
		{"inherit.contexts", "task contexts created at fork (a child that inherited at least one event)", func(k *Kernel) int64 { return int64(k.inh.forks) }},
		{"inherit.clones", "task contexts that are clones (ctx->parent_ctx set)", func(k *Kernel) int64 { return k.countClones() }},
		{"inherit.reads", "read()s of an inherit event (without inherit_stat) judged by inherited-read-adds-up", func(k *Kernel) int64 { return int64(k.inh.reads) }},
		{"inherit.family-total", "what every original inherit event and all its copies counted, summed (the oracle's truth)", func(k *Kernel) int64 { return k.familyTotals() }},
		{"inherit.read-total", "count + child_count of every original inherit event plus its live copies: what read() returns, summed", func(k *Kernel) int64 { return k.readTotals() }},
	} {
		RegisterObservable(o.name, o.help, o.get)
	}
}

func (k *Kernel) countInherited(liveOnly bool) int64 {
	var n int64
	for _, e := range k.events {
		if e.parent != nil && (!liveOnly || e.state != StateDead) {
			n++
		}
	}
	return n
}

func (k *Kernel) countClones() int64 {
	var n int64
	for _, ctx := range k.taskCtx {
		if ctx.parentCtx != nil {
			n++
		}
	}
	return n
}

// inheritOriginals are the original events that children inherit from.
func (k *Kernel) inheritOriginals() []*Event {
	var out []*Event
	for _, e := range k.events {
		if e.parent == nil && e.Attr.Inherit {
			out = append(out, e)
		}
	}
	return out
}

func (k *Kernel) familyTotals() int64 {
	var n int64
	for _, e := range k.inheritOriginals() {
		n += k.familyCount(e)
	}
	return n
}

func (k *Kernel) readTotals() int64 {
	var n int64
	for _, e := range k.inheritOriginals() {
		n += e.count + e.childCount
		for _, c := range e.childList {
			n += c.count
		}
	}
	return n
}

// SetInheritViolationHook sets who hears every inheritance violation as it is found.
func (k *Kernel) SetInheritViolationHook(fn func(InheritViolation)) { k.inh.hook = fn }

// checkInheritedRead judges one read() of an original event with copies:
// total must not exceed what the family counted. inherit_stat events are
// not judged: perf_event_sync_stat() swaps values between two copies, so a
// read that meets a copy before a swap and the other after it may see a
// value twice, by design (per-task figures over a consistent sum).
func (k *Kernel) checkInheritedRead(cpuID int, e *Event, member int, total int64) {
	if e.parent != nil || !e.Attr.Inherit || e.Attr.InheritStat {
		return
	}
	k.inh.reads++
	if truth := k.familyCount(e); total > truth {
		k.inheritViolation(cpuID, fmt.Sprintf("read() of event %d (member %d) returned %d but the event and its %d inherited copies counted %d: a child counted twice",
			e.id, member, total, k.countChildrenOf(e), truth))
	}
}

func (k *Kernel) countChildrenOf(pe *Event) int {
	n := 0
	for _, e := range k.events {
		if e.parent == pe {
			n++
		}
	}
	return n
}

func (k *Kernel) inheritViolation(cpuID int, msg string) {
	k.inheritViolationOf("inherited-read-adds-up", cpuID, msg)
}

func (k *Kernel) inheritViolationOf(invariant string, cpuID int, msg string) {
	v := InheritViolation{Invariant: invariant, T: k.now(), CPU: cpuID, Message: msg}
	k.inh.violations = append(k.inh.violations, v)
	if k.inh.hook != nil {
		k.inh.hook(v)
	}
}

// InheritCheck is the end-of-run judgement: for every original inherit event
// whose children have all exited, count + child_count equals what the family
// counted (nothing lost, nothing twice), at the end or, for one released
// after its children were gone, when it was released.
func (k *Kernel) InheritCheck() []InheritViolation {
	var out []InheritViolation
	for _, e := range k.inheritOriginals() {
		if len(e.childList) > 0 || e.Attr.InheritStat {
			continue
		}
		got, truth := e.count+e.childCount, k.familyCount(e)
		if e.life.freeQueued {
			// Released (its fd closed, or closed at its process's exit):
			// judged as it was when released if its children were all gone
			// then; otherwise perf_event_release_kernel() took them off with
			// DETACH_CHILD, unsynced, and nobody can read it.
			if e.inhAtRelease == nil {
				continue
			}
			got, truth = e.inhAtRelease[0], e.inhAtRelease[1]
		}
		if got != truth {
			out = append(out, InheritViolation{Invariant: "inherited-read-adds-up", T: k.now(), CPU: -1,
				Message: fmt.Sprintf("event %d: count %d + child_count %d = %d, but it and its %d copies counted %d",
					e.id, e.count, e.childCount, got, k.countChildrenOf(e), truth)})
		}
	}
	return out
}
