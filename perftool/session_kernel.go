package perftool

import (
	"strings"

	"perfsim/pmu"
)

// KernelTracepoints is the tracepoint catalogue as the pmu core needs it
// (pmu.Options.Tracepoints): ids and PERF_SAMPLE_RAW sizes. pmu cannot import
// this package, so whoever builds the kernel passes it.
func KernelTracepoints() []pmu.TracepointInfo {
	out := make([]pmu.TracepointInfo, len(catalogue))
	for i := range catalogue {
		tp := &catalogue[i]
		out[i] = pmu.TracepointInfo{System: tp.System, Name: tp.Name, ID: tp.ID, RawSize: tp.RawSize()}
		if tp.System == "syscalls" && strings.HasPrefix(tp.Name, "sys_enter_") {
			out[i].NArgs = len(tp.Fields) - 1 // after int __syscall_nr
		}
	}
	return out
}
