package scenarios

import "strings"

// Text returns the source text f was parsed from, one line per physical line
// ("\r\n" read as "\n", no final newline): what a replay file's scenario hash
// covers. A File built without Parse has none.
func (f *File) Text() string { return strings.Join(f.lines, "\n") }
