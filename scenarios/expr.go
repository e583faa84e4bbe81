package scenarios

import (
	"fmt"
	"strings"
)

// Expression syntax (see doc.go for the user-facing description):
//
//	expr    = and { "||" and }
//	and     = cmp { "&&" cmp }
//	cmp     = sum [ ("==" | "!=" | "<" | "<=" | ">" | ">=") sum ]   (no chains)
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/") unary }
//	unary   = ("!" | "-") unary | primary
//	primary = NUMBER | NAME | "(" expr ")"
//
// A NAME is letters, digits and _, joined by '.' or '-' with a name character on
// both sides: "aux.paused", "no-overlapping-pause-resume", "cpu0.nmis". So "a-b"
// is one name and subtraction needs blanks: "a - b". A name may end with one
// event index, an event's name as perf names it between [ and ] (any
// characters but blanks, brackets and #): "r.perf.samples[syscalls:sys_enter_close]",
// "perf.samples[cpu-clock/period=1000/]" (event_index.go). A NUMBER starts with a
// digit and may carry a size (K M G) or time (ns us ms s) suffix or be 0x hex.

type exprTokKind int

const (
	tEOF exprTokKind = iota
	tNum
	tName
	tOp
	tBad
	tErr // a malformed event index: text is the whole message
)

type exprTok struct {
	kind exprTokKind
	text string
	off  int
}

var exprOps = []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "*", "/", "!", "(", ")"}

// lexExpr tokenises s[from:] up to a comment.
func lexExpr(s string, from int) []exprTok {
	var out []exprTok
	i := from
	for {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		if i >= len(s) || s[i] == '#' {
			out = append(out, exprTok{kind: tEOF, off: i})
			return out
		}
		c := s[i]
		j := i + 1
		switch {
		case c >= '0' && c <= '9':
			for j < len(s) && isNameChar(s[j]) {
				j++
			}
			out = append(out, exprTok{kind: tNum, text: s[i:j], off: i})
		case isNameChar(c):
			for j < len(s) && (isNameChar(s[j]) || (s[j] == '.' || s[j] == '-') && j+1 < len(s) && isNameChar(s[j+1])) {
				j++
			}
			if j < len(s) && s[j] == '[' {
				k, bad := eventIndexEnd(s, j)
				if bad != "" {
					out = append(out, exprTok{kind: tErr, text: bad, off: k})
					out = append(out, exprTok{kind: tEOF, off: len(s)})
					return out
				}
				j = k
			}
			out = append(out, exprTok{kind: tName, text: s[i:j], off: i})
		default:
			kind, text := tBad, string(c)
			for _, op := range exprOps {
				if strings.HasPrefix(s[i:], op) {
					kind, text = tOp, op
					break
				}
			}
			if kind == tBad && c >= 0x80 {
				text = "non-ASCII character"
			}
			j = i + len(text)
			if kind == tBad {
				j = i + 1
			}
			out = append(out, exprTok{kind: kind, text: text, off: i})
		}
		i = j
	}
}

type exprParser struct {
	ll    *logicalLine
	toks  []exprTok
	i     int
	err   *exprError
	depth int // the nesting of the expression being parsed (see enter)
}

// MaxNesting bounds how deep expressions and blocks nest: deeper than that is
// an error at the place it goes past, not a crash of the parser or of the
// checks that walk the tree.
const MaxNesting = 200

// enter counts one level of nesting at t (a parenthesis, a prefix operator,
// one more operator of a chain), failing past MaxNesting.
func (x *exprParser) enter(t exprTok, n int) bool {
	x.depth += n
	if x.depth > MaxNesting && x.err == nil {
		x.fail(t, "the expression nests more than %d deep (parentheses, prefix ! and -, chained operators): split it", MaxNesting)
	}
	return x.err == nil
}

type exprError struct {
	off int
	msg string
}

func (e *exprError) Error() string { return e.msg }

func (x *exprParser) peek() exprTok { return x.toks[x.i] }

func (x *exprParser) fail(t exprTok, format string, args ...any) {
	if x.err == nil {
		x.err = &exprError{off: t.off, msg: fmt.Sprintf(format, args...)}
	}
}

func describe(t exprTok) string {
	switch t.kind {
	case tEOF:
		return "end of line"
	case tBad:
		if t.text == "non-ASCII character" {
			return t.text
		}
	}
	return quote(t.text)
}

func (x *exprParser) isOp(ops ...string) (string, bool) {
	t := x.peek()
	if t.kind != tOp {
		return "", false
	}
	for _, op := range ops {
		if t.text == op {
			return op, true
		}
	}
	return "", false
}

