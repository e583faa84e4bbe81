package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The README's list of built-in scenarios is what `simrun list` prints.
func TestReadmeListsTheBuiltins(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "## The built-in scenarios")
	if i < 0 {
		t.Fatal("README has no \"## The built-in scenarios\" section")
	}
	s = s[i:]
	a := strings.Index(s, "```\n")
	b := strings.Index(s[a+4:], "```")
	if a < 0 || b < 0 {
		t.Fatal("README's built-in section has no code block")
	}
	got := s[a+4 : a+4+b]
	want, _, code := cli(t, t.TempDir(), "list")
	if code != 0 {
		t.Fatalf("simrun list exited %d", code)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README's built-in list differs from simrun list (-list +README):\n%s", diff)
	}
}
