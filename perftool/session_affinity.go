package perftool

import (
	"perfsim/sched"
	"perfsim/uapi"
)

// evlistEnable enables every group leader, CPU by CPU: perf moves itself to
// each CPU of the evlist (sched_setaffinity() to that CPU alone) and
// enables the evsels' fds of that CPU there, so event_function_call() finds
// the event's CPU is the caller's and runs the enable locally, in perf's
// own context, instead of interrupting whatever runs there with an IPI.
// Then perf's affinity is put back. With --per-thread (the dummy CPU map)
// nothing moves.
// tools/perf/util/evlist.c: __evlist__enable() with evlist__for_each_cpu(..., affinity)
func (ss *Session) evlistEnable(t *sched.Task) {
	ss.evlistToggle(t, uapi.PERF_EVENT_IOC_ENABLE, func(*Evsel) bool { return true })
}

// evlistDisable disables every group leader the same way, the immediate
// evsels (the dummy tracking event) in a second pass, last.
// tools/perf/util/evlist.c: __evlist__disable()
func (ss *Session) evlistDisable(t *sched.Task) {
	hasImm := false
	for _, imm := range []bool{false, true} {
		ss.evlistToggle(t, uapi.PERF_EVENT_IOC_DISABLE, func(e *Evsel) bool {
			hasImm = hasImm || e.Immediate
			return e.Immediate == imm
		})
		if !hasImm {
			break
		}
	}
}

// evlistToggle issues cmd on the fds of the group leaders that want says
// yes to, CPU by CPU in all_cpus order (evlist order within a CPU, each
// evsel's threads in order: evsel__enable_cpu()), with perf's affinity set
// to that CPU while it does.
// tools/perf/util/affinity.c: affinity__setup(), affinity__set(), affinity__cleanup()
func (ss *Session) evlistToggle(t *sched.Task, cmd uint64, want func(*Evsel) bool) {
	opens := ss.R.Opens(len(ss.S.M.CPUs))
	orig, changed := t.Allowed, false
	for _, c := range ss.mapCPUs() {
		if c >= 0 { // affinity__set(): "if (cpu == -1 ...) return;"
			ss.S.SetAffinity(t, sched.MaskOf(c))
			changed = true
		}
		for i, o := range opens {
			e := &ss.R.Evsels[o.Evsel]
			if o.CPU != c || !e.IsLeader(o.Evsel) || ss.FDs[i] < 0 || !want(e) {
				continue
			}
			ss.K.Ioctl(t, ss.FDs[i], cmd, 0)
		}
	}
	if changed {
		ss.S.SetAffinity(t, orig)
	}
}
