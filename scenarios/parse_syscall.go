package scenarios

import (
	"strings"
)

// syscall parses "syscall NAME [ARG...] [DURATION] [as VAR]".
func (p *parser) syscall(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected a system call name like close after syscall, found %s", found(ws, 1))
		return nil
	}
	sc := &Syscall{Pos: ws[0].pos, Name: ws[1].text}
	end := len(ws)
	if end >= 4 && ws[end-2].text == "as" {
		if !isName(ws[end-1].text) {
			p.errorf(ws[end-1].pos, "expected a variable name like buf after as, found %s", quote(ws[end-1].text))
			return nil
		}
		sc.Bind, sc.BindPos = ws[end-1].text, ws[end-1].pos
		end -= 2
	} else if end >= 3 && ws[end-1].text == "as" {
		p.errorf(endPos(ll, ws), "expected a variable name like buf after as")
		return nil
	}
	if end > 2 { // a last word with a time unit is the time in the kernel
		if _, unit, err := parseNumber(ws[end-1].text); err == nil && unit == TimeUnit {
			d, err := ParseDuration(ws[end-1].text)
			if err != nil {
				p.errorf(ws[end-1].pos, "%v", err)
				return nil
			}
			sc.Dur = d
			end--
		}
	}
	for _, w := range ws[2:end] {
		a, ok := p.sysArg(w)
		if !ok {
			return nil
		}
		sc.Args = append(sc.Args, a)
	}
	return sc
}

// touch parses "touch ADDR PAGES [write|read]".
func (p *parser) touch(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 {
		p.errorf(endPos(ll, ws), "expected an address like buf (bound by syscall mmap ... as buf) after touch")
		return nil
	}
	a, ok := p.sysArg(ws[1])
	if !ok {
		return nil
	}
	if a.IsStr {
		p.errorf(ws[1].pos, "expected an address like buf after touch, found a string")
		return nil
	}
	if len(ws) < 3 {
		p.errorf(endPos(ll, ws), "expected a number of pages after touch %s, like touch %s 4", ws[1].text, ws[1].text)
		return nil
	}
	n, err := parseUint(ws[2].text)
	if err != nil || n < 1 {
		p.errorf(ws[2].pos, "expected a number of pages from 1, found %s", quote(ws[2].text))
		return nil
	}
	t := &Touch{Pos: ws[0].pos, At: a, Pages: n}
	if len(ws) > 3 {
		switch ws[3].text {
		case "write":
			t.Write = true
		case "read":
		default:
			p.errorf(ws[3].pos, "expected read or write after the number of pages, found %s", quote(ws[3].text))
			return nil
		}
		p.extra(ll, ws, 4, "read or write")
	}
	return t
}

// sysArg parses one argument word: "string", or NUMBER|NAME terms joined by |.
func (p *parser) sysArg(w token) (SysArg, bool) {
	a := SysArg{Pos: w.pos}
	if strings.HasPrefix(w.text, `"`) {
		s, col, msg := unquote(w.text) // words_quoted.go
		if msg != "" {
			pos := w.pos
			pos.Col += col
			p.errorf(pos, "%s", msg)
			return a, false
		}
		a.Str, a.IsStr = s, true
		return a, true
	}
	off := 0
	for _, part := range strings.Split(w.text, "|") {
		pos := w.pos
		pos.Col += off
		off += len(part) + 1
		t := ArgTerm{Pos: pos}
		neg := strings.HasPrefix(part, "-")
		switch v, err := parseUint(strings.TrimPrefix(part, "-")); {
		case err == nil:
			if neg {
				v = -v
			}
			t.Value = v
		case isName(part):
			t.Name = part
		default:
			p.errorf(pos, "expected a number, a constant like PR_SET_NAME or MAP_PRIVATE|MAP_ANONYMOUS, a variable or a \"string\", found %s", quote(part))
			return a, false
		}
		a.Terms = append(a.Terms, t)
	}
	return a, true
}
