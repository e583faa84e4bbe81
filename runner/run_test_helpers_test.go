package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/scenarios"
)

func loadBuiltin(t *testing.T, name string) *scenarios.File {
	t.Helper()
	src, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Load(src)
	if err != nil {
		t.Fatalf("load %s:\n%v", name, err)
	}
	return f
}

func diffMaps(want, got map[int]string) string { return cmp.Diff(want, got) }

// violationStrings is each violation as the run prints it.
func violationStrings(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.String())
	}
	return out
}

// failedText loads text as the scenario file name, runs it once and
// returns the result as simrun run prints it when an outcome failed, ""
// when every outcome held.
func failedText(t *testing.T, name, text string) string {
	t.Helper()
	f, err := Load(&scenarios.Source{Name: name, Src: []byte(text)})
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := RunOnce(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed {
		return ""
	}
	var b strings.Builder
	res.WriteText(&b, f)
	return b.String()
}
