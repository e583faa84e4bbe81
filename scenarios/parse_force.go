package scenarios

import "strings"

func (p *parser) force(ll *logicalLine, ws []token) {
	fc := &Force{Pos: ws[0].pos, CPU: -1, Occurrence: 1}
	i := 1
	switch ws[0].text {
	case "nmi", "ipi", "irq_work", "cpu-offline", "cpu-online":
		fc.Kind = map[string]ForceKind{"nmi": ForceNMI, "ipi": ForceIPI, "irq_work": ForceIRQWork,
			"cpu-offline": ForceOffline, "cpu-online": ForceOnline}[ws[0].text]
		c, pos, next, ok := p.cpuRef(ll, ws, i)
		if !ok {
			return
		}
		fc.CPU, fc.CPUPos, i = c, pos, next
	case "preempt", "migrate":
		fc.Kind = ForcePreempt
		if ws[0].text == "migrate" {
			fc.Kind = ForceMigrate
		}
		if i >= len(ws) || !isName(ws[i].text) {
			p.errorf(at(ll, ws, i), "expected a task name after %s, found %s", ws[0].text, found(ws, i))
			return
		}
		fc.Task = &Ident{Pos: ws[i].pos, Name: ws[i].text}
		i++
		if fc.Kind == ForceMigrate {
			if i >= len(ws) || ws[i].text != "to" {
				p.errorf(at(ll, ws, i), "expected to after migrate %s (migrate TASK to cpuN at LABEL), found %s", fc.Task.Name, found(ws, i))
				return
			}
			c, pos, next, ok := p.cpuRef(ll, ws, i+1)
			if !ok {
				return
			}
			fc.CPU, fc.CPUPos, i = c, pos, next
		}
	}
	if i >= len(ws) || ws[i].text != "at" {
		p.errorf(at(ll, ws, i), "expected at and a step point like at perf_event_aux_pause:guard-set, found %s", found(ws, i))
		return
	}
	i++
	if i >= len(ws) || !isLabel(ws[i].text) {
		p.errorf(at(ll, ws, i), "expected a step point label like perf_event_aux_pause:guard-set, found %s", found(ws, i))
		return
	}
	fc.Label = &Ident{Pos: ws[i].pos, Name: ws[i].text}
	i++
	var ok bool
	if i, ok = p.occurrence(ll, ws, i, fc); !ok {
		return
	}
	p.extra(ll, ws, i, "the step point")
	p.f.Forces = append(p.f.Forces, fc)
}

// forcedAction parses "at LABEL [occurrence N] on cpuN: OP ARGS": the N-th
// time execution reaches LABEL, a task on cpuN carries out OP (a PerfOp).
func (p *parser) forcedAction(ll *logicalLine, ws []token) {
	fc := &Force{Pos: ws[0].pos, Kind: ForceAction, Label: &Ident{Pos: ws[1].pos, Name: ws[1].text}, Occurrence: 1}
	i := 2
	var ok bool
	if i, ok = p.occurrence(ll, ws, i, fc); !ok {
		return
	}
	if i >= len(ws) || ws[i].text != "on" {
		p.errorf(at(ll, ws, i), "expected on cpuN: and an action after at %s (at LABEL on cpu1: close fd3), found %s", fc.Label.Name, found(ws, i))
		return
	}
	i++
	// cpuN: or cpuN :
	var rest []token
	if i < len(ws) && strings.HasSuffix(ws[i].text, ":") && len(ws[i].text) > 1 {
		cw := ws[i]
		cw.text = strings.TrimSuffix(cw.text, ":")
		rest = append([]token{cw}, ws[i+1:]...)
		c, pos, _, ok := p.cpuRef(ll, rest, 0)
		if !ok {
			return
		}
		fc.CPU, fc.CPUPos = c, pos
		rest = rest[1:]
	} else {
		c, pos, next, ok := p.cpuRef(ll, ws, i)
		if !ok {
			return
		}
		if next >= len(ws) || ws[next].text != ":" {
			p.errorf(at(ll, ws, next), "expected : after cpu%d (at LABEL on cpu1: close fd3), found %s", c, found(ws, next))
			return
		}
		fc.CPU, fc.CPUPos = c, pos
		rest = ws[next+1:]
	}
	if len(rest) == 0 || !containsStr(PerfOpVerbs, rest[0].text) {
		pos := endPos(ll, ws)
		what := "nothing"
		if len(rest) > 0 {
			pos, what = rest[0].pos, quote(rest[0].text)
		}
		p.errorf(pos, "expected one of %s after on cpu%d:, found %s", strings.Join(PerfOpVerbs, ", "), fc.CPU, what)
		return
	}
	op := p.perfOp(ll, rest)
	if op == nil {
		return
	}
	fc.Op = op
	p.f.Forces = append(p.f.Forces, fc)
}

// occurrence parses an optional "occurrence N" at ws[i] into fc and returns
// where the words after it start; false after an error.
func (p *parser) occurrence(ll *logicalLine, ws []token, i int, fc *Force) (int, bool) {
	n, _, next, ok := p.occurrenceOf(ll, ws, i, false)
	if ok && next > i {
		fc.Occurrence = n
	}
	return next, ok
}

// occurrenceOf parses an optional "occurrence N" (with orAny, also
// "occurrence any") at ws[i]: the count, whether it was any, where the
// words after it start; false after an error.
func (p *parser) occurrenceOf(ll *logicalLine, ws []token, i int, orAny bool) (n int, any bool, next int, ok bool) {
	if i >= len(ws) || ws[i].text != "occurrence" {
		return 0, false, i, true
	}
	if orAny && i+1 < len(ws) && ws[i+1].text == "any" {
		return 0, true, i + 2, true
	}
	v, err := int64(0), error(nil)
	if i+1 < len(ws) {
		v, err = parseUint(ws[i+1].text)
	}
	if i+1 >= len(ws) || err != nil || v < 1 || v > 1<<31 {
		what := "a count from 1"
		if orAny {
			what += " or any"
		}
		p.errorf(at(ll, ws, i+1), "expected %s after occurrence, found %s", what, found(ws, i+1))
		return 0, false, i, false
	}
	return int(v), false, i + 2, true
}
