package perftool

import (
	"sort"

	"perfsim/uapi"
)

// swEventHelp says where the kernel counts each software event, as the
// simulator models it.
var swEventHelp = map[uint64]string{
	uapi.PERF_COUNT_SW_CPU_CLOCK:        "an hrtimer per event on the CPU (cpu_clock_event_*)",
	uapi.PERF_COUNT_SW_TASK_CLOCK:       "an hrtimer per event while the task runs (task_clock_event_*)",
	uapi.PERF_COUNT_SW_PAGE_FAULTS:      "every user page fault, at the entry of do_user_addr_fault(); sample addr = the faulting address",
	uapi.PERF_COUNT_SW_CONTEXT_SWITCHES: "each context switch (perf_sw_event_sched() in __schedule())",
	uapi.PERF_COUNT_SW_CPU_MIGRATIONS:   "each task migration (set_task_cpu())",
	uapi.PERF_COUNT_SW_PAGE_FAULTS_MIN:  "a page fault that found or allocated the page (mm_account_fault())",
	uapi.PERF_COUNT_SW_PAGE_FAULTS_MAJ:  "a page fault that read a file page from disk (VM_FAULT_MAJOR, mm_account_fault())",
	uapi.PERF_COUNT_SW_ALIGNMENT_FAULTS: "never counted: no alignment faults in the model",
	uapi.PERF_COUNT_SW_EMULATION_FAULTS: "never counted: no emulated instructions in the model",
	uapi.PERF_COUNT_SW_DUMMY:            "counts nothing: side-band records only",
	uapi.PERF_COUNT_SW_BPF_OUTPUT:       "never counted: no BPF programs in the model",
	uapi.PERF_COUNT_SW_CGROUP_SWITCHES:  "never counted: no cgroups in the model",
}

// EventName is one name perf record -e takes for a legacy event.
type EventName struct {
	Name   string
	Type   uint32
	Config uint64
	Help   string // for a software event: where the kernel counts it
}

// LegacyEventNames lists the hardware and software event names
// (tools/perf/util/parse-events.c: event_symbols_hw, event_symbols_sw), by name.
func LegacyEventNames() []EventName {
	var out []EventName
	for n, l := range legacyEvents {
		e := EventName{Name: n, Type: l.typ, Config: l.config}
		if l.typ == uapi.PERF_TYPE_SOFTWARE {
			e.Help = swEventHelp[l.config]
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
