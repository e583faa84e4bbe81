package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/sim"
)

// TestKnobImplies: a run's knobs line says what ran. An old kernel's knob
// brings the close(2) of its kernel (close-fput=pre-021a160abf62) unless
// the scenario's kernel line or an override sets close-fput itself.
func TestKnobImplies(t *testing.T) {
	f := loadBuiltin(t, "pmu-ctx-put-vs-open")
	for _, tc := range []struct {
		name      string
		overrides map[string]string
		want      []string // the run's knobs named here
	}{
		{"today", nil, []string{"close-fput=today", "pmu-ctx-serialize=today"}},
		{"implied", map[string]string{"pmu-ctx-serialize": "pre-4f64a6c9f6f1"},
			[]string{"close-fput=pre-021a160abf62", "pmu-ctx-serialize=pre-4f64a6c9f6f1"}},
		{"set wins", map[string]string{"pmu-ctx-serialize": "pre-4f64a6c9f6f1", "close-fput": "today"},
			[]string{"close-fput=today", "pmu-ctx-serialize=pre-4f64a6c9f6f1"}},
	} {
		_, res, err := RunOnce(f, Options{Knobs: tc.overrides})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.DeleteFunc(slices.Clone(res.Knobs), func(s string) bool {
			n, _, _ := strings.Cut(s, "=")
			return n != "close-fput" && n != "pmu-ctx-serialize"
		})
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: knobs line (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestKnobImplicationsValid: every implication of every knob names a value
// of a knob of the same backend, and that value implies nothing further
// (sim.ResolveImplied is one pass).
func TestKnobImplicationsValid(t *testing.T) {
	specs := slices.Concat(KernelKnobSpecs(nil), ToolKnobSpecs(nil))
	n := 0
	for _, k := range specs {
		for v, l := range k.Implies {
			if k.Check(v) != nil {
				t.Errorf("%s: implications of %q, not one of its values", k.Name, v)
			}
			for _, set := range l {
				n++
				name, value, _ := strings.Cut(set, "=")
				i := slices.IndexFunc(specs, func(s sim.KnobSpec) bool { return s.Name == name })
				switch {
				case i < 0:
					t.Errorf("%s=%s implies %s: no knob %s", k.Name, v, set, name)
				case specs[i].Check(value) != nil:
					t.Errorf("%s=%s implies %s: %v", k.Name, v, set, specs[i].Check(value))
				case len(specs[i].Implies[value]) > 0:
					t.Errorf("%s=%s implies %s, which implies %v in turn", k.Name, v, set, specs[i].Implies[value])
				}
			}
		}
	}
	if n != 15 {
		t.Errorf("%d implications, want 15 (the knob values of kernels older than v6.6)", n)
	}
}
