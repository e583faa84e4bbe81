package perftool

import (
	"perfsim/scenarios"
	"perfsim/sched"
)

func init() {
	RegisterAction(Action{Name: "read-counts", Args: []scenarios.ArgKind{scenarios.ArgCPU},
		Help: "a thread of perf (on cpuN if given) read()s every event fd of the session once, as perf stat reads its counters: " +
			"an inherit event's value is its own count plus child_count plus each live inherited copy's (the kernel's __perf_event_read_value(), judged by inherited-read-adds-up)",
		Do: func(ss *Session, args []string) {
			ss.ToolThread(cpuArg(args, 0), ss.readCounts)
		}})
}

// readCounts reads every open fd of the session: read(2) of a perf fd.
// tools/perf/util/evsel.c: evsel__read_counter() -> perf_evsel__read()
func (ss *Session) readCounts(t *sched.Task) {
	for _, fd := range ss.FDs {
		if fd < 0 {
			continue
		}
		_, _ = ss.K.Read(t, fd)
	}
}
