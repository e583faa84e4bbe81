package explore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"perfsim/cpu"
)

// TestPORFootprintsSummary: the walk's fragments are counted by start,
// most met first (ties by name), all of them kept; the line names
// porTopIncomplete and says how many more; complete ones only count.
func TestPORFootprintsSummary(t *testing.T) {
	s := &porSearch{}
	for _, e := range []*porEvent{
		{start: "a:x", complete: true}, {start: "b:y"}, {start: "c:z"}, {start: "b:y"}, {start: "d:w"}, {start: ""},
	} {
		s.countFragment(e)
	}
	for i := range porTopIncomplete + 2 {
		s.countFragment(&porEvent{start: "many:" + string(rune('a'+i))})
	}
	got := s.footprints(2)
	want := &PORFootprints{Fragments: 8 + porTopIncomplete, Complete: 1, CPUs: 2, Incomplete: []PORFragmentRow{
		{"b:y", 2}, {"(before any step point)", 1}, {"c:z", 1}, {"d:w", 1},
	}}
	for i := range porTopIncomplete + 2 {
		want.Incomplete = append(want.Incomplete, PORFragmentRow{"many:" + string(rune('a'+i)), 1})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("footprints (-want +got):\n%s", d)
	}
	if l := got.footprintLine(); !strings.HasPrefix(l, "footprints: 1 of 16 fragments (6%) had a complete one;") ||
		!strings.Contains(l, ": b:y (2), (before any step point) (1), c:z (1), d:w (1), many:a (1), many:b (1), many:c (1), many:d (1); and 6 more starts (--json's dpor_footprints lists them all)") ||
		strings.Contains(l, "many:e") || strings.Contains(l, "With one CPU") {
		t.Errorf("line %q", l)
	}
	if l := (&PORFootprints{Fragments: 3, Complete: 0, CPUs: 1, Incomplete: []PORFragmentRow{{"x", 3}}}).footprintLine(); !strings.HasSuffix(l,
		"x (3). With one CPU the walk reduces nothing whatever is declared: a CPU's task fragments are never independent of its own interrupts") {
		t.Errorf("one CPU: line %q", l)
	}
	// A fragment declared complete that met something on the way is
	// counted apart, with the first thing it met.
	e := &porEvent{start: "decl:x", complete: true}
	e.incomplete("a data choice")
	e.incomplete("fd of a *int, no stable key")
	s2 := &porSearch{}
	s2.countFragment(e)
	s2.countFragment(&porEvent{start: "decl:x"})
	if d := cmp.Diff([]PORFragmentRow{{"decl:x", 1}, {"decl:x (declared, but: a data choice)", 1}}, s2.footprints(2).Incomplete); d != "" {
		t.Errorf("declared, but (-want +got):\n%s", d)
	}
	if l := (*PORFootprints)(nil).footprintLine(); l != "" {
		t.Errorf("nil: %q", l)
	}
}

// TestPORFootprintsShipped: a dpor walk on a shipped built-in counts the
// fragments its schedules ran and names the starts that keep it from
// reducing (task-work-nmi-race: its schedules run fragments nobody declared
// complete).
func TestPORFootprintsShipped(t *testing.T) {
	ex, err := Explore(loadBuiltin(t, "task-work-nmi-race"), Options{Strategy: "dpor", Runs: 5, MaxWall: -1})
	if err != nil {
		t.Fatal(err)
	}
	fp := ex.Footprints
	if fp == nil || fp.Fragments == 0 || fp.CPUs != 1 || len(fp.Incomplete) == 0 {
		t.Fatalf("footprints %+v", fp)
	}
	n := 0
	for _, r := range fp.Incomplete {
		n += r.Count
	}
	if fp.Complete+n > fp.Fragments {
		t.Errorf("footprints %+v: the rows count more than the incomplete fragments", fp)
	}
	for i, r := range fp.Incomplete {
		if i > 0 && r.Count > fp.Incomplete[i-1].Count {
			t.Errorf("row %d %+v above row %d %+v: want most met first", i, r, i-1, fp.Incomplete[i-1])
		}
		// Every object has a stable key (TestFootprintKeysStable) and the
		// scenario makes no data choice: a start is incomplete because it
		// is not declared.
		if cpu.IsComplete(r.Start) {
			t.Errorf("row %+v: its start is declared complete", r)
		}
	}
}

// TestPORIndexProperty: a fragment's accesses merged through touch, with
// or without the index it builds past porIndexAt fields, are the same
// fields with the same merged kinds, and porDependent answers as the
// pairwise comparison of every access does.
func TestPORIndexProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := func(name string) (*porEvent, map[porField]porAccess) {
			e := &porEvent{complete: true, agent: porAgent{lane: len(name)}}
			want := map[porField]porAccess{}
			for _, i := range rapid.SliceOfN(rapid.IntRange(0, 3*porIndexAt), 0, 6*porIndexAt).Draw(t, name) {
				a := porAccess{key: fmt.Sprint("k", i%7), field: fmt.Sprint("f", i%5), write: i%3 == 0, add: i%3 == 1}
				if a.write {
					a.add = false
				}
				e.touch(a)
				k := porField{a.key, a.field}
				if x, ok := want[k]; ok {
					want[k] = x.merge(a)
				} else {
					want[k] = a
				}
			}
			return e, want
		}
		a, wa := gen("a")
		b, wb := gen("bb")
		got := map[porField]porAccess{}
		for _, x := range a.acc {
			if _, dup := got[porField{x.key, x.field}]; dup {
				t.Fatalf("field %s.%s twice", x.key, x.field)
			}
			got[porField{x.key, x.field}] = x
		}
		if d := cmp.Diff(wa, got, cmp.AllowUnexported(porAccess{})); d != "" {
			t.Fatalf("merged accesses (-want +got):\n%s", d)
		}
		dep := false
		for k, x := range wa {
			if y, ok := wb[k]; ok && x.conflicts(y) {
				dep = true
			}
		}
		if got := porDependent(a, b); got != dep {
			t.Fatalf("porDependent = %v, pairwise %v (%d and %d fields)", got, dep, len(a.acc), len(b.acc))
		}
	})
}
