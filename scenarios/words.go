package scenarios

// A token is a blank-separated word of a statement line, with its position.
type token struct {
	text string
	pos  Pos
	off  int // byte offset in the logical line
}

// words splits ll.text[from:] at blanks. A '#' that begins a word starts a comment.
func (ll *logicalLine) words(from int) []token {
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
		for j < len(s) && !isBlank(s[j]) {
			j++
		}
		out = append(out, token{text: s[i:j], pos: ll.posAt(i), off: i})
		i = j
	}
	return out
}

// commentStart returns the offset of the comment in ll.text[from:] ('#' at the
// start of a word), or len(ll.text).
func (ll *logicalLine) commentStart(from int) int {
	s := ll.text
	for i := from; i < len(s); i++ {
		if s[i] == '#' && (i == from || isBlank(s[i-1])) {
			return i
		}
	}
	return len(s)
}
