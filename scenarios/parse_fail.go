package scenarios

import (
	"fmt"
	"strings"
)

// Fail is "fail SITE in NAME [occurrence N]": the N-th time the task NAME
// (or session NAME's perf) reaches the allocation SITE, the allocation
// fails (package faultinject).
type Fail struct {
	Pos        Pos
	Site       *Ident
	Who        *Ident // a task or a session
	Occurrence int    // 1: the first call
	Any        bool   // occurrence any: the search decides which call, if any
}

// fail parses a fail line.
func (p *parser) fail(ll *logicalLine, ws []token) {
	fl := &Fail{Pos: ws[0].pos, Occurrence: 1}
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected an allocation site like rb_alloc after fail (simrun names faults), found %s", found(ws, 1))
		return
	}
	fl.Site = &Ident{Pos: ws[1].pos, Name: ws[1].text}
	if len(ws) < 3 || ws[2].text != "in" {
		p.errorf(at(ll, ws, 2), "expected in and the task or session that makes the call (fail %s in TASK), found %s", ws[1].text, found(ws, 2))
		return
	}
	if len(ws) < 4 || !isName(ws[3].text) {
		p.errorf(at(ll, ws, 3), "expected a task or session name after fail %s in, found %s", ws[1].text, found(ws, 3))
		return
	}
	fl.Who = &Ident{Pos: ws[3].pos, Name: ws[3].text}
	n, any, i, ok := p.occurrenceOf(ll, ws, 4, true)
	if !ok {
		return
	}
	if n > 0 {
		fl.Occurrence = n
	}
	fl.Any = any
	p.extra(ll, ws, i, "the fail line")
	p.f.Fails = append(p.f.Fails, fl)
}

// fail checks a fail line: a site the model has, a task or a session.
func (c *checker) fail(fl *Fail) {
	if c.reg != nil && !c.reg.Has(Faults, fl.Site.Name) {
		names := c.reg.Names(Faults)
		c.errorf(fl.Site.Pos, "unknown allocation site %s%s (the sites: %s; simrun names faults)", quote(fl.Site.Name), didYouMean(fl.Site.Name, names), strings.Join(names, ", "))
	}
	_, task := c.tasks[fl.Who.Name]
	_, session := c.sessions[fl.Who.Name]
	if !task && !session {
		var who []string
		for _, n := range sortedKeys(c.tasks) {
			who = append(who, "task "+n)
		}
		for _, n := range sortedKeys(c.sessions) {
			who = append(who, "session "+n)
		}
		list := "the scenario has none"
		if len(who) > 0 {
			list = strings.Join(who, ", ")
		}
		c.errorf(fl.Who.Pos, "fail %s in %s: no task or session %s; %s", fl.Site.Name, fl.Who.Name, quote(fl.Who.Name), list)
	}
}

// String is the line as written.
func (fl *Fail) String() string {
	s := fmt.Sprintf("fail %s in %s", fl.Site.Name, fl.Who.Name)
	if fl.Any {
		s += " occurrence any"
	} else if fl.Occurrence != 1 {
		s += fmt.Sprintf(" occurrence %d", fl.Occurrence)
	}
	return s
}
