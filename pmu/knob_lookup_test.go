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
