package perftool

import (
	"strconv"

	"perfsim/pmu"
	"perfsim/uapi"
)

// ParseEventAttr parses one event as perf record's -e takes it
// ("cycles/period=1000/u", "syscalls:sys_enter_getpid", "intel_pt//") and
// returns the perf_event_attr a program passing that event to
// perf_event_open() would build: the type and config the event names, its
// modifiers, and its generic terms applied as evsel__apply_config_terms()
// applies them (period, freq, inherit, overwrite, ...), without the
// defaults perf record adds (sample_type, sample_id_all, ...), nor the
// restriction of its parser to a tracepoint's terms (the kernel takes a
// tracepoint's period). An argument naming several events (a group, a
// glob) is an error.
//
// tools/perf/util/parse-events.c: parse_events(); tools/perf/util/evsel.c: evsel__apply_config_terms()
func ParseEventAttr(arg string, opts Options) (pmu.Attr, error) {
	if opts.NrCPUs <= 0 {
		opts.NrCPUs = 1
	}
	p := &eventParser{opts: &opts, anyTerm: true}
	if err := p.parse(arg); err != nil {
		return pmu.Attr{}, err
	}
	if len(p.evsels) != 1 {
		return pmu.Attr{}, &Error{Option: "-e " + arg, Reason: "names " + strconv.Itoa(len(p.evsels)) + " events; open takes one", Errno: uapi.EINVAL}
	}
	e := &p.evsels[0]
	a := e.Attr
	for _, t := range e.terms {
		v, _ := strconv.ParseUint(t.val, 0, 64)
		applyAttrTerm(&a, t.key, v)
	}
	switch e.auxAction {
	case "start-paused":
		a.AuxStartPaused = true
	case "pause":
		a.AuxPause = true
	case "resume":
		a.AuxResume = true
	}
	if e.auxSample != 0 {
		a.AuxSampleSize = e.auxSample
	}
	return a, nil
}
