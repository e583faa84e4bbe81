package scenarios

func (p *parser) force(ll *logicalLine, ws []token) {
	fc := &Force{Pos: ws[0].pos, CPU: -1, Occurrence: 1}
	i := 1
	switch ws[0].text {
	case "nmi":
		fc.Kind = ForceNMI
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
	if i < len(ws) && ws[i].text == "occurrence" {
		n, err := int64(0), error(nil)
		if i+1 < len(ws) {
			n, err = parseUint(ws[i+1].text)
		}
		if i+1 >= len(ws) || err != nil || n < 1 || n > 1<<31 {
			p.errorf(at(ll, ws, i+1), "expected a count from 1 after occurrence, found %s", found(ws, i+1))
			return
		}
		fc.Occurrence = int(n)
		i += 2
	}
	p.extra(ll, ws, i, "the step point")
	p.f.Forces = append(p.f.Forces, fc)
}
