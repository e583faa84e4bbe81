package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestErrorSnippet(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"spaces", &Error{File: "a.sim", Line: 7, Col: 11, Source: "  compute 5x", Msg: "m"},
			"a.sim:7:11: m\n\t  compute 5x\n\t          ^"},
		{"tabs keep alignment", &Error{File: "a.sim", Line: 1, Col: 3, Source: "\t\tx", Msg: "m"},
			"a.sim:1:3: m\n\t\t\tx\n\t\t\t^"},
		{"multibyte", &Error{File: "a.sim", Line: 1, Col: 4, Source: "éa", Msg: "m"},
			"a.sim:1:4: m\n\téa\n\t  ^"},
		{"multibyte before the column", &Error{File: "a.sim", Line: 1, Col: 3, Source: "éa", Msg: "m"},
			"a.sim:1:3: m\n\téa\n\t ^"},
		{"past the end", &Error{File: "a.sim", Line: 1, Col: 4, Source: "ab", Msg: "m"},
			"a.sim:1:4: m\n\tab\n\t   ^"},
		{"empty line", &Error{File: "", Line: 2, Col: 1, Msg: "m"}, "<input>:2:1: m\n\t\n\t^"},
		{"no position", &Error{File: "f", Msg: "m"}, "f: m"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.err.Snippet()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestParseErrorList(t *testing.T) {
	_, err := Parse("x.sim", []byte("task t\n  compute 5x\n  sleep\n"))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not an ErrorList", err)
	}
	var first *Error
	if !errors.As(err, &first) || first.Line != 2 || first.Col != 11 {
		t.Fatalf("errors.As(*Error) = %+v", first)
	}
	want := strings.Join([]string{
		`x.sim:2:11: expected a duration like 5us or 2ms, found "5x"`,
		"\t  compute 5x",
		"\t          ^",
		"x.sim:3:8: expected a duration like 5us or 2ms after sleep",
		"\t  sleep",
		"\t       ^",
	}, "\n")
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFileErrorf(t *testing.T) {
	f := mustParse(t, "record -e 'cycles/bogus/' -- t\n")
	w := f.Records[0].Args[1]
	e := f.Errorf(w.PosAt(7), "unknown term %q", "bogus")
	want := "p.sim:1:19: unknown term \"bogus\"\n\trecord -e 'cycles/bogus/' -- t\n\t                  ^"
	if diff := cmp.Diff(want, e.Snippet()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestScenarioNameTooLong: a name that would make a file name too long
// for the replay file and the corpus directory is refused at its place.
func TestScenarioNameTooLong(t *testing.T) {
	name := strings.Repeat("x", MaxScenarioName+1)
	_, err := Parse("n.sim", []byte("scenario "+name+"\ncpus 1\ntask a\n  compute 1us\n"))
	want := "n.sim:1:10: the scenario name is 101 characters long; at most 100: files are named after it (its replay file, its corpus directory)"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	if _, err := Parse("n.sim", []byte("scenario "+name[1:]+"\ncpus 1\ntask a\n  compute 1us\n")); err != nil {
		t.Errorf("a name of %d characters: %v", MaxScenarioName, err)
	}
}
