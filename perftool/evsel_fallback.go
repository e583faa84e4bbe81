package perftool

import (
	"errors"
	"fmt"
	"strings"

	"perfsim/uapi"
)

// evselFallback is evsel__fallback() for a kernel that refuses kernel
// profiling: an open that failed with EACCES, of an evsel that does not
// exclude the kernel, under perf_event_paranoid > 1 (perf reads the
// sysctl), is retried excluding the kernel and the hypervisor, the evsel
// renamed with a "u" modifier (after a ':' unless its name has one, or a
// '/', already: "cpu-clock:u", "cycles:Pu", "intel_pt//u"). An evsel that
// excludes user space is not retried (it would count nothing). It returns
// perf's message, which record__open() prints (as "Warning:") only with -v.
// perf 6.1 and today's (v6.17) are the same here; the cycles-to-cpu-clock
// fallback (a machine without the PMU) and exclude_guest's (EOPNOTSUPP)
// are not modelled: the simulated machine has both.
// tools/perf/util/evsel.c: evsel__fallback()
func evselFallback(e *Evsel, err error, paranoid int) (string, bool) {
	a := &e.Attr
	if !errors.Is(err, uapi.EACCES) || a.ExcludeKernel || paranoid <= 1 || a.ExcludeUser {
		return "", false
	}
	sep := ":"
	if strings.ContainsAny(e.Name, "/:") {
		sep = ""
	}
	e.Name += sep + "u"
	a.ExcludeKernel, a.ExcludeHV = true, true
	// the two spaces before "samples" are perf's (two string literals)
	return fmt.Sprintf("kernel.perf_event_paranoid=%d, trying to fall back to excluding kernel and hypervisor  samples", paranoid), true
}
