package scenarios

import "strings"

// A logical line is one statement: a physical line, or several joined by a
// trailing backslash. pos[i] is the source position of text[i]; pos has one
// more entry, the position just after the last byte.
type logicalLine struct {
	text   string
	pos    []Pos
	indent string // the leading blanks of the first physical line
	start  int    // byte offset in text where the statement starts (after indent)
	bad    bool   // its indentation was reported; do not parse it
}

// node is a logical line and the lines indented under it.
type node struct {
	line     *logicalLine
	children []*node
}

func (l *logicalLine) posAt(i int) Pos {
	if i < 0 {
		i = 0
	}
	if i >= len(l.pos) {
		i = len(l.pos) - 1
	}
	return l.pos[i]
}

// splitLines splits src into physical lines without their "\n" or "\r\n".
func splitLines(src string) []string {
	lines := strings.Split(src, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// endsInContinuation reports whether s ends in a backslash that is not escaped,
// quoted or part of a comment (scanning quotes as the shell does).
func endsInContinuation(s string) bool {
	var q byte // the open quote, or 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == '\'' && c == '\'', q == '"' && c == '"':
			q = 0
		case q == '\'':
		case c == '\\':
			if i == len(s)-1 {
				return q == 0
			}
			i++
		case q == '"':
		case c == '\'' || c == '"':
			q = c
		case c == '#' && (i == 0 || isBlank(s[i-1])):
			return false
		}
	}
	return false
}

// logicalLines joins continued lines and drops blank and comment-only lines.
func logicalLines(lines []string) []*logicalLine {
	var out []*logicalLine
	for i := 0; i < len(lines); i++ {
		first := lines[i]
		j := 0
		for j < len(first) && isBlank(first[j]) {
			j++
		}
		if j == len(first) || first[j] == '#' {
			continue
		}
		ll := &logicalLine{indent: first[:j], start: j}
		var b strings.Builder
		for {
			s := lines[i]
			cont := endsInContinuation(s) && i+1 < len(lines)
			if cont {
				s = s[:len(s)-1]
			}
			for c := 0; c < len(s); c++ {
				ll.pos = append(ll.pos, Pos{Line: i + 1, Col: c + 1})
			}
			b.WriteString(s)
			if !cont {
				ll.pos = append(ll.pos, Pos{Line: i + 1, Col: len(s) + 1})
				break
			}
			i++
		}
		ll.text = b.String()
		out = append(out, ll)
	}
	return out
}

// buildTree arranges logical lines into blocks by indentation. A line indented
// deeper than the previous one becomes its child. Indentation is compared as
// text, so tabs and spaces work as long as a file is consistent.
func (p *parser) buildTree(lls []*logicalLine) []*node {
	type level struct {
		indent string
		list   *[]*node
	}
	var root []*node
	stack := []level{{indent: "", list: &root}}
	tooDeep := false // the lines too deep so far were reported
	for _, ll := range lls {
		top := stack[len(stack)-1]
		switch {
		case ll.indent == top.indent:
		case strings.HasPrefix(ll.indent, top.indent) && len(*top.list) > 0 && len(stack) > MaxNesting:
			// Too deep: reported once, and kept (unparsed) under the last
			// line that fits, which so has its block.
			if !tooDeep {
				p.errorf(ll.posAt(ll.start), "blocks nest more than %d deep", MaxNesting)
			}
			tooDeep, ll.bad = true, true
			parent := (*top.list)[len(*top.list)-1]
			parent.children = append(parent.children, &node{line: ll})
			continue
		case strings.HasPrefix(ll.indent, top.indent) && len(*top.list) > 0:
			parent := (*top.list)[len(*top.list)-1]
			stack = append(stack, level{indent: ll.indent, list: &parent.children})
		case strings.HasPrefix(ll.indent, top.indent):
			p.errorf(ll.posAt(ll.start), "unexpected indentation: only task, program, fork, thread, repeat and when lines take an indented block")
			ll.bad = true
		default:
			for len(stack) > 1 && !strings.HasPrefix(ll.indent, stack[len(stack)-1].indent) {
				stack = stack[:len(stack)-1]
			}
			if stack[len(stack)-1].indent != ll.indent {
				p.errorf(ll.posAt(ll.start), "indentation does not match any enclosing block (mixed tabs and spaces?)")
				ll.bad = true
			}
		}
		top = stack[len(stack)-1]
		*top.list = append(*top.list, &node{line: ll})
		tooDeep = false
	}
	return root
}
