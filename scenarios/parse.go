package scenarios

import (
	"fmt"
	"strings"
)

type parser struct {
	f       *File
	errs    []*Error
	tooMany bool
}

// Parse parses a scenario file. filename is used in error messages only. It always
// returns a *File, with what could be parsed; the error, if any, is an ErrorList
// of up to 10 errors sorted by position. Parse never panics.
func Parse(filename string, src []byte) (*File, error) {
	lines := splitLines(string(src))
	p := &parser{f: &File{Name: filename, lines: lines}}
	tree := p.buildTree(logicalLines(lines))
	for _, n := range tree {
		p.topLevel(n)
	}
	p.f.texts = make(map[*Outcome]string, len(p.f.Outcomes))
	for _, o := range p.f.Outcomes {
		p.f.texts[o] = p.f.outcomeText(o)
	}
	if len(p.errs) == 0 {
		return p.f, nil
	}
	sortErrors(p.errs)
	return p.f, ErrorList(p.errs)
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	if p.tooMany {
		return
	}
	if len(p.errs) == maxErrors {
		p.tooMany = true
		p.errs = append(p.errs, newError(p.f.Name, p.f.lines, pos, "too many errors"))
		return
	}
	p.errs = append(p.errs, newError(p.f.Name, p.f.lines, pos, fmt.Sprintf(format, args...)))
}

// found describes token i of ws for an error message.
func found(ws []token, i int) string {
	if i >= len(ws) {
		return "end of line"
	}
	return quote(ws[i].text)
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// endPos is the position just past the last word, or the line end.
func endPos(ll *logicalLine, ws []token) Pos {
	if len(ws) == 0 {
		return ll.posAt(ll.start)
	}
	last := ws[len(ws)-1]
	return ll.posAt(last.off + len(last.text))
}

// at returns the position of token i, or the end of the line.
func at(ll *logicalLine, ws []token, i int) Pos {
	if i < len(ws) {
		return ws[i].pos
	}
	return endPos(ll, ws)
}

// extra reports words after the statement's last expected word.
func (p *parser) extra(ll *logicalLine, ws []token, i int, what string) {
	if i < len(ws) {
		p.errorf(ws[i].pos, "unexpected %s after %s (a comment starts with #)", quote(ws[i].text), what)
	}
}

func (p *parser) noBlock(n *node) {
	if len(n.children) > 0 {
		c := n.children[0].line
		p.errorf(c.posAt(c.start), "unexpected indentation: only task, program, fork, thread, repeat and when lines take an indented block")
	}
}

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// isName reports whether s is a name: letters, digits and _, joined by - or .
// (task names, sessions, knobs, PMUs, syscalls, verbs, scenario names).
func isName(s string) bool { return isNameWith(s, ".-") }

// isLabel is isName that also allows ':' joins (step point labels).
func isLabel(s string) bool { return isNameWith(s, ".-:") }

func isNameWith(s, joins string) bool {
	if s == "" || !isNameChar(s[0]) || !isNameChar(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isNameChar(c) && (strings.IndexByte(joins, c) < 0 || !isNameChar(s[i-1])) {
			return false
		}
	}
	return true
}

var topKeywords = []string{
	"scenario", "title", "cpus", "pmu", "kernel", "tool", "task", "record",
	"at", "nmi", "ipi", "irq_work", "preempt", "migrate", "cpu-offline", "cpu-online", "always", "never", "sometimes", "when", "program",
	"cgroup", "fail", "user",
}

var taskKeywords = []string{"compute", "syscall", "sleep", "repeat", "stack", "migrate", "pin", "exit",
	"fork", "thread", "wait", "join", "exit_group", "yield", "pipe", "futex", "nanosleep", "touch",
	"open", "close", "ioctl", "mmap", "munmap", "read", "access", "fcntl", "sigaction", "setrlimit", "sigprocmask"}

func (p *parser) topLevel(n *node) {
	ll := n.line
	ws := ll.words(ll.start)
	if len(ws) == 0 || ll.bad {
		return
	}
	kw := ws[0].text
	switch kw {
	case "task":
		p.task(n, ws)
		return
	case "when":
		p.when(n, ws)
		return
	case "program":
		p.program(n, ws)
		return
	}
	p.noBlock(n)
	switch kw {
	case "scenario":
		p.scenario(ll, ws)
	case "title":
		p.title(ll, ws)
	case "cpus":
		p.cpus(ll, ws)
	case "user":
		p.user(ll, ws)
	case "pmu":
		p.pmu(ll, ws)
	case "cgroup":
		p.cgroup(ll, ws)
	case "kernel", "tool":
		p.settings(ll, ws)
	case "record":
		p.record(ll, ws[0].off+len(kw), ws[0].pos)
	case "perf":
		if len(ws) < 2 || ws[1].text != "record" {
			p.errorf(at(ll, ws, 1), "expected record after perf, found %s", found(ws, 1))
			return
		}
		p.record(ll, ws[1].off+len("record"), ws[0].pos)
	case "at":
		p.action(ll, ws)
	case "nmi", "ipi", "irq_work", "preempt", "migrate", "cpu-offline", "cpu-online":
		p.force(ll, ws)
	case "always", "never", "sometimes":
		p.outcome(ll, ws, 0, nil)
	case "fail":
		p.fail(ll, ws)
	default:
		for _, k := range taskKeywords {
			if k == kw {
				p.errorf(ws[0].pos, "%s belongs to a task's program: indent it under a task line", kw)
				return
			}
		}
		if hint := didYouMean(kw, append(append([]string(nil), topKeywords...), "perf")); hint != "" {
			p.errorf(ws[0].pos, "unknown statement %s%s", quote(kw), hint)
			return
		}
		p.errorf(ws[0].pos, "unknown statement %s; expected one of: %s", quote(kw), strings.Join(topKeywords, ", "))
	}
}
