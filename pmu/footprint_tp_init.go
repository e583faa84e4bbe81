package pmu

import "perfsim/cpu"

// The tracepoint PMU's event_init annotated (EventInitAnnotated), so an
// annotated perf_event_open() of a tracepoint event (footprint_open.go)
// is not marked as a whole by perf_try_init_event() (markEventInit).
// kernel/events/core.c: perf_tp_event_init() checks the new event's attr
// (its type, has_branch_stack()): the new event only. Then
// kernel/trace/trace_event_perf.c: perf_trace_init() takes event_mutex
// (lockGlobal, annotated) and stops at its step point
// "perf_trace_init:event_mutex" (footprint_tp_destroy.go declares what
// follows). Upstream's lookup of the trace_event_call by id walks
// ftrace_events under event_mutex (a list only module load and unload
// change, which the model has not); the model finds it before the lock,
// in its catalogue (static), and makes the tracepoint's slot on first use:
// a slot is what the tracepoint's readers test for a perf registration
// (accessSyscallTPs, accessTpRegistered: "tp_event->perf_refcount" of
// tpKey), so a new one is annotated as a write of it and of the model's
// table of slots (tpSlotsKey), an old one as a read.

// EventInitAnnotated implements EventInitAnnotated: perf_tp_event_init()
// annotates itself (accessTpEventInit).
func (p *tpPMU) EventInitAnnotated() bool { return true }

// tpSlotsKey is the model's table of tracepoint slots (tpTable.slots and
// the references that mirror it: raw_syscalls' two), the write audit's
// extent of a slot made on first use.
type tpSlotsKey struct{ t *tpTable }

// FootprintKey implements cpu.FootprintKeyer.
func (tpSlotsKey) FootprintKey() string { return "tracepoint slots (the model's table)" }

// String is the key's identity (explore's TestFootprintKeysStable).
func (k tpSlotsKey) String() string { return k.FootprintKey() }

// FootprintExtent implements the write audit's extent.
func (k tpSlotsKey) FootprintExtent() []any {
	return []any{&k.t.slots, &k.t.rawEnter, &k.t.rawExit}
}

// accessTpEventInit annotates perf_tp_event_init()'s look up of catalogue
// entry i (before the model's slot(i)) on the running CPU: a read of the
// tracepoint's registration, or, for a slot made here, a write of it.
func (k *Kernel) accessTpEventInit(i int) {
	if !k.M.FootprintListening() {
		return
	}
	c := k.curCPU()
	if c == nil {
		return
	}
	// perf_event_alloc() took the event's id before perf_init_event()
	// (newEvent: accessPerfEventID annotates the kernel's counter); the
	// model's counter's write (perfEventIDKey, which accessEventAlloc
	// annotates after the alloc) is in this fragment: perf_trace_init()'s
	// step point comes first.
	c.AccessMarkedOnly(perfEventIDKey{k}, "perf_event_id", cpu.MarkedWrite, "perf_event_alloc") // kernel/events/core.c: perf_event_alloc(): event->id = atomic64_inc_return(&perf_event_id)
	key := tpKey{&k.tp.infos[i]}
	if k.tp.slots[i] != nil {
		c.AccessMarkedOnly(key, "tp_event->perf_refcount", cpu.MarkedRead, "perf_trace_init") // kernel/trace/trace_event_perf.c: perf_trace_init(): list_for_each_entry(tp_event, &ftrace_events, list), trace_event_try_get_ref()
		return
	}
	c.AccessMarkedOnly(key, "tp_event->perf_refcount", cpu.MarkedWrite, "perf_trace_init") // the model's slot of the tracepoint, made on first use: what its readers test
	c.AccessMarkedOnly(tpSlotsKey{&k.tp}, "slots", cpu.MarkedWrite, "perf_trace_init")     // ... in the model's table of slots
}
