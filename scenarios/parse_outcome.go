package scenarios

func isQuantifier(s string) (Quantifier, bool) {
	switch s {
	case "always":
		return Always, true
	case "never":
		return Never, true
	case "sometimes":
		return Sometimes, true
	}
	return 0, false
}

// outcome parses "always|never|sometimes EXPR [at end|at TIME]" at ws[qi].
func (p *parser) outcome(ll *logicalLine, ws []token, qi int, when []*Setting) {
	q, _ := isQuantifier(ws[qi].text)
	e, atTime, atOff, err := parseExpr(ll, ws[qi].off+len(ws[qi].text))
	if err != nil {
		p.errorf(ll.posAt(err.off), "%s", err.msg)
		return
	}
	o := &Outcome{Pos: ws[qi].pos, When: when, Quant: q, Cond: e}
	if atTime != "" {
		d, derr := ParseDuration(atTime)
		if derr != nil {
			p.errorf(ll.posAt(atOff), "%v", derr)
			return
		}
		o.At, o.AtPos = &d, ll.posAt(atOff)
	}
	p.f.Outcomes = append(p.f.Outcomes, o)
}

// when parses "when KNOB=VALUE... OUTCOME" or "when KNOB=VALUE..." with an
// indented block of outcomes (which may hold further when lines).
func (p *parser) when(n *node, ws []token) {
	p.whenIn(n, ws, nil)
}

func (p *parser) whenIn(n *node, ws []token, outer []*Setting) {
	ll := n.line
	conds := append([]*Setting(nil), outer...)
	i := 1
	for ; i < len(ws); i++ {
		if _, ok := isQuantifier(ws[i].text); ok {
			break
		}
		s, ok := p.setting(ll, ws[i], "a knob condition")
		if !ok {
			return
		}
		conds = append(conds, s)
	}
	if i == 1 {
		p.errorf(at(ll, ws, 1), "expected a knob condition like aux-pause-guard=off after when, found %s", found(ws, 1))
		return
	}
	if i < len(ws) {
		p.noBlock(n)
		p.outcome(ll, ws, i, conds)
		return
	}
	if len(n.children) == 0 {
		p.errorf(endPos(ll, ws), "expected an outcome after the condition (when k=v always ...) or an indented block of outcomes")
		return
	}
	for _, c := range n.children {
		cws := c.line.words(c.line.start)
		if len(cws) == 0 {
			continue
		}
		if cws[0].text == "when" {
			p.whenIn(c, cws, conds)
			continue
		}
		p.noBlock(c)
		if _, ok := isQuantifier(cws[0].text); !ok {
			p.errorf(cws[0].pos, "expected always, never or sometimes in a when block, found %s", quote(cws[0].text))
			continue
		}
		p.outcome(c.line, cws, 0, conds)
	}
}
