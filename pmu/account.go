package pmu

import "perfsim/cpu"

// The global counts of events that asked for side-band records
// (nr_switch_events, nr_mmap_events, nr_cgroup_events): each side-band
// path returns early while its count is 0. Only original events count: an
// inherited copy is neither accounted nor unaccounted, so once the original
// is closed its children, until they are torn down with it, no longer keep
// the side band on.

// accountEvent counts an event that perf_event_alloc() made.
// kernel/events/core.c: account_event()
func (k *Kernel) accountEvent(e *Event) { k.accountSideband(e, 1) }

// unaccountEvent drops it again when the event is freed.
// kernel/events/core.c: unaccount_event()
func (k *Kernel) unaccountEvent(e *Event) { k.accountSideband(e, -1) }

func (k *Kernel) accountSideband(e *Event, d int) {
	if e.parent != nil { // "if (event->parent) return;"
		return
	}
	a := &e.Attr
	if a.ContextSwitch {
		if k.M.FootprintListening() {
			k.curCPU().AccessMarkedOnly(nrSwitchEvents, "nr_switch_events", cpu.AtomicAdd, "account_event") // kernel/events/core.c: account_event(): atomic_inc(&nr_switch_events)
		}
		k.nrSwitchEvents += d
	}
	if a.Mmap || a.MmapData {
		k.nrMmapEvents += d
	}
	if a.Cgroup {
		k.nrCgroupEvents += d
	}
}
