package scenarios

import "strings"

// perfOp parses the perf file system calls of a task's program (PerfOp).
func (p *parser) perfOp(ll *logicalLine, ws []token) *PerfOp {
	verb := ws[0].text
	if len(ws) < 2 || !isName(ws[1].text) {
		p.errorf(at(ll, ws, 1), "expected an fd name like fd3 after %s, found %s", verb, found(ws, 1))
		return nil
	}
	op := &PerfOp{Pos: ws[0].pos, Verb: verb, FD: &Ident{Pos: ws[1].pos, Name: ws[1].text}, CPU: -1}
	i := 2
	switch verb {
	case "close", "munmap", "read":
	case "fcntl":
		return p.fcntl(ll, ws, op)
	case "open":
		return p.perfOpen(ll, ws, op)
	case "ioctl":
		if i >= len(ws) {
			p.errorf(endPos(ll, ws), "expected a request like ENABLE, DISABLE or SET_OUTPUT after ioctl %s", op.FD.Name)
			return nil
		}
		name, ok := IoctlRequest(ws[i].text)
		if _, err := parseUint(ws[i].text); !ok && err != nil {
			p.errorf(ws[i].pos, "unknown ioctl request %s%s; expected one of: %s (or a number)", quote(ws[i].text),
				didYouMean(name, IoctlRequests), strings.Join(IoctlRequests, ", "))
			return nil
		}
		op.Request = &Ident{Pos: ws[i].pos, Name: name}
		i++
		switch name {
		case "SET_FILTER":
			// The filter is the rest of the line: ioctl tp SET_FILTER prev_pid == 5 && next_prio < 100
			if i >= len(ws) {
				p.errorf(endPos(ll, ws), "expected a filter like prev_pid == 5 (a tracepoint's ftrace filter) after ioctl %s SET_FILTER", op.FD.Name)
				return nil
			}
			op.Filter = strings.TrimRight(ll.text[ws[i].off:ws[len(ws)-1].off+len(ws[len(ws)-1].text)], " \t")
			op.FilterPos = ws[i].pos
			return op
		case "MODIFY_ATTRIBUTES":
			// ioctl bp MODIFY_ATTRIBUTES [-e] mem:0x2000/8:w [FIELD=VALUE...]: the new attr
			if i < len(ws) && ws[i].text == "-e" {
				i++
			}
			if i >= len(ws) {
				p.errorf(endPos(ll, ws), "expected the new event like mem:0x2000/8:w (as perf record -e takes it) after ioctl %s MODIFY_ATTRIBUTES", op.FD.Name)
				return nil
			}
			op.Event = &Ident{Pos: ws[i].pos, Name: ws[i].text}
			for i++; i < len(ws); i++ {
				name, val, _ := strings.Cut(ws[i].text, "=")
				if !isName(name) {
					p.errorf(ws[i].pos, "expected an attr field like sig_data=42 after the event of MODIFY_ATTRIBUTES, found %s", quote(ws[i].text))
					return nil
				}
				op.Fields = append(op.Fields, &Setting{Pos: ws[i].pos, Name: name, ValuePos: Pos{Line: ws[i].pos.Line, Col: ws[i].pos.Col + len(name) + 1}, Value: val})
			}
			return op
		}
		if i < len(ws) && ws[i].text != "group" {
			op.Arg = &Ident{Pos: ws[i].pos, Name: ws[i].text}
			i++
		}
		if i < len(ws) && ws[i].text == "group" {
			op.AllOfGroup = true
			i++
		}
		switch name {
		case "SET_OUTPUT":
			if op.Arg == nil {
				p.errorf(endPos(ll, ws), "expected the fd name to redirect to (or -1) after ioctl %s SET_OUTPUT", op.FD.Name)
				return nil
			}
		case "REFRESH", "PERIOD", "PAUSE_OUTPUT":
			if op.Arg == nil {
				p.errorf(endPos(ll, ws), "expected a number after ioctl %s %s", op.FD.Name, name)
				return nil
			}
		}
		if op.Arg != nil && name != "SET_OUTPUT" {
			if _, err := parseSignedArg(op.Arg.Name); err != nil {
				p.errorf(op.Arg.Pos, "expected a number as the argument of %s, found %s", name, quote(op.Arg.Name))
				return nil
			}
		}
	case "mmap":
		if i < len(ws) && ws[i].text == "aux" {
			op.Aux = true
			i++
		}
		if i >= len(ws) && op.Aux {
			p.errorf(endPos(ll, ws), "expected the number of AUX pages (a power of two, like 16) after mmap %s aux", op.FD.Name)
			return nil
		}
		if i >= len(ws) {
			p.errorf(endPos(ll, ws), "expected the number of data pages (a power of two, like 8) after mmap %s", op.FD.Name)
			return nil
		}
		n, err := parseUint(ws[i].text)
		if err != nil || n > 1<<20 {
			p.errorf(ws[i].pos, "expected the number of data pages (a power of two, like 8) after mmap %s, found %s", op.FD.Name, quote(ws[i].text))
			return nil
		}
		if op.Aux && (n == 0 || n&(n-1) != 0) {
			p.errorf(ws[i].pos, "expected the number of AUX pages (a power of two, like 16) after mmap %s aux, found %s", op.FD.Name, quote(ws[i].text))
			return nil
		}
		op.Pages = n
		i++
		if i < len(ws) && ws[i].text == "ro" {
			op.ReadOnly = true
			i++
		}
	}
	p.extra(ll, ws, i, verb+" "+op.FD.Name)
	return op
}

