package pmu_test

import (
	"strings"
	"testing"

	"perfsim/pmu"
)

// TestKnobLookupRefusesUnknown: model code that reads a knob by a name or a
// value no spec defines panics (a model bug), instead of silently reading "" and
// running today's code.
func TestKnobLookupRefusesUnknown(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{Extra: map[string]string{"aux-pause-guard": "off"}})
	if !mc.k.KnobIs("aux-pause-guard", "off") || mc.k.Knob("vma-split") != "today" {
		t.Fatalf("aux-pause-guard=%q vma-split=%q", mc.k.Knob("aux-pause-guard"), mc.k.Knob("vma-split"))
	}
	for _, tc := range []struct {
		name string
		call func()
		want string
	}{
		{"unknown name", func() { mc.k.Knob("aux-pause-gaurd") }, "no kernel knob aux-pause-gaurd"},
		{"unknown value", func() { mc.k.KnobIs("aux-pause-guard", "of") }, `kernel knob aux-pause-guard has no value "of"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Fatalf("panic %v, want one containing %q", r, tc.want)
				}
			}()
			tc.call()
		})
	}
}

// TestKnobIsCache: KnobIs and Knob answer through its cache what the knobs say, for
// the same constants again, for names and values in other bytes, and for
// more pairs than the cache has entries; an unknown value still panics
// after its knob's valid values were asked.
func TestKnobIsCache(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{Extra: map[string]string{"aux-pause-guard": "off", "vma-split": "pre-a4f2a8d7d3a5"}})
	type pair struct {
		name, value string
		want        bool
		cur         string // Knob(name)
	}
	pairs := []pair{{"aux-pause-guard", "off", true, "off"}, {"aux-pause-guard", "on", false, "off"}, {"vma-split", "today", false, "pre-a4f2a8d7d3a5"}}
	knob := func(name string) (v string, ok bool) { // "": not a knob of the Kernel (rb's, a tool's)
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		return mc.k.Knob(name), true
	}
	for _, s := range pmu.AllKnobSpecs() {
		cur, ok := knob(s.Name)
		for _, v := range s.Values {
			if ok {
				pairs = append(pairs, pair{s.Name, v, cur == v, cur})
			}
		}
	}
	if len(pairs) < 64 {
		t.Fatalf("only %d knob values: the cache is not overrun", len(pairs))
	}
	for round := range 3 {
		for _, p := range pairs {
			name, value := p.name, p.value
			if round == 1 {
				name, value = strings.Clone(name), strings.Clone(value)
			}
			if got := mc.k.KnobIs(name, value); got != p.want {
				t.Errorf("round %d: KnobIs(%q, %q) = %v, want %v", round, p.name, p.value, got, p.want)
			}
			if got := mc.k.Knob(name); got != p.cur {
				t.Errorf("round %d: Knob(%q) = %q, want %q", round, p.name, got, p.cur)
			}
		}
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("KnobIs of a value the knob lacks did not panic")
		}
	}()
	mc.k.KnobIs("aux-pause-guard", "of")
}
