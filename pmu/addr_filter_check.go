package pmu

import (
	"fmt"

	"perfsim/uapi"
)

// CheckAddrFilter is what PERF_EVENT_IOC_SET_FILTER with filter would
// return on an event of PMU type typ, decided without an event, for simrun
// check: the PMU's address filters (ok false: the PMU has none, so the
// filter is no address filter), perf_event_parse_addr_filter() with
// kern_path() (a file filter on a CPU-wide event, taskCtx false, is
// EOPNOTSUPP) and pmu->addr_filters_validate(). The error names the errno
// and the C function that returns it.
// kernel/events/core.c: perf_event_set_addr_filter()
func (k *Kernel) CheckAddrFilter(typ uint32, filter string, taskCtx bool) (ok bool, err error) {
	var ap AddrFilterPMU
	for _, p := range k.pmus {
		if a, isAF := p.(AddrFilterPMU); isAF && p.Type() == typ && a.NrAddrFilters() > 0 {
			ap = a
		}
	}
	if ap == nil {
		return false, nil
	}
	if len(filter) >= PageSize { // strndup_user(arg, PAGE_SIZE)
		return true, fmt.Errorf("%s from strndup_user(): %d bytes, at most %d", uapi.EINVAL.Name(), len(filter), PageSize-1)
	}
	filters, _, perr := ParseAddrFilter(filter, taskCtx, k.kernPath)
	if perr != nil {
		fe := perr.(*AddrFilterError)
		at := "at the end of the string"
		if fe.Token != "" {
			at = fmt.Sprintf("at %q", fe.Token)
		}
		return true, fmt.Errorf("%s from perf_event_parse_addr_filter() %s", fe.Errno.Name(), at)
	}
	if verr := ap.AddrFiltersValidate(filters); verr != nil {
		var en uapi.Errno
		if e, isErrno := verr.(uapi.Errno); isErrno {
			en = e
		}
		return true, fmt.Errorf("%s from the driver's addr_filters_validate()", en.Name())
	}
	return true, nil
}
