package perftool

import (
	"errors"
	"fmt"
	"strings"

	"perfsim/mm"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/uapi"
)

// perf record --filter: a filter for the events of the last -e before it
// (every evsel of that -e: foreach_evsel_in_last_glob()). A tracepoint's is
// its ftrace filter, ANDed with one given before; an AUX tracer's (a PMU
// with nr_addr_filters) an address filter, appended with a comma, which
// auxtrace_parse_filters() turns into the kernel's form before the events
// are opened. After perf opens the events it writes each evsel's filter to
// every fd of it (evlist__apply_filters(): PERF_EVENT_IOC_SET_FILTER); a
// refusal ends perf record with "failed to set filter".
// tools/perf/util/parse-events.c: parse_filter(), set_filter();
// tools/perf/util/auxtrace.c: auxtrace_parse_filters(), parse_addr_filter()

// cmdFilter is one --filter and the number of -e options before it.
type cmdFilter struct {
	afterEvents int
	str         string
}

// nrAddrFilters is /sys/bus/event_source/devices/PMU/nr_addr_filters of the
// AUX PMUs perftool knows: intel_pt's PT_CAP_num_address_ranges on the
// machine perf's figures were taken from (2), cs_etm's ETM_ADDR_CMP_MAX (8).
var nrAddrFilters = map[string]int{"intel_pt": 2, "cs_etm": 8}

// applyCmdFilters attaches each --filter to the evsels of the -e before it
// (ends[i]: the evsel count after the i-th -e was parsed).
// tools/perf/util/parse-events.c: parse_filter() -> foreach_evsel_in_last_glob() -> set_filter()
func applyCmdFilters(r *Record, ro *recordOpts, ends []int) *ExitError {
	for _, f := range ro.filters { // each after an -e: the option refuses one before any
		start := 0
		if f.afterEvents > 1 {
			start = ends[f.afterEvents-2]
		}
		for i := start; i < ends[f.afterEvents-1]; i++ {
			e := &r.Evsels[i]
			if e.Tracepoint != nil {
				// evsel__append_tp_filter(): "(%s) && (%s)"
				if e.Filter == "" {
					e.Filter = f.str
				} else {
					e.Filter = "(" + e.Filter + ") && (" + f.str + ")"
				}
				continue
			}
			if nrAddrFilters[e.PMU] == 0 {
				return &ExitError{Status: 129, Text: "This CPU does not support address filtering\n"}
			}
			e.addrFilter = true
			if e.Filter == "" { // evsel__append_addr_filter(): "%s,%s"
				e.Filter = f.str
			} else {
				e.Filter += "," + f.str
			}
		}
	}
	for i := range r.Evsels {
		e := &r.Evsels[i]
		if !e.addrFilter {
			continue
		}
		if _, err := parseToolAddrFilters(e.Filter, nil); err != nil {
			return &ExitError{Status: 255, Text: err.Error()}
		}
	}
	return nil
}

// SymbolResolver finds a function in the symbol table of the object file
// at path ("" for the kernel's): its address as the file's symbols give it
// (for the user images, which are PIEs, its file offset) and size.
type SymbolResolver func(name, path string) (addr, size uint64, ok bool)

// kernelFilter is the filter perf writes to the evsel's fds: an address
// filter with its symbols resolved (auxtrace_parse_filters()), a
// tracepoint's as given.
func (ss *Session) kernelFilter(i int) string {
	return ss.filters[i]
}

// resolveFilters is auxtrace_parse_filters() at record start: each address
// filter in the kernel's form, symbols looked up in the session's images.
// tools/perf/util/auxtrace.c: auxtrace_parse_filters()
func (ss *Session) resolveFilters() error {
	ss.filters = map[int]string{}
	for i := range ss.R.Evsels {
		e := &ss.R.Evsels[i]
		if !e.addrFilter {
			ss.filters[i] = e.Filter
			continue
		}
		kf, err := parseToolAddrFilters(e.Filter, ss.resolveSymbol)
		if err != nil {
			return err
		}
		ss.filters[i] = kf
	}
	return nil
}

// resolveSymbol looks a function up in the synthetic images (pmu/image.go):
// a user image's function at its file offset (the PIE's symbol value), a
// kernel one at its address; each is pmu.ImageSlotSize long. The images
// hold every function a program names, placed on first use.
func (ss *Session) resolveSymbol(name, path string) (uint64, uint64, bool) {
	addr := ss.K.ImageSymbol(name, path == "")
	if path != "" {
		addr -= mm.ImageBase
	}
	return addr, pmu.ImageSlotSize, true
}

