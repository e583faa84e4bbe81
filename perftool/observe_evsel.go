package perftool

import (
	"slices"

	"perfsim/scenarios"
)

// perf.samples[EVENT] is perf.samples of one evsel: the PERF_RECORD_SAMPLEs
// in perf.data whose sample id names an evsel called EVENT, as perf's reader
// attributes them (evlist__id2evsel(), PerfData.evselOf), never by the kernel
// event that wrote them, so it says what the perf.data the model wrote holds.
// EVENT is the evsel's name (evsel__name(): sched:sched_switch, cs,
// cpu-clock/period=1000/, cycles:u); evsels of one name add up, as the lines
// of `perf script -F event` do. The evsels of a PERF_SAMPLE_READ group
// (`{a,b}:S`) differ: perf.data has the leader's samples only, which perf
// script and perf report split into one per member whose value moved
// (deliver_sample_group()); this counts the records.
const evselSamples = "perf.samples"

func init() {
	sessionObservables = append(sessionObservables, struct{ name, help string }{
		evselSamples + "[" + scenarios.EventPlaceholder + "]",
		"PERF_RECORD_SAMPLE records in perf.data of one event, attributed by sample id (evlist__id2evsel()); " +
			"EVENT is written as perf script -F event names it: r.perf.samples[syscalls:sys_enter_close], " +
			"r.perf.samples[cpu-clock/period=1000/]; a {...}:S group's member has none (perf script splits the leader's)",
	})
}

// EventNames are the names of the session's evsels, as perf names them, in
// evlist order, each once.
// tools/perf/util/evsel.c: evsel__name()
func (ss *Session) EventNames() []string {
	var out []string
	for _, a := range ss.Data.Attrs {
		if !slices.Contains(out, a.Name) {
			out = append(out, a.Name)
		}
	}
	return out
}

// observeEvsel answers an indexed session observable (perf.samples[EVENT]);
// ok is false for another name or an event the session does not have.
func (ss *Session) observeEvsel(name string) (int64, bool) {
	base, event, indexed := scenarios.CutEventIndex(name)
	if !indexed || base != evselSamples {
		return 0, false
	}
	var st DataStats
	var n int64
	found := false
	for i, a := range ss.Data.Attrs {
		if a.Name != event {
			continue
		}
		if !found {
			st, found = ss.Data.Stats(), true
		}
		if i < len(st.EvselSamples) {
			n += st.EvselSamples[i]
		}
	}
	return n, found
}
