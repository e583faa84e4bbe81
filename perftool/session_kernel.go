package perftool

import (
	"strings"
	"sync"

	"perfsim/pmu"
)

// KernelTracepoints is the tracepoint catalogue as the pmu core needs it
// (pmu.Options.Tracepoints): ids and PERF_SAMPLE_RAW sizes. pmu cannot import
// this package, so whoever builds the kernel passes it.
// The catalogue never changes after the package loads, so it is made once
// and shared (callers must not write it): a kernel per explored schedule
// would otherwise rebuild it, and pmu's index of it, every time.
func KernelTracepoints() []pmu.TracepointInfo {
	kernelTPOnce.Do(func() { kernelTP = kernelTracepoints() })
	return kernelTP
}

var (
	kernelTPOnce sync.Once
	kernelTP     []pmu.TracepointInfo
)

func kernelTracepoints() []pmu.TracepointInfo {
	out := make([]pmu.TracepointInfo, len(catalogue))
	for i := range catalogue {
		tp := &catalogue[i]
		out[i] = pmu.TracepointInfo{System: tp.System, Name: tp.Name, ID: tp.ID, RawSize: tp.RawSize()}
		for _, f := range tp.Fields {
			out[i].Fields = append(out[i].Fields, pmu.FieldOfDecl(f.Decl, f.Offset, f.Size, f.Signed))
		}
		if tp.System == "syscalls" && strings.HasPrefix(tp.Name, "sys_enter_") {
			out[i].NArgs = len(tp.Fields) - 1 // after int __syscall_nr
		}
	}
	return out
}