func (x *exprParser) binary(next func() Expr, ops ...string) Expr {
	e := next()
	chain := 0 // each operator of a chain nests the tree one deeper
	defer func() { x.depth -= chain }()
	for x.err == nil {
		op, ok := x.isOp(ops...)
		if !ok {
			return e
		}
		t := x.peek()
		if chain++; !x.enter(t, 1) {
			return nil
		}
		x.i++
		y := next()
		if x.err != nil {
			return nil
		}
		e = &Binary{Pos: x.ll.posAt(t.off), Op: op, X: e, Y: y}
	}
	return e
}

func (x *exprParser) or() Expr  { return x.binary(x.and, "||") }
func (x *exprParser) and() Expr { return x.binary(x.cmp, "&&") }
func (x *exprParser) sum() Expr { return x.binary(x.product, "+", "-") }
func (x *exprParser) product() Expr {
	return x.binary(x.unary, "*", "/")
}

var cmpOps = []string{"==", "!=", "<=", ">=", "<", ">"}

func (x *exprParser) cmp() Expr {
	e := x.sum()
	if x.err != nil {
		return nil
	}
	op, ok := x.isOp(cmpOps...)
	if !ok {
		return e
	}
	t := x.peek()
	x.i++
	y := x.sum()
	if x.err != nil {
		return nil
	}
	if _, ok := x.isOp(cmpOps...); ok {
		x.fail(x.peek(), "comparisons do not chain: write a < b && b < c")
		return nil
	}
	return &Binary{Pos: x.ll.posAt(t.off), Op: op, X: e, Y: y}
}

func (x *exprParser) unary() Expr {
	if op, ok := x.isOp("!", "-"); ok {
		t := x.peek()
		if !x.enter(t, 1) {
			return nil
		}
		defer func() { x.depth-- }()
		x.i++
		e := x.unary()
		if x.err != nil {
			return nil
		}
		return &Unary{Pos: x.ll.posAt(t.off), Op: op, X: e}
	}
	return x.primary()
}

func (x *exprParser) primary() Expr {
	t := x.peek()
	switch t.kind {
	case tNum:
		v, _, err := parseNumber(t.text)
		if err == errTooLarge {
			x.fail(t, "number %s is too large", quote(t.text))
			return nil
		}
		if err != nil {
			x.fail(t, "expected a number like 42, 4K or 5us, found %s", quote(t.text))
			return nil
		}
		x.i++
		return &Lit{Pos: x.ll.posAt(t.off), Value: v, Text: t.text}
	case tName:
		if t.text == "at" {
			break
		}
		x.i++
		return &Name{Pos: x.ll.posAt(t.off), Name: t.text}
	case tErr:
		x.fail(t, "%s", t.text)
		return nil
	case tOp:
		if t.text == "(" {
			if !x.enter(t, 1) {
				return nil
			}
			defer func() { x.depth-- }()
			x.i++
			e := x.or()
			if x.err != nil {
				return nil
			}
			if _, ok := x.isOp(")"); !ok {
				x.fail(x.peek(), "expected ) to close the ( at column %d, found %s", x.ll.posAt(t.off).Col, describe(x.peek()))
				return nil
			}
			x.i++
			return e
		}
	}
	x.fail(t, "expected a number, a name like aux.paused or no-lost-records, or (, found %s", describe(t))
	return nil
}

// parseExpr parses the outcome expression in ll.text[from:] and an optional
// "at end" or "at TIME"; atTime is the TIME token ("" for end). Offsets are into
// ll.text.
func parseExpr(ll *logicalLine, from int) (e Expr, atTime string, atOff int, err *exprError) {
	x := &exprParser{ll: ll, toks: lexExpr(ll.text, from)}
	if x.peek().kind == tEOF {
		return nil, "", 0, &exprError{off: x.peek().off, msg: "expected a condition like aux.paused == 0 or an invariant name"}
	}
	e = x.or()
	if x.err == nil {
		t := x.peek()
		switch {
		case t.kind == tName && t.text == "at":
			x.i++
			u := x.peek()
			switch {
			case u.kind == tName && u.text == "end":
				x.i++
			case u.kind == tNum:
				x.i++
				atTime, atOff = u.text, u.off
			default:
				x.fail(u, "expected end or a time like 50ms after at, found %s", describe(u))
			}
			if x.err == nil && x.peek().kind != tEOF {
				x.fail(x.peek(), "unexpected %s after the outcome's time", describe(x.peek()))
			}
		case t.kind == tOp && t.text == ")":
			x.fail(t, "unbalanced ): no ( before it")
		case t.kind == tBad && (t.text == "=" || t.text == "&" || t.text == "|"):
			x.fail(t, "unexpected %s; did you mean %s%s?", quote(t.text), t.text, t.text)
		case t.kind != tEOF:
			x.fail(t, "expected an operator, at end or the end of the line, found %s", describe(t))
		}
	}
	if x.err != nil {
		return nil, "", 0, x.err
	}
	return e, atTime, atOff, nil
}
