package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type wordPos struct {
	Text string
	Pos  string
}

func splitForTest(src string) ([]wordPos, string) {
	lls := logicalLines(splitLines(src))
	if len(lls) == 0 {
		return nil, "no line"
	}
	words, errPos, msg := shellWords(lls[0], 0)
	var out []wordPos
	for _, w := range words {
		out = append(out, wordPos{w.Text, w.Pos.String()})
	}
	if errPos != nil {
		return out, errPos.String() + ": " + msg
	}
	return out, ""
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		want    []wordPos
		wantErr string
	}{
		{"plain", "-e cycles  -c 1000", []wordPos{{"-e", "1:1"}, {"cycles", "1:4"}, {"-c", "1:12"}, {"1000", "1:15"}}, ""},
		{"single quotes keep everything", `-e '{a//,b/x=1/}' 'x\y "z"'`, []wordPos{{"-e", "1:1"}, {"{a//,b/x=1/}", "1:4"}, {`x\y "z"`, "1:19"}}, ""},
		{"double quotes escape", `"a\"b\\c\d" x`, []wordPos{{`a"b\c\d`, "1:1"}, {"x", "1:13"}}, ""},
		{"backslash outside quotes", `a\ b c`, []wordPos{{"a b", "1:1"}, {"c", "1:6"}}, ""},
		{"adjacent parts join", `a'b c'"d"`, []wordPos{{"ab cd", "1:1"}}, ""},
		{"empty quotes are a word", `'' x`, []wordPos{{"", "1:1"}, {"x", "1:4"}}, ""},
		{"comment", "a #b c", []wordPos{{"a", "1:1"}}, ""},
		{"hash inside a word", "a#b", []wordPos{{"a#b", "1:1"}}, ""},
		{"continuation", "-e x \\\n   -- t", []wordPos{{"-e", "1:1"}, {"x", "1:4"}, {"--", "2:4"}, {"t", "2:7"}}, ""},
		{"unterminated single", "a 'b c", []wordPos{{"a", "1:1"}}, "1:3: unterminated single quote: a quote must close on the same line"},
		{"unterminated double", `a "b\"`, []wordPos{{"a", "1:1"}}, "1:3: unterminated double quote: a quote must close on the same line"},
		{"redirection", "a > b", []wordPos{{"a", "1:1"}}, `1:3: shell operator ">" is not supported (there is no shell); quote it if it is part of an argument`},
		{"quoted operator is fine", "'a|b' \\;", []wordPos{{"a|b", "1:1"}, {";", "1:7"}}, ""},
		{"trailing backslash at end of file", `a \`, []wordPos{{"a", "1:1"}}, "1:3: a backslash at the end of the line must be its last character, to continue the line"},
	}
	for _, tt := range tests {
		got, gotErr := splitForTest(tt.src)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: words (-want +got):\n%s", tt.name, diff)
		}
		if gotErr != tt.wantErr {
			t.Errorf("%s: error %q, want %q", tt.name, gotErr, tt.wantErr)
		}
	}
}

// TestWordPosAt maps offsets inside unquoted text back to source columns.
func TestWordPosAt(t *testing.T) {
	f, err := Parse("t.sim", []byte("record -e 'ab'\"c\"\\d \\\n  x\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := f.Records[0].Args[1]
	var got []string
	for i := 0; i <= len(w.Text); i++ {
		got = append(got, w.PosAt(i).String())
	}
	want := []string{"1:12", "1:13", "1:16", "1:19", "1:20"} // a b c d, then just after
	if diff := cmp.Diff("abcd", w.Text); diff != "" {
		t.Fatalf("text (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PosAt (-want +got):\n%s", diff)
	}
	if got := f.Records[0].Args[2].Pos.String(); got != "2:3" {
		t.Errorf("continued word at %s, want 2:3", got)
	}
}

func TestContinuation(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{`record -e x \`, true},
		{`record -e x \\`, false},
		{`record -e x \\\`, true},
		{`compute 5us # see C:\`, false},
		{`record -e 'a #b' \`, true},
		{`record -e 'a \`, false},
		{`record -e "a \`, false},
		{`record -e a#b \`, true},
		{`no backslash`, false},
	}
	for _, tt := range tests {
		if got := endsInContinuation(tt.line); got != tt.want {
			t.Errorf("endsInContinuation(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
