package scenarios

import "strings"

// OutcomeText returns an outcome as written: its when conditions and its line
// from the quantifier on, without a comment.
func (f *File) OutcomeText(o *Outcome) string {
	if t, ok := f.texts[o]; ok {
		return t
	}
	return f.outcomeText(o)
}

func (f *File) outcomeText(o *Outcome) string {
	var b strings.Builder
	if len(o.When) > 0 {
		b.WriteString("when")
		for _, s := range o.When {
			b.WriteString(" " + s.Name + "=" + s.Value)
		}
		b.WriteString(" ")
	}
	line := ""
	if o.Pos.Line >= 1 && o.Pos.Line <= len(f.lines) {
		line = f.lines[o.Pos.Line-1]
		if o.Pos.Col-1 < len(line) {
			line = line[o.Pos.Col-1:]
		}
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimRight(strings.TrimSpace(line), "\\ \t")
	}
	if line == "" {
		line = o.Quant.String() + " " + o.Cond.String()
	}
	b.WriteString(line)
	return b.String()
}
