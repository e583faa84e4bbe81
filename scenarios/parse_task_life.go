package scenarios

// program parses "program NAME" and its indented block.
func (p *parser) program(n *node, ws []token) {
	ll := n.line
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected a program name like worker after program, found %s", found(ws, 1))
		return
	}
	p.extra(ll, ws, 2, "the program name")
	if len(n.children) == 0 {
		p.errorf(ws[0].pos, "program %s needs an indented block of statements under it", ws[1].text)
		return
	}
	p.f.Programs = append(p.f.Programs, &Program{Pos: ws[0].pos, Name: ws[1].text, Body: p.ops(n.children)})
}

// taskLifeOp parses the statements of ast_task.go; ok is false for a keyword
// that is not one of them.
func (p *parser) taskLifeOp(n *node, ws []token) (op Op, ok bool) {
	ll := n.line
	kw, pos := ws[0].text, ws[0].pos
	switch kw {
	case "fork", "thread":
		if len(ws) < 2 || !isName(ws[1].text) {
			p.errorf(at(ll, ws, 1), "expected the child's program name like worker after %s, found %s", kw, found(ws, 1))
			return nil, true
		}
		p.extra(ll, ws, 2, "the program name")
		f := &Fork{Pos: pos, Thread: kw == "thread", Name: ws[1].text}
		if len(n.children) > 0 {
			f.Block = true
			f.Body = p.ops(n.children)
		}
		return f, true
	}
	p.noBlock(n)
	switch kw {
	case "sigaction":
		return p.sigaction(ll, ws), true
	case "setrlimit":
		return p.setrlimit(ll, ws), true
	case "sigprocmask":
		return p.sigprocmask(ll, ws), true
	case "exit_group":
		p.extra(ll, ws, 1, "exit_group")
		return &ExitGroup{Pos: pos}, true
	case "wait":
		p.extra(ll, ws, 1, "wait")
		return &Wait{Pos: pos}, true
	case "join":
		if len(ws) < 2 || !isName(ws[1].text) {
			p.errorf(at(ll, ws, 1), "expected the thread's program name like worker after join, found %s", found(ws, 1))
			return nil, true
		}
		p.extra(ll, ws, 2, "the thread's name")
		return &Join{Pos: pos, Name: ws[1].text}, true
	case "yield":
		p.extra(ll, ws, 1, "yield")
		return &Yield{Pos: pos}, true
	case "pipe":
		if len(ws) < 2 || ws[1].text != "write" && ws[1].text != "read" {
			p.errorf(at(ll, ws, 1), "expected write or read after pipe, found %s", found(ws, 1))
			return nil, true
		}
		if len(ws) < 3 || !isName(ws[2].text) {
			p.errorf(at(ll, ws, 2), "expected a pipe name like p after pipe %s, found %s", ws[1].text, found(ws, 2))
			return nil, true
		}
		op := &Pipe{Pos: pos, Write: ws[1].text == "write", Name: ws[2].text, Bytes: 1}
		if len(ws) > 3 {
			v, err := parseUint(ws[3].text)
			if err != nil || v < 1 || v > 1<<20 {
				p.errorf(ws[3].pos, "expected a byte count from 1 to 1048576 after pipe %s %s, found %s", ws[1].text, ws[2].text, quote(ws[3].text))
				return nil, true
			}
			op.Bytes = v
			p.extra(ll, ws, 4, "the byte count")
		}
		return op, true
	case "futex":
		if len(ws) < 2 || ws[1].text != "wait" && ws[1].text != "wake" {
			p.errorf(at(ll, ws, 1), "expected wait or wake after futex, found %s", found(ws, 1))
			return nil, true
		}
		if len(ws) < 3 || !isName(ws[2].text) {
			p.errorf(at(ll, ws, 2), "expected a futex name like f after futex %s, found %s", ws[1].text, found(ws, 2))
			return nil, true
		}
		op := &Futex{Pos: pos, Wake: ws[1].text == "wake", Name: ws[2].text, N: 1}
		if op.Wake && len(ws) > 3 {
			v, err := parseUint(ws[3].text)
			if err != nil || v < 1 || v > 1<<30 {
				p.errorf(ws[3].pos, "expected how many waiters to wake (1 or more) after futex wake %s, found %s", ws[2].text, quote(ws[3].text))
				return nil, true
			}
			op.N = v
			p.extra(ll, ws, 4, "the waiter count")
		} else {
			p.extra(ll, ws, 3, "the futex name")
		}
		return op, true
	case "nanosleep":
		if len(ws) < 2 {
			p.errorf(endPos(ll, ws), "expected a duration like 5us or 2ms after nanosleep")
			return nil, true
		}
		d, err := ParseDuration(ws[1].text)
		if err != nil {
			p.errorf(ws[1].pos, "%v", err)
			return nil, true
		}
		p.extra(ll, ws, 2, "the duration")
		return &Sleep{Pos: pos, Dur: d}, true
	}
	return nil, false
}
