package perftool

import (
	"fmt"
	"strconv"
	"strings"

	"perfsim/pmu"
	"perfsim/uapi"
)

// term is one pmu/term=value/ config term.
type term struct {
	key, val string
	hasVal   bool
}

// eventParser builds evsels from -e strings (struct parse_events_state).
type eventParser struct {
	opts   *Options
	evsels []Evsel
	item   string // the event being parsed (parseOne), for perf 6.1's error position
	// anyTerm lets a tracepoint take every generic term: a program's own
	// perf_event_open() (ParseEventAttr) may set a tracepoint's period,
	// which only perf's parser refuses.
	anyTerm bool
}

// splitTop splits s at commas outside {...} and /.../.
func splitTop(s string) ([]string, bool) {
	var out []string
	depth, inSlash, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			if !inSlash {
				depth++
			}
		case '}':
			if !inSlash {
				depth--
				if depth < 0 {
					return nil, false
				}
			}
		case '/':
			if !inSlash && memLenSlash(s[start:i], s[i+1:]) {
				continue // mem:ADDR/LEN: the length, not a term list
			}
			inSlash = !inSlash
		case ',':
			if depth == 0 && !inSlash {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 || inSlash {
		return nil, false
	}
	return append(out, s[start:]), true
}

const modChars = "ukhIGHpPSDeWb"

func isModifier(s string) bool {
	if s == "" || len(s) > 15 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune(modChars, c) {
			return false
		}
	}
	return true
}

// parse adds the events of one -e argument.
//
// tools/perf/util/parse-events.c: parse_events() (the grammar of parse-events.y)
func (p *eventParser) parse(arg string) error {
	syntax := &Error{Option: "-e " + arg, Reason: "event syntax error: '" + arg + "'", Errno: uapi.EINVAL}
	items, ok := splitTop(arg)
	if !ok {
		return syntax
	}
	for _, it := range items {
		if it == "" {
			return syntax
		}
		if it[0] == '{' {
			end := strings.LastIndexByte(it, '}')
			if end < 0 {
				return syntax
			}
			body, mods := it[1:end], it[end+1:]
			if strings.ContainsAny(body, "{}") {
				return syntax // groups do not nest
			}
			if mods != "" && (mods[0] != ':' || !isModifier(mods[1:])) {
				return syntax
			}
			leader := len(p.evsels)
			members, ok := splitTop(body)
			if !ok {
				return syntax
			}
			for _, m := range members {
				if err := p.parseOne(m, arg); err != nil {
					return err
				}
			}
			if len(p.evsels) == leader {
				return syntax
			}
			for i := leader; i < len(p.evsels); i++ {
				p.evsels[i].Leader = leader
				if mods != "" {
					if err := p.applyModifiers(&p.evsels[i], mods[1:], true, arg); err != nil {
						return err
					}
				}
			}
			continue
		}
		if err := p.parseOne(it, arg); err != nil {
			return err
		}
	}
	return nil
}

