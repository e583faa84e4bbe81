package faultinject

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestShouldFailCountsPerTaskAndSite: a rule counts only its site's calls by
// its bound task, fails the N-th once, and says which never fired.
func TestShouldFailCountsPerTaskAndSite(t *testing.T) {
	a, b := new(int), new(int) // two tasks, by identity
	p := NewPlan([]*Rule{
		{Site: "rb_alloc", Who: "a", Nth: 2},
		{Site: "perf_event_alloc", Who: "b", Nth: 1},
		{Site: "rb_alloc_aux", Who: "a", Nth: 1}, // never reached
		{Site: "rb_alloc", Who: "c", Nth: 1},     // never bound
	})
	p.Bind("a", a)
	p.Bind("b", b)
	calls := []struct {
		site string
		task any
	}{
		{"rb_alloc", b},         // not b's rule
		{"rb_alloc", a},         // a's first: passes
		{"perf_event_alloc", a}, // not a's rule
		{"rb_alloc", a},         // a's second: fails
		{"rb_alloc", a},         // fired once: passes
		{"perf_event_alloc", b}, // b's first: fails
		{"perf_event_alloc", b},
	}
	var got []bool
	for _, c := range calls {
		got = append(got, p.ShouldFail(c.site, c.task))
	}
	if diff := cmp.Diff([]bool{false, false, false, true, false, true, false}, got); diff != "" {
		t.Errorf("ShouldFail (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rb_alloc in a (call 2)", "perf_event_alloc in b (call 1)"}, p.Injected); diff != "" {
		t.Errorf("Injected (-want +got):\n%s", diff)
	}
	var unfired []string
	for _, r := range p.Unfired() {
		unfired = append(unfired, r.Site+" in "+r.Who)
	}
	if diff := cmp.Diff([]string{"rb_alloc_aux in a", "rb_alloc in c"}, unfired); diff != "" {
		t.Errorf("Unfired (-want +got):\n%s", diff)
	}
	var nilPlan *Plan
	if nilPlan.ShouldFail("rb_alloc", a) || nilPlan.Unfired() != nil {
		t.Error("a nil plan failed a call or had rules")
	}
}

// TestShouldFailUnknownSitePanics: the model asking about a site Sites does
// not list is a model bug, not a silent pass.
func TestShouldFailUnknownSitePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an unknown site")
		}
	}()
	NewPlan(nil).ShouldFail("kmalloc", new(int))
}
