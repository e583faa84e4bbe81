package pt

import (
	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/pmu"
	"perfsim/uapi"
)

// Intel PT IP filtering (SDM vol. 3C, "IP Filtering"): up to
// CPUID.(EAX=14H,ECX=1):EAX[2:0] address ranges, each RTIT_ADDRn_A..B with
// its RTIT_CTL.ADDRn_CFG: 1 FilterEn (trace only while the IP is inside one
// of the filter ranges: TIP.PGE on entering, TIP.PGD on leaving), 2
// TraceStop (tracing stops when the IP enters the range: RTIT_STATUS.Stopped).
// The driver keeps per event the values computed from its ranges
// (struct pt_filters, hw.addr_filters) and per CPU what the MSRs hold.

// ptFilter is struct pt_filter: one range's MSR values and ADDRn_CFG.
type ptFilter struct {
	msrA, msrB uint64
	config     uint64 // 1 FilterEn, 2 TraceStop
}

// ptFilters is struct pt_filters.
type ptFilters struct {
	filter [4]ptFilter
	nr     int
}

// x86VirtBits is boot_cpu_data.x86_virt_bits (4-level paging).
const x86VirtBits = 48

// NrAddrFilters implements pmu.AddrFilterPMU: pmu->nr_addr_filters is
// intel_pt_validate_hw_cap(PT_CAP_num_address_ranges), the "pmu intel_pt
// addr-ranges=N" attribute (CPUID leaf 0x14 subleaf 1 EAX[2:0]; 2 by default).
// arch/x86/events/intel/pt.c: pt_init()
func (p *PMU) NrAddrFilters() int { return p.addrRanges }

// AddrFiltersValidate implements pmu.AddrFilterPMU: PT has no single-address
// triggers and no "start" filters (EOPNOTSUPP), and no more filters than it
// has ranges (EOPNOTSUPP).
// arch/x86/events/intel/pt.c: pt_event_addr_filters_validate()
func (p *PMU) AddrFiltersValidate(filters []pmu.AddrFilter) error {
	for i, f := range filters {
		if f.Size == 0 || f.Action == pmu.PERF_ADDR_FILTER_ACTION_START {
			return uapi.EOPNOTSUPP
		}
		if i+1 > p.addrRanges {
			return uapi.EOPNOTSUPP
		}
	}
	return nil
}

// addrFiltersInit is pt_addr_filters_init(): an inherited event starts with
// a copy of its parent's hw.addr_filters.
// arch/x86/events/intel/pt.c: pt_addr_filters_init()
func (p *PMU) addrFiltersInit(e *pmu.Event) {
	if p.addrRanges == 0 {
		return
	}
	f := &ptFilters{}
	if pe := e.Parent(); pe != nil && p.filters[pe] != nil {
		*f = *p.filters[pe]
	}
	p.filters[e] = f
}

// AddrFiltersSync implements pmu.AddrFilterPMU: each filter's range as MSR
// values, clamped to canonical addresses; a file filter whose file is not
// mapped (start 0) gets the empty range 0..0, which "will simply produce no
// data".
// arch/x86/events/intel/pt.c: pt_event_addr_filters_sync()
func (p *PMU) AddrFiltersSync(e *pmu.Event) {
	filters := p.filters[e]
	if filters == nil {
		return
	}
	fr := e.AddrFilterRanges()
	n := 0
	for i, f := range e.AddrFilters() {
		if i >= len(fr) || i >= len(filters.filter) {
			break
		}
		var a, b uint64
		if f.Path != "" && fr[i].Start == 0 {
			a, b = 0, 0
		} else {
			sz := fr[i].Size - 1
			a = fr[i].Start
			if a > ^uint64(0)-sz {
				b = ^uint64(0)
			} else {
				b = a + sz
			}
			a, b = clampToGECanonical(a), clampToLECanonical(b)
			if b < a {
				a, b = 0, 0
			}
		}
		cfg := uint64(2)
		if f.Action == pmu.PERF_ADDR_FILTER_ACTION_FILTER {
			cfg = 1
		}
		filters.filter[i] = ptFilter{msrA: a, msrB: b, config: cfg}
		n++
	}
	filters.nr = n
}

func canonical(v uint64) bool {
	top := int64(v) >> (x86VirtBits - 1)
	return top == 0 || top == -1
}

// clampToGECanonical: the canonical address at or above v.
// arch/x86/events/intel/pt.c: clamp_to_ge_canonical_addr()
func clampToGECanonical(v uint64) uint64 {
	if canonical(v) {
		return v
	}
	return 0xffff800000000000 // -BIT_ULL(vaddr_bits - 1)
}

// clampToLECanonical: the canonical address at or below v.
// arch/x86/events/intel/pt.c: clamp_to_le_canonical_addr()
func clampToLECanonical(v uint64) uint64 {
	if canonical(v) {
		return v
	}
	return uint64(1)<<(x86VirtBits-1) - 1
}

// configFilters is pt_config_filters(): sync the event's filters and load
// them into this CPU's RTIT_ADDRn MSRs and RTIT_CTL's ADDRn_CFG.
// arch/x86/events/intel/pt.c: pt_config_filters()
func (p *PMU) configFilters(c *cpu.CPU, e *pmu.Event) {
	pt := &p.cpus[c.ID]
	filters := p.filters[e]
	if filters == nil {
		pt.filters = ptFilters{}
		return
	}
	p.k.PerfEventAddrFiltersSync(e)
	pt.filters = *filters
}

// ipFilter is the hardware's IP filter for a stretch executed at ip with
// the ranges RTIT_CTL enables: whether trace is generated (FilterEn: some
// filter range holds ip, or none is configured), and whether a TraceStop
// range holds it.
func (pt *ptCtx) ipFilter(ip uint64) (traced, stop bool) {
	anyFilter, inFilter := false, false
	for i := 0; i < pt.filters.nr; i++ {
		f := pt.filters.filter[i]
		in := ip >= f.msrA && ip <= f.msrB
		switch f.config {
		case 1:
			anyFilter = true
			inFilter = inFilter || in
		case 2:
			stop = stop || in
		}
	}
	return !anyFilter || inFilter, stop
}

// filterNames reports whether ip, executed in the address space m, is in
// code one of e's "filter" filters names: a kernel filter's range, or the
// bytes [offset, offset+size) of a file filter's file wherever m maps them.
// It is the simulator's oracle (what the user asked for), independent of
// the ranges the kernel computed.
func filterNames(e *pmu.Event, m *mm.MM, ip uint64) bool {
	for _, f := range e.AddrFilters() {
		if f.Action != pmu.PERF_ADDR_FILTER_ACTION_FILTER {
			continue
		}
		if f.Path == "" {
			if ip >= f.Offset && ip-f.Offset < f.Size {
				return true
			}
			continue
		}
		if m == nil {
			continue
		}
		v := m.Find(ip)
		if v == nil || v.File == nil || v.File != f.File() {
			continue
		}
		off := ip - v.Start + v.Pgoff*mm.PageSize
		if off >= f.Offset && off-f.Offset < f.Size {
			return true
		}
	}
	return false
}

// hasFilterFilter reports whether e has a "filter" (FilterEn) address filter.
func hasFilterFilter(e *pmu.Event) bool {
	for _, f := range e.AddrFilters() {
		if f.Action == pmu.PERF_ADDR_FILTER_ACTION_FILTER {
			return true
		}
	}
	return false
}
