package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"perfsim/scenarios"
)

// TestLanguageExamplesCheck: the language's examples (scenarios/testdata/examples
// and the examples in scenarios/doc.go) pass `simrun check`: the real registry,
// not a hand-made one, so a renamed knob or observable cannot leave the
// documentation behind.
func TestLanguageExamplesCheck(t *testing.T) {
	paths, err := filepath.Glob("../scenarios/testdata/examples/*.sim")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	type example struct{ name, src string }
	var examples []example
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		examples = append(examples, example{filepath.Base(p), string(b)})
	}
	doc, err := os.ReadFile("../scenarios/doc.go")
	if err != nil {
		t.Fatal(err)
	}
	examples = append(examples, example{"doc.go (the language example)", docExample(t, string(doc), "//\t# aux-pause-resume-nmi.sim")})
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			if _, err := Load(&scenarios.Source{Name: ex.name, Src: []byte(ex.src)}); err != nil {
				t.Errorf("simrun check fails:\n%v", err)
			}
		})
	}
}

// docExample is the indented example block of a doc comment that starts with
// the line first.
func docExample(t *testing.T, doc, first string) string {
	i := strings.Index(doc, first)
	if i < 0 {
		t.Fatalf("doc.go has no example starting %q", first)
	}
	var b strings.Builder
	for _, l := range strings.Split(doc[i:], "\n") {
		switch {
		case strings.HasPrefix(l, "//\t"):
			b.WriteString(l[3:] + "\n")
		case l == "//":
			b.WriteString("\n")
		default:
			return b.String()
		}
	}
	return b.String()
}
