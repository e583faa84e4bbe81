package sim

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolveImplied: a value's implications are set unless the knob was
// set explicitly; two values implying different values of one knob, or an
// implication of no knob value, are errors.
func TestResolveImplied(t *testing.T) {
	specs := []KnobSpec{
		{Name: "close", Values: []string{"today", "old"}},
		{Name: "a", Values: []string{"today", "pre-1"}, Implies: map[string][]string{"pre-1": {"close=old"}}},
		{Name: "b", Values: []string{"today", "pre-2"}, Implies: map[string][]string{"pre-2": {"close=today"}}},
		{Name: "c", Values: []string{"today", "pre-3"}, Implies: map[string][]string{"pre-3": {"close=older"}}},
		{Name: "d", Values: []string{"today", "pre-4"}, Implies: map[string][]string{"pre-4": {"close=old"}}},
	}
	for _, tc := range []struct {
		name     string
		set      map[string]string // explicit settings
		want     map[string]string // the knobs that differ from today
		wantErrs string
	}{
		{name: "defaults", want: map[string]string{}},
		{name: "implied", set: map[string]string{"a": "pre-1"}, want: map[string]string{"a": "pre-1", "close": "old"}},
		{name: "explicit wins", set: map[string]string{"a": "pre-1", "close": "today"}, want: map[string]string{"a": "pre-1"}},
		{name: "two agree", set: map[string]string{"a": "pre-1", "d": "pre-4"}, want: map[string]string{"a": "pre-1", "d": "pre-4", "close": "old"}},
		{name: "conflict", set: map[string]string{"a": "pre-1", "b": "pre-2"},
			wantErrs: "kernel knobs a=pre-1 and b=pre-2 imply different values of close (old, today): set close yourself"},
		{name: "conflict settled by the user", set: map[string]string{"a": "pre-1", "b": "pre-2", "close": "old"},
			want: map[string]string{"a": "pre-1", "b": "pre-2", "close": "old"}},
		{name: "no such value", set: map[string]string{"c": "pre-3"},
			wantErrs: `kernel knob c=pre-3 implies close=older, which is not a knob value (kernel knob close has no value "older"; expected one of today, old)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			knobs := map[string]string{}
			for _, k := range specs {
				knobs[k.Name] = k.Default()
			}
			maps.Copy(knobs, tc.set)
			err := ResolveImplied(specs, knobs, func(n string) bool { _, ok := tc.set[n]; return ok })
			if tc.wantErrs != "" {
				if err == nil || err.Error() != tc.wantErrs {
					t.Fatalf("err = %v, want %q", err, tc.wantErrs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for n, v := range knobs {
				if v != "today" {
					got[n] = v
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("knobs not today (-want +got):\n%s", d)
			}
		})
	}
}