// toolAddrFilter is struct addr_filter (tools/perf/util/auxtrace.h).
type toolAddrFilter struct {
	action   string
	addr     uint64
	size     uint64
	filename string
	symFrom  string // filt->sym_from
	symTo    string // filt->sym_to
	start    bool   // start or filter
	rangeF   bool   // filter or tracestop: a range
}

// parseToolAddrFilters is auxtrace_parse_filters() for one evsel: the
// tool's grammar (filter|start|stop|tracestop START [/ END_OR_SIZE] [@FILE],
// separated by space or comma; START and END numbers or function names)
// converted to the kernel's string, "tracestop" becoming "stop" on a
// range. A function is looked up with resolve (nil: only the grammar is
// checked): "filter f" and "tracestop f" cover f, "f / g" runs from f's
// start to g's end.
// tools/perf/util/auxtrace.c: parse_addr_filter(), parse_one_filter(), addr_filter__resolve_syms(), addr_filter__str()
func parseToolAddrFilters(s string, resolve SymbolResolver) (string, error) {
	bad := func(why string) error {
		return toolFilterError(why + "Failed to parse address filter: '" + s + "'\n" +
			"Filter format is: filter|start|stop|tracestop <start symbol or address> [/ <end symbol or size>] [@<file name>]\n" +
			"Where multiple filters are separated by space or comma.\n")
	}
	var out []string
	rest := s
	for {
		rest = strings.TrimLeft(rest, " ,")
		if rest == "" {
			break
		}
		var f toolAddrFilter
		var ok bool
		// parse_num_or_str(&fstr, NULL, &filt->action, " ")
		if f.action, rest, ok = toolStr(rest, " "); !ok {
			return "", bad("")
		}
		switch f.action { // parse_action()
		case "filter":
			f.start, f.rangeF = true, true
		case "start":
			f.start = true
		case "stop":
		case "tracestop":
			f.rangeF = true
			f.action = "stop" // "Change 'tracestop' to 'stop'"
		default:
			return "", bad("")
		}
		if f.addr, f.symFrom, rest, ok = toolNumOrStr(rest); !ok {
			return "", bad("")
		}
		rest = strings.TrimLeft(rest, " ")
		if strings.HasPrefix(rest, "/") {
			if f.size, f.symTo, rest, ok = toolNumOrStr(rest[1:]); !ok {
				return "", bad("")
			}
			f.rangeF = true
		}
		rest = strings.TrimLeft(rest, " ")
		if strings.HasPrefix(rest, "@") {
			if f.filename, rest, ok = toolStr(rest[1:], " ,"); !ok {
				return "", bad("")
			}
		}
		if rest != "" && rest[0] != ' ' && rest[0] != ',' {
			return "", bad("")
		}
		if resolve != nil && (f.symFrom != "" || f.symTo != "") {
			if err := f.resolveSyms(resolve); err != "" {
				return "", bad(err)
			}
		}
		out = append(out, f.kernelString())
	}
	return strings.Join(out, ","), nil
}

// toolFilterError is what perf prints (pr_err lines) when it cannot
// parse an address filter.
type toolFilterError string

func (e toolFilterError) Error() string { return string(e) }

// resolveSyms is addr_filter__resolve_syms(): the start (and the end) of a
// range from function names; a lone function of a range action covers
// the function; an end before the start is refused.
// tools/perf/util/auxtrace.c: addr_filter__resolve_syms()
func (f *toolAddrFilter) resolveSyms(resolve SymbolResolver) string {
	if f.symFrom != "" {
		start, size, ok := resolve(f.symFrom, f.filename)
		if !ok {
			return fmt.Sprintf("Symbol '%s' not found.\nNote that symbols must be functions.\n", f.symFrom)
		}
		f.addr = start
		if f.rangeF && f.symTo == "" && f.size == 0 {
			f.size = size
		}
	}
	if f.symTo != "" {
		start, size, ok := resolve(f.symTo, f.filename)
		if !ok {
			return fmt.Sprintf("Symbol '%s' not found.\nNote that symbols must be functions.\n", f.symTo)
		}
		if start+size <= f.addr {
			return "Start address 0x" + fmt.Sprintf("%x", f.addr) + " is greater than end address\n"
		}
		f.size = start + size - f.addr
	}
	return ""
}

