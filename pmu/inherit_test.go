package pmu

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestContextEquiv: context_equiv()'s three cases and what defeats each:
// pinning, a generation that moved on, no shared parent.
func TestContextEquiv(t *testing.T) {
	p := &Context{generation: 7}
	c1 := &Context{parentCtx: p, parentGen: 7}
	c2 := &Context{parentCtx: p, parentGen: 7}
	stale := &Context{parentCtx: p, parentGen: 6}
	other := &Context{parentCtx: &Context{}, parentGen: 7}
	pinned := &Context{parentCtx: p, parentGen: 7, pinCount: 1}
	tests := []struct {
		name   string
		c1, c2 *Context
		want   bool
	}{
		{"parent and its clone", p, c1, true},
		{"clone and its parent", c1, p, true},
		{"two clones of one parent", c1, c2, true},
		{"clone of an older generation", p, stale, false},
		{"siblings of different generations", c1, stale, false},
		{"clones of different parents", c1, other, false},
		{"a pinned clone", p, pinned, false},
		{"no parents", &Context{}, &Context{}, false},
	}
	var got, want []string
	for _, tt := range tests {
		if contextEquiv(tt.c1, tt.c2) != tt.want {
			got = append(got, tt.name)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context_equiv wrong for (-want +got):\n%s", diff)
	}
	// unclone_ctx(): no parent any more, generation moved on.
	c1.uncloneCtx()
	if c1.parentCtx != nil || c1.generation != 1 || contextEquiv(p, c1) {
		t.Errorf("after unclone: parent %v generation %d equiv %v", c1.parentCtx, c1.generation, contextEquiv(p, c1))
	}
}