// parseOne parses one event (no group) and appends its evsels (a tracepoint
// glob may add several, each its own leader).
func (p *eventParser) parseOne(s, arg string) error {
	p.item = s
	syntax := &Error{Option: "-e " + arg, Reason: "event syntax error: '" + s + "'", Errno: uapi.EINVAL}
	if strings.HasPrefix(s, "mem:") {
		return p.parseMem(s, arg, syntax)
	}
	base, termStr, mods, hasTerms := s, "", "", false
	if i := strings.IndexByte(s, '/'); i >= 0 {
		j := strings.LastIndexByte(s, '/')
		if j == i {
			return syntax
		}
		base, termStr, hasTerms = s[:i], s[i+1:j], true
		rest := s[j+1:]
		if rest != "" {
			// "cycles/period=1/u" carries modifiers; perf 6.1's grammar has
			// no ':' after a term list ("cpu-clock/period=100000/:u" is its
			// parser error on this machine)
			mods = rest
			if !isModifier(mods) {
				return syntax
			}
		}
	} else if k := strings.LastIndexByte(s, ':'); k >= 0 && isModifier(s[k+1:]) {
		base, mods = s[:k], s[k+1:]
	}
	if base == "" {
		return syntax
	}
	var terms []term
	if hasTerms && termStr != "" {
		for _, t := range strings.Split(termStr, ",") {
			if t == "" {
				return syntax
			}
			k, v, has := strings.Cut(t, "=")
			terms = append(terms, term{k, v, has})
		}
	}
	var news []Evsel
	switch {
	case strings.Contains(base, ":"):
		sys, name, _ := strings.Cut(base, ":")
		tps := GlobTracepoints(sys, name)
		if len(tps) == 0 {
			reason := "unknown tracepoint '" + base + "' (not in the simulator's catalogue)"
			if !strings.ContainsAny(base, "*?[") {
				reason += didYouMean(base, tracepointNames())
			}
			return &Error{Option: "-e " + arg, Reason: reason, Errno: uapi.ENOENT}
		}
		if !p.opts.Privileged && !p.anyTerm {
			return tracefsDenied(arg, sys, name)
		}
		for _, tp := range tps {
			a := p.newAttr(uapi.PERF_TYPE_TRACEPOINT, tp.ID)
			// tools/perf/util/evsel.c: evsel__newtp_idx()
			a.SampleType = uapi.PERF_SAMPLE_RAW | uapi.PERF_SAMPLE_TIME | uapi.PERF_SAMPLE_CPU | uapi.PERF_SAMPLE_PERIOD
			a.SamplePeriod = 1
			// tools/perf/util/evsel.c: evsel__newtp_idx(): named sys:name, with
			// no modifier (perf 6.1 names syscalls:sys_enter_close:u
			// syscalls:sys_enter_close: perf evlist on this machine)
			news = append(news, Evsel{Name: tp.FullName(), Attr: a, Tracepoint: tp, PMU: "tracepoint", nameSet: true})
		}
	default:
		if l, ok := legacyEvents[base]; ok {
			a := p.newAttr(l.typ, l.config)
			name, typed := base, false
			if hasTerms {
				// named as typed, modifiers and all: perf 6.1 names
				// cpu-clock/period=100000/u so (perf evlist on this machine)
				// tools/perf/util/parse-events.c: parse_events__set_default_name()
				name, typed = s, true
			}
			news = append(news, Evsel{Name: name, Attr: a, PMU: pmuNameOf(l.typ), nameSet: typed})
			news[0].isDummy = l.typ == uapi.PERF_TYPE_SOFTWARE && l.config == uapi.PERF_COUNT_SW_DUMMY
		} else if ap := lookupAuxPMU(base); ap != nil && hasTerms {
			if p.opts.PMUs != nil && !p.opts.PMUs[ap.name] {
				return missingPMU(arg, strings.Index(arg, s), ap.name, p.opts.Tool)
			}
			a := p.newAttr(ap.typ, ap.defaultConfig)
			if ap == &csETM {
				a.SamplePeriod = 1 // cs_etm_get_default_config()
			}
			news = append(news, Evsel{Name: base + "/" + termStr + "/", Attr: a, PMU: ap.name})
		} else {
			syntax.Reason += didYouMean(base, eventNames())
			return syntax
		}
	}
	return p.addEvsels(news, terms, mods, arg)
}

// addEvsels applies the terms and modifiers to the new evsels and adds them.
func (p *eventParser) addEvsels(news []Evsel, terms []term, mods, arg string) error {
	for i := range news {
		e := &news[i]
		if err := p.applyTerms(e, terms, arg); err != nil {
			return err
		}
		if mods != "" {
			if err := p.applyModifiers(e, mods, false, arg); err != nil {
				return err
			}
			if !hasName(terms) && !e.nameSet {
				e.Name += ":" + mods
			}
		}
		e.Leader = len(p.evsels)
		// tools/perf/util/evsel.c: evsel__init(): evsel->tracking = !idx
		e.Tracking = len(p.evsels) == 0
		p.evsels = append(p.evsels, *e)
	}
	return nil
}

func hasName(ts []term) bool {
	for _, t := range ts {
		if t.key == "name" {
			return true
		}
	}
	return false
}

func pmuNameOf(typ uint32) string {
	switch typ {
	case uapi.PERF_TYPE_HARDWARE:
		return "cpu"
	case uapi.PERF_TYPE_SOFTWARE:
		return "software"
	}
	return ""
}

// newAttr models tools/perf/util/util.c: event_attr_init() for a new evsel.
func (p *eventParser) newAttr(typ uint32, config uint64) pmu.Attr {
	a := pmu.Attr{Type: typ, Config: config, Size: attrSize(p.opts.Tool)}
	if p.opts.Tool == ToolPerf61 {
		a.ExcludeGuest = true // perf 6.1: if (!perf_guest) attr->exclude_guest = 1;
	}
	// Today: exclude_GH_default is false for perf record (35c8d21371e9,
	// "perf tools: Don't set attr.exclude_guest by default").
	return a
}

