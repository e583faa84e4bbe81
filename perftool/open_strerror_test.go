package perftool

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/uapi"
)

// TestOpenStrerror: what perf says of a failed perf_event_open(), by
// errno and by what the attr asked. The branch-stack case is what perf
// 6.1 printed on this machine for `perf record -e cpu-clock --call-graph
// lbr -- true` ("Error:" on a line of its own, exit 255, an empty
// perf.data).
func TestOpenStrerror(t *testing.T) {
	ev := func(name string, a pmu.Attr) *Evsel { return &Evsel{Name: name, Attr: a} }
	workload, cpus := &Target{Workload: []string{"true"}}, &Target{CPUList: []int{5}}
	for _, tc := range []struct {
		name   string
		e      *Evsel
		target *Target
		tool   Tool
		err    uapi.Errno
		want   string
	}{
		{"branch stack", ev("cpu-clock", pmu.Attr{SampleType: uapi.PERF_SAMPLE_BRANCH_STACK, SamplePeriod: 4000}), workload, ToolPerf61, uapi.EOPNOTSUPP,
			"cpu-clock: PMU Hardware or event type doesn't support branch stack sampling."},
		{"aux_action, today", ev("cycles", pmu.Attr{AuxPause: true, SamplePeriod: 1}), workload, ToolToday, uapi.EOPNOTSUPP,
			"cycles: PMU Hardware doesn't support 'aux_action' feature"},
		{"aux_action, perf 6.1 does not know it", ev("cycles", pmu.Attr{AuxPause: true, SamplePeriod: 1}), workload, ToolPerf61, uapi.EOPNOTSUPP,
			"cycles: PMU Hardware doesn't support sampling/overflow-interrupts. Try 'perf stat'"},
		{"precise", ev("cycles:ppp", pmu.Attr{PreciseIP: 3}), workload, ToolToday, uapi.EOPNOTSUPP,
			"'precise' request may not be supported. Try removing 'p' modifier."},
		{"not supported", ev("intel_pt//", pmu.Attr{}), workload, ToolToday, uapi.ENOENT, "The intel_pt// event is not supported."},
		{"out-of-range CPU", ev("cpu-clock", pmu.Attr{}), cpus, ToolToday, uapi.ENODEV, "No such device - did you specify an out-of-range profile CPU?"},
		{"EINVAL per thread", ev("cycles", pmu.Attr{}), workload, ToolToday, uapi.EINVAL, "Invalid event (cycles) in per-thread mode, enable system wide with '-a'."},
		{"EINVAL with -C", ev("cycles", pmu.Attr{}), cpus, ToolToday, uapi.EINVAL,
			"The sys_perf_event_open() syscall returned with 22 (Invalid argument) for event (cycles).\n\"dmesg | grep -i perf\" may provide additional information.\n"},
		{"EINVAL with -C, perf 6.1", ev("cycles", pmu.Attr{}), cpus, ToolPerf61, uapi.EINVAL,
			"The sys_perf_event_open() syscall returned with 22 (Invalid argument) for event (cycles).\n/bin/dmesg | grep -i perf may provide additional information.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, openStrerror(tc.e, tc.target, tc.tool, tc.err, 2)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
