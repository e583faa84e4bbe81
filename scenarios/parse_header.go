package scenarios

import (
	"slices"
	"strings"
)

func (p *parser) scenario(ll *logicalLine, ws []token) {
	if p.f.Scenario != nil {
		p.errorf(ws[0].pos, "duplicate scenario line (the first is on line %d)", p.f.Scenario.Pos.Line)
		return
	}
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected a scenario name like aux-pause-nmi after scenario, found %s", found(ws, 1))
		return
	}
	if n := len(ws[1].text); n > MaxScenarioName {
		p.errorf(ws[1].pos, "the scenario name is %d characters long; at most %d: files are named after it (its replay file, its corpus directory)", n, MaxScenarioName)
		return
	}
	p.f.Scenario = &Ident{Pos: ws[1].pos, Name: ws[1].text}
	p.extra(ll, ws, 2, "the scenario name")
}

// MaxScenarioName is the longest scenario name: NAME.replay and the
// corpus directory NAME-HASH must fit a file name (NAME_MAX, 255).
const MaxScenarioName = 100

func (p *parser) title(ll *logicalLine, ws []token) {
	if p.f.Title != nil {
		p.errorf(ws[0].pos, "duplicate title line (the first is on line %d)", p.f.Title.Pos.Line)
		return
	}
	words, errPos, msg := shellWords(ll, ws[0].off+len("title"))
	if errPos != nil {
		p.errorf(*errPos, "%s", msg)
		return
	}
	if len(words) == 0 {
		p.errorf(endPos(ll, ws), "expected a title in double quotes after title")
		return
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text
	}
	p.f.Title = &Text{Pos: words[0].Pos, Text: strings.Join(parts, " ")}
}

func (p *parser) cpus(ll *logicalLine, ws []token) {
	if p.f.CPUs != nil {
		p.errorf(ws[0].pos, "duplicate cpus line (the first is on line %d)", p.f.CPUs.Pos.Line)
		return
	}
	if len(ws) < 2 {
		p.errorf(endPos(ll, ws), "expected the number of CPUs after cpus, like cpus 4")
		return
	}
	v, err := parseUint(ws[1].text)
	if err != nil || v < 1 || v > maxCPU+1 {
		p.errorf(ws[1].pos, "expected a number of CPUs from 1 to %d, found %s", maxCPU+1, quote(ws[1].text))
		return
	}
	p.f.CPUs = &Int{Pos: ws[1].pos, Value: v}
	p.extra(ll, ws, 2, "the number of CPUs")
}

// userKinds are the credentials a user line may name.
var userKinds = []string{"root", "unprivileged"}

func (p *parser) user(ll *logicalLine, ws []token) {
	if p.f.User != nil {
		p.errorf(ws[0].pos, "duplicate user line (the first is on line %d)", p.f.User.Pos.Line)
		return
	}
	if len(ws) < 2 || !slices.Contains(userKinds, ws[1].text) {
		hint := ""
		if len(ws) >= 2 {
			hint = didYouMean(ws[1].text, userKinds)
		}
		p.errorf(at(ll, ws, 1), "expected root or unprivileged after user, found %s%s", found(ws, 1), hint)
		return
	}
	p.f.User = &Ident{Pos: ws[1].pos, Name: ws[1].text}
	p.extra(ll, ws, 2, "the user")
}

func (p *parser) pmu(ll *logicalLine, ws []token) {
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected a PMU name like intel_pt after pmu, found %s", found(ws, 1))
		return
	}
	pm := &PMU{Pos: ws[0].pos, Name: ws[1].text}
	for _, w := range ws[2:] {
		name, value, hasEq := strings.Cut(w.text, "=")
		if !isName(name) || hasEq && value == "" {
			p.errorf(w.pos, "expected a PMU attribute like caps=aux-pause,itrace or size=1M, found %s", quote(w.text))
			continue
		}
		s := &Setting{Pos: w.pos, Name: name}
		if hasEq {
			s.Value, s.ValuePos = value, ll.posAt(w.off+len(name)+1)
		}
		pm.Attrs = append(pm.Attrs, s)
	}
	p.f.PMUs = append(p.f.PMUs, pm)
}

// setting parses one NAME=VALUE word.
func (p *parser) setting(ll *logicalLine, w token, what string) (*Setting, bool) {
	name, value, ok := strings.Cut(w.text, "=")
	if !ok || !isName(name) || value == "" {
		p.errorf(w.pos, "expected %s like aux-pause-guard=off, found %s", what, quote(w.text))
		return nil, false
	}
	return &Setting{Pos: w.pos, Name: name, ValuePos: ll.posAt(w.off + len(name) + 1), Value: value}, true
}

func (p *parser) settings(ll *logicalLine, ws []token) {
	kw := ws[0].text
	if len(ws) < 2 {
		p.errorf(endPos(ll, ws), "expected NAME=VALUE after %s, like %s", kw, map[string]string{
			"kernel": "kernel aux-pause-guard=off", "tool": "tool mmap-read=backward"}[kw])
		return
	}
	for _, w := range ws[1:] {
		s, ok := p.setting(ll, w, kw+" NAME=VALUE")
		if !ok {
			continue
		}
		if kw == "kernel" {
			p.f.Kernel = append(p.f.Kernel, s)
		} else {
			p.f.Tool = append(p.f.Tool, s)
		}
	}
}
