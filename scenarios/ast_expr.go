package scenarios

import (
	"strconv"
	"strings"
)

// Expr is an outcome expression: *Lit, *Name, *Unary or *Binary.
type Expr interface {
	ExprPos() Pos
	String() string // the expression, fully parenthesised
}

// Lit is an integer literal. Sizes (4K, 1M, 1G) are in bytes, durations (5us,
// 2ms) in nanoseconds. Text is the literal as written.
type Lit struct {
	Pos   Pos
	Value int64
	Text  string
}

// Name is an observable (dotted, e.g. aux.paused, cpu0.nmis) or an invariant
// (hyphenated, e.g. no-overlapping-pause-resume, a boolean atom).
type Name struct {
	Pos  Pos
	Name string
}

// Unary is "!X" or "-X".
type Unary struct {
	Pos Pos // of the operator
	Op  string
	X   Expr
}

// Binary is "X Op Y" with Op one of || && == != < <= > >= + - * /.
type Binary struct {
	Pos  Pos // of the operator
	Op   string
	X, Y Expr
}

func (e *Lit) ExprPos() Pos    { return e.Pos }
func (e *Name) ExprPos() Pos   { return e.Pos }
func (e *Unary) ExprPos() Pos  { return e.X.ExprPos() }
func (e *Binary) ExprPos() Pos { return e.X.ExprPos() }

func (e *Lit) String() string {
	if e.Text != "" {
		return e.Text
	}
	return strconv.FormatInt(e.Value, 10)
}
func (e *Name) String() string  { return e.Name }
func (e *Unary) String() string { return e.Op + e.X.String() }
func (e *Binary) String() string {
	var b strings.Builder
	b.WriteString("(")
	b.WriteString(e.X.String())
	b.WriteString(" ")
	b.WriteString(e.Op)
	b.WriteString(" ")
	b.WriteString(e.Y.String())
	b.WriteString(")")
	return b.String()
}

// Names calls fn for every Name in e, left to right.
func Names(e Expr, fn func(*Name)) {
	switch e := e.(type) {
	case *Name:
		fn(e)
	case *Unary:
		Names(e.X, fn)
	case *Binary:
		Names(e.X, fn)
		Names(e.Y, fn)
	}
}
