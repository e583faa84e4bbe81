package runner

import (
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
