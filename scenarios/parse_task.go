package scenarios

import "strings"

func (p *parser) task(n *node, ws []token) {
	ll := n.line
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected a task name like uname after task, found %s", found(ws, 1))
		return
	}
	t := &Task{Pos: ws[0].pos, Name: ws[1].text}
	for i := 2; i < len(ws); {
		switch {
		case ws[i].text == "nice":
			if t.Nice != nil {
				p.errorf(ws[i].pos, "nice is given twice")
			}
			v, ok := int64(0), false
			if i+1 < len(ws) {
				v, ok = parseNice(ws[i+1].text)
			}
			if !ok {
				p.errorf(at(ll, ws, i+1), "expected a nice value from -20 to 19 after nice, found %s", found(ws, i+1))
				i = len(ws)
				continue
			}
			t.Nice = &Int{Pos: ws[i+1].pos, Value: v}
			i += 2
		case strings.HasPrefix(ws[i].text, "cpu"):
			if t.Affinity != nil {
				p.errorf(ws[i].pos, "the task's CPUs are given twice")
			}
			set, next, ok := p.cpuSet(ll, ws, i)
			if !ok {
				i = len(ws)
				continue
			}
			t.Affinity, i = set, next
		default:
			p.errorf(ws[i].pos, "expected cpu N, cpus LIST or nice N after the task name, found %s", quote(ws[i].text))
			i = len(ws)
		}
	}
	t.Body = p.ops(n.children)
	p.f.Tasks = append(p.f.Tasks, t)
}

func parseNice(s string) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	v, err := parseUint(strings.TrimPrefix(s, "-"))
	if err != nil || strings.HasPrefix(s, "-0x") || strings.HasPrefix(s, "0x") {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, v >= -20 && v <= 19
}

// ops parses the statements of a task's program.
func (p *parser) ops(nodes []*node) []Op {
	var out []Op
	for _, n := range nodes {
		if op := p.op(n); op != nil {
			out = append(out, op)
		}
	}
	return out
}

func (p *parser) op(n *node) Op {
	ll := n.line
	ws := ll.taskWords(ll.start) // words_quoted.go: "strings with blanks"
	if len(ws) == 0 || ll.bad {
		return nil
	}
	kw, pos := ws[0].text, ws[0].pos
	if kw == "repeat" {
		if len(ws) < 2 {
			p.errorf(endPos(ll, ws), "expected a count after repeat, like repeat 3")
			return nil
		}
		v, err := parseUint(ws[1].text)
		if err == errTooLarge {
			p.errorf(ws[1].pos, "repeat count %s is too large: at most 9223372036854775807 (and a run stops at its step limit long before)", quote(ws[1].text))
			return nil
		}
		if err != nil || v < 1 {
			p.errorf(ws[1].pos, "expected a count from 1 after repeat, like 3 or 3_000_000, found %s", quote(ws[1].text))
			return nil
		}
		p.extra(ll, ws, 2, "the repeat count")
		if len(n.children) == 0 {
			p.errorf(pos, "repeat needs an indented block of statements under it")
			return nil
		}
		return &Repeat{Pos: pos, Count: v, Body: p.ops(n.children)}
	}
	if op, ok := p.taskLifeOp(n, ws); ok {
		return op
	}
	p.noBlock(n)
	switch kw {
	case "compute", "sleep":
		if len(ws) < 2 {
			p.errorf(endPos(ll, ws), "expected a duration like 5us or 2ms after %s", kw)
			return nil
		}
		d, err := ParseDuration(ws[1].text)
		if err != nil {
			p.errorf(ws[1].pos, "%v", err)
			return nil
		}
		p.extra(ll, ws, 2, "the duration")
		if kw == "sleep" {
			return &Sleep{Pos: pos, Dur: d}
		}
		return &Compute{Pos: pos, Dur: d}
	case "syscall":
		return p.syscall(ll, ws)
	case "touch":
		return p.touch(ll, ws)
	case "stack":
		return p.stack(ll, ws)
	case "migrate":
		c, _, next, ok := p.cpuRef(ll, ws, 1)
		if !ok {
			return nil
		}
		p.extra(ll, ws, next, "the CPU")
		return &Migrate{Pos: pos, CPU: c}
	case "pin":
		set, next, ok := p.cpuSet(ll, ws, 1)
		if !ok {
			return nil
		}
		p.extra(ll, ws, next, "the CPUs")
		return &Pin{Pos: pos, CPUs: *set}
	case "exit":
		p.extra(ll, ws, 1, "exit")
		return &Exit{Pos: pos}
	case "access":
		return p.access(ll, ws)
	case "open", "close", "ioctl", "mmap", "munmap", "read", "fcntl":
		if op := p.perfOp(ll, ws); op != nil {
			return op
		}
		return nil
	}
	for _, k := range topKeywords {
		if k == kw {
			p.errorf(pos, "%s is not part of a task's program: write it without indentation", kw)
			return nil
		}
	}
	if hint := didYouMean(kw, taskKeywords); hint != "" {
		p.errorf(pos, "unknown task statement %s%s", quote(kw), hint)
		return nil
	}
	p.errorf(pos, "unknown task statement %s; expected one of: %s", quote(kw), strings.Join(taskKeywords, ", "))
	return nil
}

// stack parses "stack user|kernel FRAME;FRAME;...".
func (p *parser) stack(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 || ws[1].text != "user" && ws[1].text != "kernel" {
		p.errorf(at(ll, ws, 1), "expected user or kernel after stack, found %s", found(ws, 1))
		return nil
	}
	st := &Stack{Pos: ws[0].pos, Kernel: ws[1].text == "kernel"}
	if len(ws) < 3 {
		p.errorf(endPos(ll, ws), "expected frames like main;foo;bar after stack %s", ws[1].text)
		return nil
	}
	// The frames are the rest of the line up to a comment; blanks around ';' are allowed.
	from := ws[2].off
	text := strings.TrimRight(ll.text[from:ll.commentStart(from)], " \t")
	off := from
	for _, fr := range strings.Split(text, ";") {
		name := strings.TrimSpace(fr)
		lead := len(fr) - len(strings.TrimLeft(fr, " \t"))
		if name == "" || strings.ContainsAny(name, " \t") {
			p.errorf(ll.posAt(off+lead), "expected frame names separated by ; like main;foo;bar, found %s", quote(name))
			return nil
		}
		st.Frames = append(st.Frames, name)
		off += len(fr) + 1
	}
	return st
}
