package perftool

import (
	"fmt"
	"sort"
	"strings"
)

// ExitError is perf record giving up while it parses its command line: it
// prints Text on stderr (then its usage) and exits with Status, before it
// opens an event, forks the workload or creates perf.data. The scenario is
// not refused for it: the session is one that failed (Session.Err), as it
// would on that perf (an option a newer perf has, on an older one).
type ExitError struct {
	Status int
	Text   string
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("perf record exited with status %d:\n%s", e.Status, e.Text)
}

// perf61ConfigTerms are perf 6.1's config_term_names after "<sysfs term>"
// as parse_events_formats_error_string() lists them (tools/perf/util/parse-events.c,
// v6.1: no config3, no aux-action).
const perf61ConfigTerms = "config,config1,config2,name,period,freq,branch_type,time,call-graph,stack-size,no-inherit,inherit,max-stack,nr,no-overwrite,overwrite,driver-config,percore,aux-output,aux-sample-size,metric-id"

// perf61TermWidth is get_term_width() without a terminal (80), less the two
// quotes parse_events_error__print() adds.
const perf61TermWidth = 80 - 2

// perf61EventError is what perf 6.1 prints for an event string it cannot
// parse: the error at byte errIdx of event, cut to the terminal width, with
// its help; with repeat, the parser recorded the error twice and perf prints
// the first again as "Initial error:"; then the hint before its usage.
// tools/perf/util/parse-events.c (v6.1): __parse_events_error__print(), parse_events_error__print(), parse_events_option()
func perf61EventError(event string, errIdx int, errStr, help string, repeat bool) string {
	one := func() string {
		const str = "event syntax error: "
		maxLen := perf61TermWidth - len(str)
		cut := 0
		if errIdx > 13 { // max_err_idx
			cut = errIdx - 13
		}
		buf := []byte(event[cut:])
		if len(buf) > maxLen {
			buf = buf[:maxLen]
		}
		if cut > 0 {
			buf[0], buf[1] = '.', '.'
		}
		if len(event)-cut > maxLen {
			buf[maxLen-1], buf[maxLen-2] = '.', '.'
		}
		idx := len(str) + errIdx - cut
		s := fmt.Sprintf("%s'%s'\n%*s\\___ %s\n", str, buf, idx+1, "", errStr)
		if help != "" {
			s += "\n" + help + "\n"
		}
		return s
	}
	s := one()
	if repeat {
		s += "\nInitial error:\n" + one()
	}
	return s + "Run 'perf list' for a list of valid events"
}

// perf61UnknownTerm is perf 6.1's refusal of a term it does not know (a
// term newer perfs added, aux-action), for the kind of event it is on:
// a PMU's (its formats, in the order readdir() lists its sysfs format
// directory, then the config terms; reported twice), a tracepoint's, or a
// legacy event's.
// tools/perf/util/pmu.c (v6.1): pmu_config_term(); parse-events.c: config_term_common(), config_term_tracepoint()
func perf61UnknownTerm(e *Evsel, key, event string, errIdx int) *ExitError {
	var text string
	switch {
	case e.Tracepoint != nil:
		// config_term_tracepoint()'s help ends with a newline of its own
		text = perf61EventError(event, errIdx, "unknown term", "valid terms: call-graph,stack-size\n", false)
	case lookupAuxPMU(e.PMU) != nil:
		ap := lookupAuxPMU(e.PMU)
		help := "valid terms: " + strings.Join(sysfsOrder(ap.formatNames()), ",") + "," + perf61ConfigTerms
		text = perf61EventError(event, errIdx, fmt.Sprintf("unknown term '%s' for pmu '%s'", key, ap.name), help, true)
	default:
		text = perf61EventError(event, errIdx, "unknown term", "valid terms: "+perf61ConfigTerms, false)
	}
	return &ExitError{Status: 129, Text: text + "\n"}
}

// formatNames are the PMU's sysfs format terms.
func (p *auxPMU) formatNames() []string {
	var out []string
	for n := range p.formats {
		out = append(out, n)
	}
	return out
}

// sysfsOrder sorts sysfs file names in the order readdir() returns them:
// kernfs keeps a directory's nodes in an rbtree by name hash, then name.
// fs/kernfs/dir.c: kernfs_name_hash(), kernfs_sd_compare()
func sysfsOrder(names []string) []string {
	sort.Slice(names, func(i, j int) bool {
		hi, hj := kernfsNameHash(names[i]), kernfsNameHash(names[j])
		if hi != hj {
			return hi < hj
		}
		return names[i] < names[j]
	})
	return names
}

// kernfsNameHash is kernfs_name_hash(name, NULL) on a 64-bit kernel:
// partial_name_hash() over the bytes, end_name_hash() (hash_long(hash, 32)),
// 31 bits, 0, 1 and INT_MAX reserved.
// fs/kernfs/dir.c: kernfs_name_hash(); include/linux/stringhash.h
func kernfsNameHash(name string) uint32 {
	var hash uint64
	for i := 0; i < len(name); i++ {
		c := uint64(name[i])
		hash = (hash + (c << 4) + (c >> 4)) * 11
	}
	h := uint32((hash*0x61C8864680B583EB)>>32) & 0x7fffffff // GOLDEN_RATIO_64
	if h < 2 {
		h += 2
	}
	if h >= 0x7fffffff {
		h = 0x7fffffff - 1
	}
	return h
}

// missingPMU is perf's refusal of an event of a PMU the machine does not
// have (no /sys/bus/event_source/devices/NAME), at byte errIdx of event:
// perf 6.1's "Cannot find PMU" (parse_events_add_pmu()), today's "Bad event
// or PMU" with its help (the PMU looked up by the parser first); status 129
// as on this machine (perf 6.1 without intel_pt: `perf record -e intel_pt//
// -- true`).
// tools/perf/util/parse-events.c: parse_events_add_pmu() (v6.1); parse_events_multi_pmu_add_or_add_pmu()
func missingPMU(event string, errIdx int, name string, tool Tool) *ExitError {
	if errIdx < 0 {
		errIdx = 0
	}
	text := perf61EventError(event, errIdx, "Bad event or PMU", "Unable to find PMU or event on a PMU of '"+name+"'", false)
	if tool == ToolPerf61 {
		// the error's index is 0 even in a group: "{cycles,intel_pt//}" is
		// marked at its '{' on this machine
		text = perf61EventError(event, 0, "Cannot find PMU `"+name+"'. Missing kernel support?", "", false)
	}
	return &ExitError{Status: 129, Text: text + "\n"}
}
