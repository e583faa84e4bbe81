package scenarios

import "strings"

// shellWords splits ll.text[from:] like a POSIX shell splits a simple command,
// without expansions: blanks separate words; '...' is literal; in "..." a
// backslash escapes only $ ` " and \; outside quotes a backslash escapes any
// character; a '#' that begins a word starts a comment. The shell operators
// | & ; < > and ` are rejected, since there is no shell to run them. On an error
// it returns the words so far and the error's position and message.
func shellWords(ll *logicalLine, from int) ([]Word, *Pos, string) {
	s := ll.text
	var words []Word
	i := from
	for {
		for i < len(s) && isBlank(s[i]) {
			i++
		}
		if i >= len(s) || s[i] == '#' {
			return words, nil, ""
		}
		w := Word{Pos: ll.posAt(i)}
		var b strings.Builder
		add := func(c byte, at int) {
			b.WriteByte(c)
			w.src = append(w.src, ll.posAt(at))
		}
		for i < len(s) && !isBlank(s[i]) {
			c := s[i]
			switch c {
			case '\'':
				w.Quoted = true
				open := i
				i++
				for i < len(s) && s[i] != '\'' {
					add(s[i], i)
					i++
				}
				if i >= len(s) {
					p := ll.posAt(open)
					return words, &p, "unterminated single quote: a quote must close on the same line"
				}
				i++
			case '"':
				w.Quoted = true
				open := i
				i++
				for i < len(s) && s[i] != '"' {
					if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
						i++
					}
					add(s[i], i)
					i++
				}
				if i >= len(s) {
					p := ll.posAt(open)
					return words, &p, "unterminated double quote: a quote must close on the same line"
				}
				i++
			case '\\':
				w.Quoted = true
				if i+1 >= len(s) {
					p := ll.posAt(i)
					return words, &p, "a backslash at the end of the line must be its last character, to continue the line"
				}
				add(s[i+1], i+1)
				i += 2
			case '|', '&', ';', '<', '>', '`':
				p := ll.posAt(i)
				return words, &p, "shell operator " + quote(string(c)) + " is not supported (there is no shell); quote it if it is part of an argument"
			default:
				add(c, i)
				i++
			}
		}
		w.Text = b.String()
		w.src = append(w.src, ll.posAt(i))
		words = append(words, w)
	}
}
