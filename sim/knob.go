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
