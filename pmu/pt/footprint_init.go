package pt

import (
	"perfsim/cpu"
	"perfsim/pmu"
)

// The footprints of intel_pt's callbacks that perf's setup paths call
// (arch/x86/events/intel/pt.c):
//
//   - pt_event_init() (pmu.EventInitAnnotated), from perf_try_init_event():
//     the event's attr (its own, not yet published) against pt_pmu's type
//     and capabilities (pt_event_valid(): constant after pt_init()); then
//     pt_addr_filters_init(): a new struct pt_filters, a copy of the
//     parent's (event->parent->hw.addr_filters: its contents, which the
//     parent's pt_event_addr_filters_sync() writes) for an inherited
//     event, and event->hw.addr_filters set (the model's table of the
//     events' filters: filtersTableKey). x86_add_exclusive() is not
//     modelled (no state: the model has no LBR/BTS users to exclude).
//   - pt_buffer_setup_aux() (pmu.AuxSetupAnnotated), from rb_alloc_aux():
//     a new struct pt_buffer and its ToPA tables, from the event's cpu, the
//     area's size and mode, and pt_pmu's capabilities (constant); the
//     model finds the buffer through event->rb, which perf_mmap_aux()
//     annotates.
//   - pt_event_addr_filters_sync() (pmu.AddrFiltersSyncAnnotated), from
//     perf_event_addr_filters_sync() (which annotates the filter list and
//     ranges it reads): the event's struct pt_filters written.

// EventInitAnnotated implements pmu.EventInitAnnotated.
func (p *PMU) EventInitAnnotated() bool { return true }

// AuxSetupAnnotated implements pmu.AuxSetupAnnotated.
func (p *PMU) AuxSetupAnnotated() bool { return true }

// filtersKey is an event's struct pt_filters (event->hw.addr_filters'
// target), by the event's key: pt_event_addr_filters_sync() writes it,
// pt_config_filters() and a child's pt_addr_filters_init() read it.
type filtersKey struct {
	e *pmu.Event
	f *ptFilters
}

// FootprintKey implements cpu.FootprintKeyer.
func (k filtersKey) FootprintKey() string { return k.e.FootprintKey() + "/struct pt_filters" }

// FootprintExtent implements the write audit's extent.
func (k filtersKey) FootprintExtent() []any { return []any{k.f} }

// filtersTableKey is the model's table of the events' pt_filters
// (PMU.filters), whose entry for e pt_addr_filters_init() makes: e's
// event->hw.addr_filters as the model keeps it.
type filtersTableKey struct {
	p *PMU
	e *pmu.Event
}

// FootprintKey implements cpu.FootprintKeyer.
func (k filtersTableKey) FootprintKey() string {
	return k.e.FootprintKey() + "/hw.addr_filters (the model's table)"
}

// FootprintExtent implements the write audit's extent.
func (k filtersTableKey) FootprintExtent() []any { return []any{&k.p.filters} }

// curCPU is the CPU the engine runs (smp_processor_id()), nil outside a
// CPU's lane.
func (p *PMU) curCPU() *cpu.CPU { return p.k.M.RunningCPU() }

// accessAddrFiltersInit annotates pt_addr_filters_init() for e, before it
// runs: the parent's filters copied, e's set.
func (p *PMU) accessAddrFiltersInit(e *pmu.Event) {
	c := p.curCPU()
	if c == nil {
		return
	}
	if pe := e.Parent(); pe != nil {
		c.AccessMarkedOnly(pe, "event->hw.addr_filters", cpu.PlainRead, "pt_addr_filters_init") // pt.c: pt_addr_filters_init(): if (event->parent) memcpy(filters, event->parent->hw.addr_filters, ...)
		if f := p.filters[pe]; f != nil {
			c.AccessMarkedOnly(filtersKey{pe, f}, "struct pt_filters", cpu.PlainRead, "pt_addr_filters_init") // ... its contents
		}
	}
	c.AccessMarkedOnly(e, "event->hw.addr_filters", cpu.PlainWrite, "pt_addr_filters_init")                     // pt.c: pt_addr_filters_init(): event->hw.addr_filters = filters
	c.AccessMarkedOnly(filtersTableKey{p, e}, "event->hw.addr_filters", cpu.PlainWrite, "pt_addr_filters_init") // the model's table: e's entry
}

// AccessAddrFiltersSyncDriver implements pmu.AddrFiltersSyncAnnotated:
// pt_event_addr_filters_sync() reads event->hw.addr_filters and writes the
// struct pt_filters it points to (each range's msr_a, msr_b, config, and
// nr_filters).
// arch/x86/events/intel/pt.c: pt_event_addr_filters_sync()
func (p *PMU) AccessAddrFiltersSyncDriver(c *cpu.CPU, e *pmu.Event) {
	c.AccessMarkedOnly(e, "event->hw.addr_filters", cpu.PlainRead, "pt_event_addr_filters_sync") // pt.c: pt_event_addr_filters_sync(): struct pt_filters *filters = event->hw.addr_filters
	if f := p.filters[e]; f != nil {
		c.AccessMarkedOnly(filtersKey{e, f}, "struct pt_filters", cpu.PlainWrite, "pt_event_addr_filters_sync") // pt.c: pt_event_addr_filters_sync(): filters->filter[range].msr_a = msr_a; ...; filters->nr_filters = range
	}
}
