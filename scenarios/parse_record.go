package scenarios

import "strings"

func (p *parser) record(ll *logicalLine, from int, pos Pos) {
	words, errPos, msg := shellWords(ll, from)
	if errPos != nil {
		p.errorf(*errPos, "%s", msg)
		return
	}
	r := &Record{Pos: pos}
	if len(words) > 0 && !words[0].Quoted && strings.HasSuffix(words[0].Text, ":") {
		name := strings.TrimSuffix(words[0].Text, ":")
		if !isName(name) {
			p.errorf(words[0].Pos, "expected a session name like pt: before the perf record options, found %s", quote(words[0].Text))
			return
		}
		r.Name = &Ident{Pos: words[0].Pos, Name: name}
		words = words[1:]
	}
	if len(words) == 0 {
		p.errorf(ll.posAt(len(ll.text)), "expected perf record options, like record -e cycles -- mytask")
		return
	}
	r.Args = words
	p.f.Records = append(p.f.Records, r)
}

func (p *parser) action(ll *logicalLine, ws []token) {
	if len(ws) < 2 {
		p.errorf(endPos(ll, ws), "expected a time after at, like at 50ms snapshot")
		return
	}
	if c := ws[1].text[0]; !(c >= '0' && c <= '9') && isLabel(ws[1].text) && len(ws) > 2 && (ws[2].text == "on" || ws[2].text == "occurrence") {
		p.forcedAction(ll, ws)
		return
	}
	d, err := ParseDuration(ws[1].text)
	if err != nil {
		p.errorf(ws[1].pos, "%v", err)
		return
	}
	if len(ws) < 3 || !isName(ws[2].text) {
		p.errorf(at(ll, ws, 2), "expected an action like snapshot or pause-output after at %s, found %s", ws[1].text, found(ws, 2))
		return
	}
	a := &Action{Pos: ws[0].pos, At: d, AtPos: ws[1].pos, Verb: &Ident{Pos: ws[2].pos, Name: ws[2].text}}
	for _, w := range ws[3:] {
		a.Args = append(a.Args, &Ident{Pos: w.pos, Name: w.text})
	}
	p.f.Actions = append(p.f.Actions, a)
}
