package scenarios

import "strings"

// Task statements may carry string arguments with blanks: a word that
// starts with a double quote runs to the matching unescaped quote
// ("a name with blanks"), with \" \\ \n \t as escapes, and a '#' inside it
// is text, not a comment.

// taskWords splits ll.text[from:] like words, keeping a quoted string one
// word. An unterminated string runs to the end of the line (sysArg reports
// it at its opening quote).
func (ll *logicalLine) taskWords(from int) []token {
	var out []token
	s := ll.text
	i := from
	for i < len(s) {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		if i >= len(s) || s[i] == '#' {
			break
		}
		j := i
		if s[i] == '"' {
			j = closingQuote(s, i)
		}
		for j < len(s) && !isBlank(s[j]) {
			j++
		}
		out = append(out, token{text: s[i:j], pos: ll.posAt(i), off: i})
		i = j
	}
	return out
}

// closingQuote returns the offset just after the quote that closes the
// string opened at s[open], or len(s) when none does.
func closingQuote(s string, open int) int {
	for k := open + 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return k + 1
		}
	}
	return len(s)
}

// unquote reads the string literal that starts word w: its value, or an
// error naming the column at fault (relative to the word) and what was
// expected.
func unquote(w string) (val string, col int, msg string) {
	var b strings.Builder
	for k := 1; k < len(w); k++ {
		c := w[k]
		switch c {
		case '"':
			if k+1 < len(w) {
				return "", k + 1, "expected a blank after the closing quote of the string, found " + quote(w[k+1:])
			}
			return b.String(), 0, ""
		case '\\':
			if k+1 >= len(w) {
				return "", k, "unterminated string: it ends in a backslash"
			}
			k++
			switch w[k] {
			case '"', '\\':
				b.WriteByte(w[k])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				return "", k - 1, "unknown escape \\" + string(w[k]) + " in a string (known: \\\" \\\\ \\n \\t)"
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, "unterminated string " + w + ": expected a closing \""
}
