package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// callchainBuffers is callchain.c's count of the events that sample
// callchains and the per-CPU entries they share: the first such event
// allocates callchain_cpus_entries, the last one's free releases it.
// callchain_mutex, which serialises the two, is not modelled: only
// perf_event_open() and an event's free take it, and the model's count
// changes within one step of either.
type callchainBuffers struct {
	nrEvents  int  // nr_callchain_events
	allocated bool // callchain_cpus_entries != NULL
}

// nrCallchainEventsKey is nr_callchain_events (and the model's count of
// it), written by every get and put of the callchain buffers.
type nrCallchainEventsKey struct{ b *callchainBuffers }

// FootprintKey implements cpu.FootprintKeyer.
func (nrCallchainEventsKey) FootprintKey() string { return "nr_callchain_events" }

// String is the key's identity (explore's TestFootprintKeysStable).
func (k nrCallchainEventsKey) String() string { return k.FootprintKey() }

// FootprintExtent is where the model counts them.
func (k nrCallchainEventsKey) FootprintExtent() []any { return []any{k.b} }

// getCallchainBuffers is get_callchain_buffers() for a new event that
// samples PERF_SAMPLE_CALLCHAIN (its stack limit, -EOVERFLOW, is checked
// with the other attr checks: CheckAllocPMU). The first event allocates
// the entries, which may fail (fault injection: site
// alloc_callchain_buffers); the count taken is then given back.
// kernel/events/callchain.c: get_callchain_buffers()
func (k *Kernel) getCallchainBuffers(t *sched.Task) error {
	b := &k.callchain
	k.accessCallchainBuffers(t, b.nrEvents == 0, "get_callchain_buffers")
	b.nrEvents++ // "count = atomic_inc_return(&nr_callchain_events);"
	if b.nrEvents == 1 {
		// alloc_callchain_buffers(): "entries = kzalloc(size, GFP_KERNEL); if (!entries) return -ENOMEM;"
		// (and each CPU's kmalloc_node(): "goto fail", which frees the others)
		if k.shouldFail(t, "alloc_callchain_buffers") {
			b.nrEvents-- // exit: "if (err) atomic_dec(&nr_callchain_events);"
			return uapi.ENOMEM
		}
		b.allocated = true // rcu_assign_pointer(callchain_cpus_entries, entries)
	}
	return nil
}

// putCallchainBuffers is __free_event()'s put of an event with
// PERF_ATTACH_CALLCHAIN: the last one releases the entries (freed after a
// grace period: a sampler in an NMI may still hold them).
// kernel/events/callchain.c: put_callchain_buffers()
func (k *Kernel) putCallchainBuffers(t *sched.Task) {
	b := &k.callchain
	k.accessCallchainBuffers(t, b.nrEvents == 1, "put_callchain_buffers")
	b.nrEvents-- // atomic_dec_and_mutex_lock(&nr_callchain_events, &callchain_mutex)
	if b.nrEvents == 0 {
		b.allocated = false // release_callchain_buffers(): RCU_INIT_POINTER(callchain_cpus_entries, NULL); call_rcu()
	}
}

// accessCallchainBuffers annotates a get or put's write of
// nr_callchain_events and, for the first get or the last put, of
// callchain_cpus_entries, which the samplers read (accessCallchain).
func (k *Kernel) accessCallchainBuffers(t *sched.Task, entries bool, fn string) {
	c := k.setupCPU(t)
	if c == nil {
		return
	}
	c.AccessMarkedOnly(nrCallchainEventsKey{&k.callchain}, "nr_callchain_events", cpu.MarkedWrite, fn) // kernel/events/callchain.c: atomic_inc_return() / atomic_dec_and_mutex_lock(&nr_callchain_events, ...)
	if entries {
		c.AccessMarkedOnly(callchainEntries, "callchain_cpus_entries", cpu.MarkedWrite, fn) // kernel/events/callchain.c: rcu_assign_pointer() / RCU_INIT_POINTER(callchain_cpus_entries, ...)
	}
}

// freeEventAllocFailed is __free_event() of an event perf_event_alloc()
// made and then failed after perf_init_event(): what it attached so far is
// given back: event->destroy() (a tracepoint's tp_perf_event_destroy(), a
// breakpoint's slot). PERF_ATTACH_CALLCHAIN is not set yet (its get is the
// last step that can fail), and the model takes hw.target's reference and
// the cgroup after it.
// kernel/events/core.c: __free_event() (DEFINE_FREE(__free_event) in perf_event_alloc())
func (k *Kernel) freeEventAllocFailed(e *Event) {
	if e.tp != nil {
		k.perfTraceDestroy(k.current(), e, false) // event->destroy() = tp_perf_event_destroy()
	}
	k.pmuDestroy(e)
}

func init() {
	RegisterObservable("callchain.events", "events holding the callchain buffers now (callchain.c's nr_callchain_events: parentless events with PERF_SAMPLE_CALLCHAIN)",
		func(k *Kernel) int64 { return int64(k.callchain.nrEvents) })
	RegisterObservable("callchain.buffers", "1 while callchain_cpus_entries is allocated (the first callchain event's get_callchain_buffers() to the last one's put)",
		func(k *Kernel) int64 {
			if k.callchain.allocated {
				return 1
			}
			return 0
		})
}
