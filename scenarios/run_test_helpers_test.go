package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func loadBuiltin(t *testing.T, name string) *File {
	t.Helper()
	src, err := Open(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := src.Load(nil)
	if err != nil {
		t.Fatalf("load %s:\n%v", name, err)
	}
	return f
}

func diffMaps(want, got map[int]string) string { return cmp.Diff(want, got) }
