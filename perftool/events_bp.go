package perftool

import (
	"strconv"
	"strings"

	"perfsim/pmu"
	"perfsim/uapi"
)

// parseBreakpoint parses a breakpoint event, mem:ADDR[/LEN][:ACCESS], then
// optional /terms/ and :modifiers ("mem:0x1000:w", "mem:0/4:rw/name=bp/u",
// "mem:0:rw:kp"). ACCESS is r, w, x or a combination, each at most once
// (default rw); LEN defaults to 4, or sizeof(long) for x.
// tools/perf/util/parse-events.y: PE_PREFIX_MEM rules; parse-events.c: parse_events_add_breakpoint(), parse_breakpoint_type()
func parseBreakpoint(s string) (a pmu.Attr, name, termStr, mods string, hasTerms, ok bool) {
	rest, found := strings.CutPrefix(s, "mem:")
	if !found {
		return a, "", "", "", false, false
	}
	i := 0
	for i < len(rest) && rest[i] != '/' && rest[i] != ':' {
		i++
	}
	addr, err := strconv.ParseUint(rest[:i], 0, 64)
	if err != nil {
		return a, "", "", "", false, false
	}
	rest = rest[i:]
	var length uint64
	// "/LEN" is a number; a slash followed by anything else opens the terms.
	if len(rest) > 1 && rest[0] == '/' && rest[1] >= '0' && rest[1] <= '9' {
		j := 1
		for j < len(rest) && rest[j] != '/' && rest[j] != ':' {
			j++
		}
		if length, err = strconv.ParseUint(rest[1:j], 0, 64); err != nil {
			return a, "", "", "", false, false
		}
		rest = rest[j:]
	}
	if len(rest) > 1 && rest[0] == ':' {
		j := 1
		for j < len(rest) && strings.IndexByte("rwx", rest[j]) >= 0 {
			j++
		}
		if j > 1 && (j == len(rest) || rest[j] == ':' || rest[j] == '/') {
			if j-1 > 3 {
				return a, "", "", "", false, false
			}
			for _, c := range rest[1:j] {
				bit := map[rune]uint32{'r': pmu.HW_BREAKPOINT_R, 'w': pmu.HW_BREAKPOINT_W, 'x': pmu.HW_BREAKPOINT_X}[c]
				if a.BPType&bit != 0 {
					return a, "", "", "", false, false // CHECK_SET_TYPE: a bit given twice
				}
				a.BPType |= bit
			}
			rest = rest[j:]
		}
	}
	if a.BPType == 0 {
		a.BPType = pmu.HW_BREAKPOINT_R | pmu.HW_BREAKPOINT_W
	}
	if length == 0 {
		length = 4 // HW_BREAKPOINT_LEN_4
		if a.BPType == pmu.HW_BREAKPOINT_X {
			length = 8 // sizeof(long)
		}
	}
	if strings.HasPrefix(rest, "/") {
		j := strings.IndexByte(rest[1:], '/')
		if j < 0 {
			return a, "", "", "", false, false
		}
		termStr, hasTerms = rest[1:1+j], true
		rest = rest[2+j:]
	}
	mods = strings.TrimPrefix(rest, ":")
	if mods != "" && !isModifier(mods) {
		return a, "", "", "", false, false
	}
	a.Type = uapi.PERF_TYPE_BREAKPOINT
	a.Config1, a.Config2 = addr, length // bp_addr, bp_len
	a.SamplePeriod = 1
	return a, bpName(addr, a.BPType), termStr, mods, hasTerms, true
}

// bpName is the evsel name of a breakpoint: mem:0xADDR:rwx.
// tools/perf/util/evsel.c: __evsel__bp_name()
func bpName(addr uint64, typ uint32) string {
	s := "mem:0x" + strconv.FormatUint(addr, 16) + ":"
	if typ&pmu.HW_BREAKPOINT_R != 0 {
		s += "r"
	}
	if typ&pmu.HW_BREAKPOINT_W != 0 {
		s += "w"
	}
	if typ&pmu.HW_BREAKPOINT_X != 0 {
		s += "x"
	}
	return s
}

// parseMem adds a breakpoint event (parseBreakpoint).
func (p *eventParser) parseMem(s, arg string, syntax *Error) error {
	a, name, termStr, mods, hasTerms, ok := parseBreakpoint(s)
	if !ok {
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
	b := p.newAttr(uapi.PERF_TYPE_BREAKPOINT, 0)
	b.BPType, b.Config1, b.Config2, b.SamplePeriod = a.BPType, a.Config1, a.Config2, a.SamplePeriod
	return p.addEvsels([]Evsel{{Name: name, Attr: b, PMU: "breakpoint"}}, terms, mods, arg)
}

// memLenSlash reports whether the slash between before and after (within one
// event of a list) is a breakpoint's length separator: mem:ADDR/LEN.
func memLenSlash(before, after string) bool {
	before = strings.TrimLeft(before, "{")
	return strings.HasPrefix(before, "mem:") && !strings.ContainsAny(before, "/:"[0:1]) && strings.Count(before, ":") == 1 &&
		after != "" && after[0] >= '0' && after[0] <= '9'
}
