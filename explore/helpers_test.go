package explore

import (
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
)

func loadBuiltin(t testing.TB, name string) *scenarios.File {
	t.Helper()
	src, err := scenarios.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	f, err := runner.Load(src)
	if err != nil {
		t.Fatalf("load %s:\n%v", name, err)
	}
	return f
}
