package sched

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cfsRemove takes a task out of its cfs_rq list in place: the others keep
// their order (the picks take the first of equals), a task not on it
// changes nothing, and a dequeue and enqueue again allocate nothing.
func TestCfsRemoveInPlace(t *testing.T) {
	_, s := newSched(t, 1, DefaultConfig())
	a, b, c := s.Spawn("a", CPUMask{}), s.Spawn("b", CPUMask{}), s.Spawn("c", CPUMask{})
	for _, tk := range []*Task{a, b, c} {
		s.cfsRemove(tk)
	}
	names := func() []string {
		var out []string
		for _, tk := range s.cfs[0] {
			out = append(out, tk.Comm)
		}
		return out
	}
	s.cfsAdd(0, a)
	s.cfsAdd(0, b)
	s.cfsAdd(0, c)
	s.cfsRemove(b)
	if d := cmp.Diff([]string{"a", "c"}, names()); d != "" {
		t.Errorf("after removing b (-want +got):\n%s", d)
	}
	if b.ee.rq != 0 || s.cfs[0][:3][2] != nil {
		t.Errorf("b still queued (rq %d) or its old slot still held", b.ee.rq)
	}
	s.cfsRemove(b) // not queued: nothing
	s.cfsAdd(0, b)
	if d := cmp.Diff([]string{"a", "c", "b"}, names()); d != "" {
		t.Errorf("after b again (-want +got):\n%s", d)
	}
	if n := testing.AllocsPerRun(100, func() { s.cfsRemove(a); s.cfsAdd(0, a) }); n != 0 {
		t.Errorf("a dequeue and an enqueue allocate %v times", n)
	}
	if d := cmp.Diff([]string{"c", "b", "a"}, names()); d != "" {
		t.Errorf("at the end (-want +got):\n%s", d)
	}
}