func attrSize(t Tool) uint32 {
	if t == ToolPerf61 {
		return uapi.PERF_ATTR_SIZE_VER7
	}
	return uapi.AttrSize
}

func parseNum(s string) (uint64, bool) {
	v, err := strconv.ParseUint(s, 0, 64)
	return v, err == nil
}

// tracepointTerms are the terms a tracepoint takes: no period, freq,
// config or name.
// tools/perf/util/parse-events.c: config_term_tracepoint()
var tracepointTerms = map[string]bool{
	"call-graph": true, "stack-size": true, "inherit": true, "no-inherit": true, "max-stack": true,
	"overwrite": true, "no-overwrite": true, "aux-output": true, "aux-action": true, "aux-sample-size": true,
}

// validTerms lists the generic terms (tools/perf/util/parse-events.c: config_term_names).
const validTerms = "config,config1,config2,config3,name,period,freq,time,call-graph,stack-size,no-inherit,inherit,max-stack,no-overwrite,overwrite,aux-output,aux-action,aux-sample-size"

// applyTerms handles pmu/terms/: config* and PMU format terms go straight into
// the attr (config_attr / perf_pmu__config); the others become evsel config
// terms applied by evsel__apply_config_terms() after evsel__config().
//
// tools/perf/util/parse-events.c: config_term_common(), get_config_terms()
func (p *eventParser) applyTerms(e *Evsel, ts []term, arg string) error {
	ap := lookupAuxPMU(e.PMU)
	for _, t := range ts {
		bad := func(why string) error {
			return &Error{Option: "-e " + arg, Reason: "term '" + t.key + "': " + why, Errno: uapi.EINVAL}
		}
		if e.Tracepoint != nil && !tracepointTerms[t.key] && !p.anyTerm {
			if p.opts.Tool == ToolPerf61 {
				idx := strings.Index(arg, p.item)
				return perf61UnknownTerm(e, t.key, arg, idx+strings.Index(p.item, t.key))
			}
			return bad("not a term of a tracepoint; valid terms: call-graph,stack-size")
		}
		num := func() (uint64, error) {
			if !t.hasVal {
				return 1, nil
			}
			v, ok := parseNum(t.val)
			if !ok {
				return 0, bad("expected a number, got '" + t.val + "'")
			}
			return v, nil
		}
		switch t.key {
		case "config", "config1", "config2", "config3":
			v, err := num()
			if err != nil {
				return err
			}
			switch t.key {
			case "config":
				e.Attr.Config = v
			case "config1":
				e.Attr.Config1 = v
			case "config2":
				e.Attr.Config2 = v
			case "config3":
				e.Attr.Config3 = v
			}
		case "name":
			if !t.hasVal || t.val == "" {
				return bad("needs a value")
			}
			e.Name = t.val
		case "period", "freq", "stack-size", "max-stack", "aux-sample-size":
			if !t.hasVal {
				return bad("needs a value")
			}
			v, err := num()
			if err != nil {
				return err
			}
			if t.key == "aux-sample-size" {
				e.auxSample = uint32(v)
			}
			e.terms = append(e.terms, term{t.key, strconv.FormatUint(v, 10), true})
		case "time", "call-graph":
			if !t.hasVal {
				return bad("needs a value")
			}
			e.terms = append(e.terms, t)
		case "inherit", "no-inherit", "overwrite", "no-overwrite", "aux-output":
			if t.hasVal {
				return bad("takes no value")
			}
			e.terms = append(e.terms, t)
		case "aux-action":
			if p.opts.Tool == ToolPerf61 { // aux-action is new in perf 6.13
				idx := strings.Index(arg, p.item)
				return perf61UnknownTerm(e, t.key, arg, idx+strings.Index(p.item, t.key+"="))
			}
			switch t.val {
			case "start-paused", "pause", "resume":
				e.auxAction = t.val
			default:
				return bad("expected start-paused, pause or resume")
			}
		default:
			if ap != nil {
				f, ok := ap.formats[t.key]
				if !ok {
					return bad("unknown term for PMU " + ap.name)
				}
				v, err := num()
				if err != nil {
					return err
				}
				if err := setFormat(&e.Attr, f, v); err != nil {
					return bad(err.Error())
				}
				e.terms = append(e.terms, t) // user-set bits (CFG_CHG): evsel__set_config_if_unset() keeps them
				continue
			}
			if p.opts.Tool == ToolPerf61 {
				idx := strings.Index(arg, p.item)
				return perf61UnknownTerm(e, t.key, arg, idx+strings.Index(p.item, t.key))
			}
			return bad("unknown term; valid terms: " + validTerms)
		}
	}
	return nil
}

