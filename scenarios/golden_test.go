package scenarios

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with the file at path, or rewrites it with -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, diff)
	}
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return files
}

// TestExamplesGolden parses every example; each must be error-free and its
// syntax tree must match NAME.ast. (runner's TestLanguageExamplesCheck checks
// them against the simulator's real registry.)
func TestExamplesGolden(t *testing.T) {
	for _, path := range glob(t, "testdata/examples/*.sim") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(filepath.Base(path), src)
			if err != nil {
				t.Fatalf("parse:\n%v", err)
			}
			golden(t, strings.TrimSuffix(path, ".sim")+".ast", Dump(f))
		})
	}
}

// TestErrorsGolden runs Parse and then Check on each broken file and compares the
// messages, with their snippets, with NAME.golden.
func TestErrorsGolden(t *testing.T) {
	for _, path := range glob(t, "testdata/errors/*.sim") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(filepath.Base(path), src)
			var b strings.Builder
			if err != nil {
				b.WriteString("# parse\n" + err.Error() + "\n")
			} else {
				b.WriteString("# check\n")
				for _, e := range Check(f, testRegistry()) {
					b.WriteString(e.(*Error).Snippet() + "\n")
				}
			}
			if b.Len() < len("# check\n")+1 {
				t.Fatalf("%s has no errors; a file in testdata/errors must have some", path)
			}
			golden(t, strings.TrimSuffix(path, ".sim")+".golden", b.String())
		})
	}
}
