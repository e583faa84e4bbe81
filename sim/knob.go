package sim

import (
	"fmt"
	"strings"
)

// KnobSpec describes a kernel (or tool) knob: a named choice between today's
// upstream behaviour (the default) and an older or buggy one, defined where the
// mechanism is modelled, with the commit or thread it models.
type KnobSpec struct {
	Name    string
	Values  []string // the first is the default: today's upstream
	Help    string
	Source  string // commit id or thread the non-default values model
	Package string // where the mechanism lives
	// Implies lists, for a value, the settings ("name=value") of other knobs
	// that value brings with it unless the scenario sets them itself: the
	// old kernel a value selects did another mechanism the old way too, and
	// its race needs that way (a knob of a kernel older than v6.6 implies
	// close-fput=pre-021a160abf62). ResolveImplied applies them.
	Implies map[string][]string
	// Config: a setting of the machine the scenario runs on (its cost
	// model, CONFIG_HZ, a timeout's scale, the timer slack its tasks start
	// with), not a kernel version: no value of it is an older kernel, and
	// the searches for old-kernel failures (the corpus, the strategy
	// table) leave it alone.
	Config bool
}

// Default returns today's value.
func (k KnobSpec) Default() string { return k.Values[0] }

// LookupKnob finds name among specs and checks value: found reports whether
// the name is one of specs, err whether the value is not one of its values.
func LookupKnob(specs []KnobSpec, name, value string) (found bool, err error) {
	for _, k := range specs {
		if k.Name == name {
			return true, k.Check(value)
		}
	}
	return false, nil
}

// Check returns an error naming the allowed values when value is not one of them.
func (k KnobSpec) Check(value string) error {
	for _, v := range k.Values {
		if v == value {
			return nil
		}
	}
	return fmt.Errorf("kernel knob %s has no value %q; expected one of %s", k.Name, value, strings.Join(k.Values, ", "))
}

// ResolveImplied sets in knobs (every knob's value: defaults, the scenario's
// settings and overrides) the settings the chosen values imply
// (KnobSpec.Implies), except on a knob explicit names: a value the user set
// wins over one implied. Two chosen values implying different values of
// one knob is an error naming both; so is an implication naming a knob or
// value specs do not have (a bug in the model).
func ResolveImplied(specs []KnobSpec, knobs map[string]string, explicit func(name string) bool) error {
	by := map[string]string{} // implied knob -> the "name=value" that implied it
	for _, k := range specs {
		v, ok := knobs[k.Name]
		if !ok {
			continue
		}
		for _, set := range k.Implies[v] {
			n, iv, ok := strings.Cut(set, "=")
			if !ok {
				return fmt.Errorf("kernel knob %s=%s implies %q: not NAME=VALUE", k.Name, v, set)
			}
			if found, err := LookupKnob(specs, n, iv); !found || err != nil {
				return fmt.Errorf("kernel knob %s=%s implies %s, which is not a knob value (%v)", k.Name, v, set, err)
			}
			if explicit(n) {
				continue
			}
			if prev, ok := by[n]; ok && knobs[n] != iv {
				return fmt.Errorf("kernel knobs %s and %s=%s imply different values of %s (%s, %s): set %s yourself",
					prev, k.Name, v, n, knobs[n], iv, n)
			}
			by[n] = k.Name + "=" + v
			knobs[n] = iv
		}
	}
	return nil
}
