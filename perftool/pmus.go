package perftool

import (
	"perfsim/pmu"
	"perfsim/uapi"
)

// Simulated type numbers of the dynamic AUX PMUs. The kernel hands these out
// from an idr starting at PERF_TYPE_MAX (perf_pmu_register); the simulator
// fixes them so scenarios are reproducible.
const (
	TypeIntelPT = 8
	TypeCSETM   = 9
)

// formatField is one sysfs format term: "config:0-3", "config2:32-63", ...
type formatField struct {
	word   int // 0 config, 1 config1, 2 config2, 3 config3
	lo, hi uint
}

// auxPMU is a dynamic PMU perf knows by name (/sys/bus/event_source/devices/NAME).
type auxPMU struct {
	name    string
	typ     uint32
	formats map[string]formatField
	// defaultConfig is what perf_pmu__get_default_config() puts in config.
	defaultConfig uint64
	caps          uint32 // struct pmu::capabilities of the kernel driver
}

// arch/x86/events/intel/pt.c: PMU_FORMAT_ATTR(...)
var intelPT = auxPMU{
	name: "intel_pt", typ: TypeIntelPT,
	formats: map[string]formatField{
		"pt": {0, 0, 0}, "cyc": {0, 1, 1}, "pwr_evt": {0, 4, 4}, "fup_on_ptw": {0, 5, 5},
		"mtc": {0, 9, 9}, "tsc": {0, 10, 10}, "noretcomp": {0, 11, 11}, "ptw": {0, 12, 12},
		"branch": {0, 13, 13}, "mtc_period": {0, 14, 17}, "cyc_thresh": {0, 19, 22},
		"psb_period": {0, 24, 27}, "event": {0, 31, 31}, "notnt": {0, 55, 55},
	},
	// tools/perf/arch/x86/util/intel-pt.c: intel_pt_default_config():
	// "tsc,mtc,mtc_period=3,psb_period=3" plus pt,branch = 0x300e601 with the
	// simulated caps (mtc, psb_cyc) present.
	defaultConfig: 0x300e601,
	caps:          pmu.PERF_PMU_CAP_EXCLUSIVE | pmu.PERF_PMU_CAP_ITRACE | pmu.PERF_PMU_CAP_AUX_PAUSE,
}

// drivers/hwtracing/coresight/coresight-etm-perf.c: PMU_FORMAT_ATTR(...)
var csETM = auxPMU{
	name: "cs_etm", typ: TypeCSETM,
	formats: map[string]formatField{
		"preset": {0, 0, 3}, "branch_broadcast": {0, 8, 8}, "cycacc": {0, 12, 12},
		"contextid": {0, 14, 14}, "contextid1": {0, 14, 14}, "contextid2": {0, 15, 15},
		"timestamp": {0, 28, 28}, "retstack": {0, 29, 29},
		"sinkid": {2, 0, 31}, "configid": {2, 32, 63}, "cc_threshold": {3, 0, 11},
	},
	caps: pmu.PERF_PMU_CAP_EXCLUSIVE | pmu.PERF_PMU_CAP_ITRACE | pmu.PERF_PMU_CAP_AUX_PAUSE,
}

var auxPMUs = []*auxPMU{&intelPT, &csETM}

func lookupAuxPMU(name string) *auxPMU {
	for _, p := range auxPMUs {
		if p.name == name {
			return p
		}
	}
	return nil
}

// Legacy event names (tools/perf/util/parse-events.c: event_symbols_hw/_sw).
type legacy struct {
	typ    uint32
	config uint64
}

var legacyEvents = map[string]legacy{
	"cpu-cycles":              {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_CPU_CYCLES},
	"cycles":                  {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_CPU_CYCLES},
	"instructions":            {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_INSTRUCTIONS},
	"cache-references":        {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_CACHE_REFERENCES},
	"cache-misses":            {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_CACHE_MISSES},
	"branch-instructions":     {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	"branches":                {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	"branch-misses":           {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_BRANCH_MISSES},
	"bus-cycles":              {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_BUS_CYCLES},
	"stalled-cycles-frontend": {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	"idle-cycles-frontend":    {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	"stalled-cycles-backend":  {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	"idle-cycles-backend":     {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	"ref-cycles":              {uapi.PERF_TYPE_HARDWARE, uapi.PERF_COUNT_HW_REF_CPU_CYCLES},
	"cpu-clock":               {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_CPU_CLOCK},
	"task-clock":              {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_TASK_CLOCK},
	"page-faults":             {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_PAGE_FAULTS},
	"faults":                  {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_PAGE_FAULTS},
	"context-switches":        {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_CONTEXT_SWITCHES},
	"cs":                      {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_CONTEXT_SWITCHES},
	"cpu-migrations":          {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_CPU_MIGRATIONS},
	"migrations":              {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_CPU_MIGRATIONS},
	"minor-faults":            {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_PAGE_FAULTS_MIN},
	"major-faults":            {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	"alignment-faults":        {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_ALIGNMENT_FAULTS},
	"emulation-faults":        {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_EMULATION_FAULTS},
	"dummy":                   {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_DUMMY},
	"bpf-output":              {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_BPF_OUTPUT},
	"cgroup-switches":         {uapi.PERF_TYPE_SOFTWARE, uapi.PERF_COUNT_SW_CGROUP_SWITCHES},
}