// toolStr is parse_num_or_str() where only a string may come: blanks, then
// up to a delimiter; a number there is EINVAL.
func toolStr(s, delim string) (string, string, bool) {
	s = strings.TrimLeft(s, " ")
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		return "", s, false
	}
	n := strings.IndexAny(s, delim)
	if n < 0 {
		n = len(s)
	}
	if n == 0 {
		return "", s, false
	}
	return s[:n], s[n:], true
}

// toolNumOrStr is parse_addr_size(): a number (strtoull base 0; ERANGE
// refused) or a symbol name up to a blank.
func toolNumOrStr(s string) (uint64, string, string, bool) {
	s = strings.TrimLeft(s, " ")
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		v, rest, ok := toolNum(s)
		return v, "", rest, ok
	}
	sym, rest, ok := toolStr(s, " ")
	return 0, sym, rest, ok
}

// toolNum reads a number as parse_num_or_str() does (leading blanks, then
// strtoull(s, &end, 0)); past 64 bits strtoull's ERANGE refuses it.
func toolNum(s string) (uint64, string, bool) {
	s = strings.TrimLeft(s, " ")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, s, false // a symbol (or nothing)
	}
	base, i := uint64(10), 0
	if s[0] == '0' {
		base = 8
		if len(s) > 2 && s[1]|0x20 == 'x' && toolDigit(s[2]) < 16 {
			base, i = 16, 2
		}
	}
	var v uint64
	over := false
	for ; i < len(s) && toolDigit(s[i]) < base; i++ {
		d := toolDigit(s[i])
		if v > (^uint64(0)-d)/base {
			over = true
		}
		v = v*base + d
	}
	if over {
		return 0, s, false // errno ERANGE: -errno
	}
	return v, s[i:], true
}

func toolDigit(c byte) uint64 {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return uint64(c|0x20-'a') + 10
	}
	return 99
}

// kernelString is addr_filter__str().
func (f *toolAddrFilter) kernelString() string {
	at, fn := "", ""
	if f.filename != "" {
		at, fn = "@", f.filename
	}
	if f.rangeF {
		return fmt.Sprintf("%s 0x%x/0x%x%s%s", f.action, f.addr, f.size, at, fn)
	}
	return fmt.Sprintf("%s 0x%x%s%s", f.action, f.addr, at, fn)
}

// applyFilters writes each evsel's filter to every fd perf opened for it.
// tools/perf/builtin-record.c: record__open() -> evlist__apply_filters()
func (ss *Session) applyFilters(t *sched.Task) error {
	done := map[int]bool{}
	for i, o := range ss.R.Opens(len(ss.S.M.CPUs)) {
		e := &ss.R.Evsels[o.Evsel]
		if e.Filter == "" || i >= len(ss.FDs) || ss.FDs[i] < 0 || done[ss.FDs[i]] {
			continue
		}
		done[ss.FDs[i]] = true
		f := ss.kernelFilter(o.Evsel)
		if err := ss.K.SetFilter(t, ss.FDs[i], f); err != nil {
			var en uapi.Errno
			errors.As(err, &en)
			return fmt.Errorf("failed to set filter \"%s\" on event %s with %d (%s)", f, e.Name, int(en), en.Error())
		}
	}
	return nil
}

// setAddrFilter writes a new address filter, 'filter FN @ FILE' (or a
// kernel function's 'filter FN'), resolved as auxtrace_parse_filters()
// resolves perf record's, to the fds of the evsels recorded with an address
// filter (the set-filter action: another thread of perf's changing them
// mid-run); a failure counts in tool.errors.
// tools/perf/util/evsel.c: evsel__apply_filter() -> ioctl(PERF_EVENT_IOC_SET_FILTER)
func (ss *Session) setAddrFilter(t *sched.Task, fn, file string) {
	str := "filter " + fn
	if file != "kernel" {
		str += " @ " + file
	}
	kf, err := parseToolAddrFilters(str, ss.resolveSymbol)
	if err != nil {
		ss.tool.actionErrs++
		return
	}
	done := map[int]bool{}
	for i, o := range ss.R.Opens(len(ss.S.M.CPUs)) {
		if !ss.R.Evsels[o.Evsel].addrFilter || i >= len(ss.FDs) || ss.FDs[i] < 0 || done[ss.FDs[i]] {
			continue
		}
		done[ss.FDs[i]] = true
		if ss.K.SetFilter(t, ss.FDs[i], kf) != nil {
			ss.tool.actionErrs++
		}
	}
}
