package scenarios

import (
	"fmt"
	"sort"
	"strings"
)

// maxErrors is how many errors Parse reports before giving up.
const maxErrors = 10

// Error is a problem in a scenario file, at File:Line:Col. Error() is the one-line
// form "aux.sim:7:12: expected a duration like 5us or 2ms, found "5x""; Snippet adds
// the source line and a caret under the column.
type Error struct {
	File      string
	Line, Col int
	Source    string // the source line, without its newline; "" if unknown
	Msg       string
}

func (e *Error) Error() string {
	name := e.File
	if name == "" {
		name = "<input>"
	}
	if e.Line <= 0 {
		return name + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, e.Line, e.Col, e.Msg)
}

// Snippet returns Error() followed by the quoted source line and a caret under
// the column, each indented by a tab:
//
//	aux.sim:7:12: expected a duration like 5us or 2ms, found "5x"
//		    compute 5x
//		            ^
//
// A source line longer than snippetWidth is cut to the part around the
// column, with "..." where it was cut.
func (e *Error) Snippet() string {
	if e.Line <= 0 || e.Col <= 0 {
		return e.Error()
	}
	src, col := e.Source, e.Col
	if len(src) > snippetWidth {
		from := max(0, min(col-1-snippetWidth/2, len(src)-snippetWidth))
		to := min(len(src), from+snippetWidth)
		cut := src[from:to]
		if from > 0 {
			cut = "..." + cut
			col += 3 - from
		}
		if to < len(src) {
			cut += "..."
		}
		src = cut
	}
	var caret strings.Builder
	pre := src
	if col-1 < len(pre) {
		pre = pre[:col-1]
	}
	for _, r := range pre {
		if r == '\t' {
			caret.WriteByte('\t')
		} else {
			caret.WriteByte(' ')
		}
	}
	for i := len(src); i < col-1; i++ {
		caret.WriteByte(' ') // column past the end of the line
	}
	caret.WriteByte('^')
	return e.Error() + "\n\t" + src + "\n\t" + caret.String()
}

// snippetWidth is how much of a long source line a snippet shows.
const snippetWidth = 120

// ErrorList is the error Parse returns: the errors sorted by position, each with
// its snippet when printed.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Snippet())
	}
	return b.String()
}

// Unwrap lets errors.As find the individual *Error values.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

func sortErrors(l []*Error) {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
}

// Errorf returns an *Error at pos in f, with the source line for its snippet.
// The runtime uses it to report, for example, a record parser error at a Word's
// PosAt.
func (f *File) Errorf(pos Pos, format string, args ...any) *Error {
	return newError(f.Name, f.lines, pos, fmt.Sprintf(format, args...))
}

func newError(file string, lines []string, pos Pos, msg string) *Error {
	e := &Error{File: file, Line: pos.Line, Col: pos.Col, Msg: msg}
	if pos.Line >= 1 && pos.Line <= len(lines) {
		e.Source = lines[pos.Line-1]
	}
	return e
}