// parseSignedArg parses an ioctl argument: a number, possibly -1.
func parseSignedArg(s string) (int64, error) {
	if v, ok := strings.CutPrefix(s, "-"); ok {
		n, err := parseUint(v)
		return -n, err
	}
	return parseUint(s)
}

func (p *parser) perfOpen(ll *logicalLine, ws []token, op *PerfOp) *PerfOp {
	for i := 2; i < len(ws); {
		w := ws[i]
		switch {
		case w.text == "-e":
			if i+1 >= len(ws) {
				p.errorf(endPos(ll, ws), "expected an event like cycles/period=1000/ after -e")
				return nil
			}
			if op.Event != nil {
				p.errorf(w.pos, "-e is given twice (one event per open)")
				return nil
			}
			op.Event = &Ident{Pos: ws[i+1].pos, Name: ws[i+1].text}
			i += 2
		case strings.HasPrefix(w.text, "cpu") && w.text != "cpus":
			c, pos, next, ok := p.cpuRef(ll, ws, i)
			if !ok {
				return nil
			}
			op.CPU, op.CPUPos, i = c, pos, next
		case w.text == "pid" || w.text == "group" || w.text == "flags":
			if i+1 >= len(ws) {
				p.errorf(endPos(ll, ws), "expected a value after %s", w.text)
				return nil
			}
			v := &Ident{Pos: ws[i+1].pos, Name: ws[i+1].text}
			switch w.text {
			case "pid":
				if v.Name != "-1" && !isName(v.Name) {
					p.errorf(v.Pos, "expected a task name, self or -1 after pid, found %s", quote(v.Name))
					return nil
				}
				op.PID = v
			case "group":
				if !isName(v.Name) {
					p.errorf(v.Pos, "expected the group leader's fd name after group, found %s", quote(v.Name))
					return nil
				}
				op.Group = v
			case "flags":
				for _, f := range strings.Split(v.Name, ",") {
					if !containsStr(OpenFlags, f) {
						p.errorf(v.Pos, "unknown perf_event_open flag %s; expected: %s", quote(f), strings.Join(OpenFlags, ", "))
						return nil
					}
					op.Flags = append(op.Flags, &Ident{Pos: v.Pos, Name: f})
				}
			}
			i += 2
		default:
			name, val, _ := strings.Cut(w.text, "=")
			if !isName(name) {
				p.errorf(w.pos, "expected -e EVENT, cpuN, pid, group, flags or an attr field like sample_type=IP|TID, found %s", quote(w.text))
				return nil
			}
			op.Fields = append(op.Fields, &Setting{Pos: w.pos, Name: name, ValuePos: Pos{Line: w.pos.Line, Col: w.pos.Col + len(name) + 1}, Value: val})
			i++
		}
	}
	return op
}

// OpenFlags are the perf_event_open() flags "flags a,b" may name.
var OpenFlags = []string{"fd_no_group", "fd_output", "pid_cgroup", "fd_cloexec"}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// access parses "access ADDR [r|w|x] [LEN]".
func (p *parser) access(ll *logicalLine, ws []token) Op {
	if len(ws) < 2 {
		p.errorf(endPos(ll, ws), "expected an address like 0x1000 after access")
		return nil
	}
	addr, err := parseUint(ws[1].text)
	if err != nil {
		p.errorf(ws[1].pos, "expected an address like 0x1000 after access, found %s", quote(ws[1].text))
		return nil
	}
	op := &Access{Pos: ws[0].pos, Addr: uint64(addr), Kind: "w", Len: 1}
	i := 2
	if i < len(ws) && (ws[i].text == "r" || ws[i].text == "w" || ws[i].text == "x") {
		op.Kind = ws[i].text
		i++
	}
	if i < len(ws) {
		n, err := parseUint(ws[i].text)
		if err != nil || n < 1 || n > 4096 {
			p.errorf(ws[i].pos, "expected the access length (1 to 4096) after access ADDR %s, found %s", op.Kind, quote(ws[i].text))
			return nil
		}
		op.Len = uint64(n)
		i++
	}
	p.extra(ll, ws, i, "access")
	return op
}