// setFormat models tools/perf/util/pmu.c: pmu_format_value() into the attr word.
func setFormat(a *pmu.Attr, f formatField, v uint64) error {
	width := f.hi - f.lo + 1
	if width < 64 && v>>width != 0 {
		return errf("", "value %#x too big for format, maximum is %#x", v, uint64(1)<<width-1)
	}
	mask := ^uint64(0)
	if width < 64 {
		mask = (uint64(1)<<width - 1) << f.lo
	}
	w := []*uint64{&a.Config, &a.Config1, &a.Config2, &a.Config3}[f.word]
	*w = *w&^mask | v<<f.lo&mask
	return nil
}

// applyModifiers models the event modifier rules.
//
// tools/perf/util/parse-events.c: parse_events__modifier_event()
func (p *eventParser) applyModifiers(e *Evsel, mods string, group bool, arg string) error {
	var nu, nk, nh, nG, nH, np int
	for _, c := range mods {
		switch c {
		case 'u':
			nu++
		case 'k':
			nk++
		case 'h':
			nh++
		case 'G':
			nG++
		case 'H':
			nH++
		case 'p':
			np++
		case 'P':
			e.precMax = true
		case 'I':
			e.Attr.ExcludeIdle = true
		case 'S':
			e.sampleRead = true
		case 'D':
			e.Attr.Pinned = true
		case 'e':
			e.Attr.Exclusive = true
		}
	}
	a := &e.Attr
	var eu, ek, eh, eH, eG bool
	if group {
		eu, ek, eh, eH, eG = a.ExcludeUser, a.ExcludeKernel, a.ExcludeHV, a.ExcludeHost, a.ExcludeGuest
	}
	exclude, excludeGH := eu || ek || eh, eG || eH
	if nu > 0 {
		if !exclude {
			exclude, eu, ek, eh = true, true, true, true
		}
		if p.opts.Tool == ToolPerf61 && !excludeGH {
			eG = true // perf 6.1: if (!exclude_GH && !perf_guest) eG = 1;
		}
		eu = false
	}
	if nk > 0 {
		if !exclude {
			exclude, eu, ek, eh = true, true, true, true
		}
		ek = false
	}
	if nh > 0 {
		if !exclude {
			eu, ek, eh = true, true, true
		}
		eh = false
	}
	if np > 0 && p.opts.Tool == ToolPerf61 && !excludeGH {
		eG = true // perf 6.1: "use of precise requires exclude_guest" (today's perf dropped it)
	}
	if nG > 0 {
		if !excludeGH {
			excludeGH, eG, eH = true, true, true
		}
		eG = false
	}
	if nH > 0 {
		if !excludeGH {
			eG, eH = true, true
		}
		eH = false
	}
	a.ExcludeUser, a.ExcludeKernel, a.ExcludeHV, a.ExcludeHost, a.ExcludeGuest = eu, ek, eh, eH, eG
	if np > 0 {
		prec := int(a.PreciseIP) + np
		if p.opts.Tool == ToolPerf61 {
			prec = np
		}
		if prec > 3 {
			if p.opts.Tool == ToolPerf61 { // get_event_modifier() fails: the modifier as a whole is bad
				text := perf61EventError(arg, strings.LastIndex(arg, ":")+1, "Bad modifier", "", false)
				return &ExitError{Status: 129, Text: text + "\n"}
			}
			return &Error{Option: "-e " + arg, Reason: "event syntax error: maximum combined precise value is 3", Errno: uapi.EINVAL}
		}
		a.PreciseIP = uint8(prec)
	}
	return nil
}

// tracefsDenied is perf's refusal of a tracepoint event when it cannot read
// tracefs (an unprivileged user: tracefs is mode 0700, root's, as on this
// machine): the error at the -e string's start, for the event as typed (a
// glob too), and perf exits 129. Today's perf says the same.
// tools/perf/util/parse-events.c: tracepoint_error(); tools/lib/api/fs/tracing_path.c: tracing_path__strerror_open_tp()
func tracefsDenied(arg, sys, name string) *ExitError {
	help := fmt.Sprintf("Error:\tNo permissions to read /sys/kernel/tracing/events/%s/%s\n"+
		"Hint:\tTry 'sudo mount -o remount,mode=755 /sys/kernel/tracing/'\n", sys, name)
	return &ExitError{Status: 129, Text: perf61EventError(arg, 0, "can't access trace events", help, false) + "\n"}
}