// FcntlCommands are the fcntl commands "fcntl NAME CMD [ARG]" takes, and
// whether each needs an argument.
var FcntlCommands = map[string]bool{"F_SETFL": true, "F_SETOWN": true, "F_SETSIG": true, "F_GETFL": false, "F_GETOWN": false, "F_GETSIG": false, "F_SETOWN_EX": true}

// FcntlOwnerTypes are the owner types F_SETOWN_EX takes (struct f_owner_ex's type).
var FcntlOwnerTypes = map[string]int64{"F_OWNER_TID": 0, "F_OWNER_PID": 1, "F_OWNER_PGRP": 2}

// FcntlSignals are the signal names F_SETSIG takes besides numbers.
var FcntlSignals = map[string]int64{"SIGIO": 29, "SIGPOLL": 29, "SIGUSR1": 10, "SIGUSR2": 12, "SIGRTMIN": 32}

// fcntl parses "fcntl NAME CMD [ARG]".
func (p *parser) fcntl(ll *logicalLine, ws []token, op *PerfOp) *PerfOp {
	var cmds []string
	for c := range FcntlCommands {
		cmds = append(cmds, c)
	}
	sortStrings(cmds)
	if len(ws) < 3 {
		p.errorf(endPos(ll, ws), "expected an fcntl command (%s) after fcntl %s", strings.Join(cmds, ", "), op.FD.Name)
		return nil
	}
	needArg, ok := FcntlCommands[ws[2].text]
	if !ok {
		p.errorf(ws[2].pos, "unknown fcntl command %s%s; expected one of: %s", quote(ws[2].text), didYouMean(ws[2].text, cmds), strings.Join(cmds, ", "))
		return nil
	}
	op.Request = &Ident{Pos: ws[2].pos, Name: ws[2].text}
	i := 3
	if needArg {
		if i >= len(ws) {
			p.errorf(endPos(ll, ws), "expected the argument of %s after fcntl %s %s", op.Request.Name, op.FD.Name, op.Request.Name)
			return nil
		}
		a := ws[i].text
		valid := false
		switch op.Request.Name {
		case "F_SETFL":
			_, err := parseUint(a)
			valid = a == "O_ASYNC" || err == nil
		case "F_SETOWN":
			b := strings.TrimPrefix(a, "-") // -pgid: a process group
			_, err := parseUint(b)
			valid = a == "self" || isName(b) || err == nil
		case "F_SETOWN_EX":
			_, valid = FcntlOwnerTypes[a]
			if valid {
				if i+1 >= len(ws) {
					p.errorf(endPos(ll, ws), "expected the owner (a task, self or a pid) after fcntl %s F_SETOWN_EX %s", op.FD.Name, a)
					return nil
				}
				w := ws[i+1].text
				if _, err := parseUint(w); err != nil && w != "self" && !isName(w) {
					p.errorf(ws[i+1].pos, "unexpected %s as the owner of F_SETOWN_EX (a task, self or a pid)", quote(w))
					return nil
				}
				op.Owner = &Ident{Pos: ws[i+1].pos, Name: w}
			}
		case "F_SETSIG":
			_, err := parseUint(a)
			_, named := FcntlSignals[a]
			valid = named || err == nil
		}
		if !valid {
			p.errorf(ws[i].pos, "unexpected %s as the argument of %s (F_SETFL: O_ASYNC or a number; F_SETOWN: a task, self or a pid, -TASK or -PID for a process group; F_SETSIG: SIGIO, SIGUSR1, SIGUSR2, SIGRTMIN or a number; F_SETOWN_EX: F_OWNER_TID, F_OWNER_PID or F_OWNER_PGRP then the owner)", quote(a), op.Request.Name)
			return nil
		}
		op.Arg = &Ident{Pos: ws[i].pos, Name: a}
		i++
		if op.Owner != nil {
			i++
		}
	}
	p.extra(ll, ws, i, "fcntl "+op.FD.Name+" "+op.Request.Name)
	return op
}

func sortStrings(l []string) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j] < l[j-1]; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}
