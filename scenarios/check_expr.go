package scenarios

import (
	"slices"
	"strings"
)

func (c *checker) outcome(o *Outcome) {
	seen := map[string]bool{}
	for _, s := range o.When {
		if seen[s.Name] {
			c.errorf(s.Pos, "knob %s appears twice in this when", s.Name)
			continue
		}
		seen[s.Name] = true
		c.whenKnob(s)
	}
	c.cpuNames(o.Cond)
	if c.reg == nil {
		return
	}
	c.ambiguousNames(o.Cond)
	switch t := c.typeOf(o.Cond); t {
	case IntType:
		c.errorf(o.Cond.ExprPos(), "%s %s is a number, not a condition: compare it, like %s > 0", o.Quant, o.Cond, o.Cond)
	case BoolType:
		c.fold(o.Cond)
	}
}

// fold computes the arithmetic of e made of numbers alone, reporting a result
// that does not fit in 64 bits (outcomes never wrap around) at its operator.
// It returns e's value when e is a constant integer.
func (c *checker) fold(e Expr) (int64, bool) {
	switch e := e.(type) {
	case *Lit:
		return e.Value, true
	case *Unary:
		x, ok := c.fold(e.X)
		if !ok || e.Op != "-" {
			return 0, false
		}
		v, err := Negate(x)
		if err != nil {
			c.errorf(e.Pos, "%v", err)
			return 0, false
		}
		return v, true
	case *Binary:
		x, okX := c.fold(e.X)
		y, okY := c.fold(e.Y)
		if !okX || !okY {
			return 0, false
		}
		switch e.Op {
		case "+", "-", "*", "/":
			v, err := Arith(e.Op, x, y)
			if err != nil {
				c.errorf(e.Pos, "%v", err)
				return 0, false
			}
			return v, true
		}
	}
	return 0, false
}

// whenKnob checks a when condition: a kernel knob, or else a tool knob.
func (c *checker) whenKnob(s *Setting) {
	if c.reg == nil {
		return
	}
	if _, ok := c.reg.Knob(KernelKnobs, s.Name); ok {
		c.knobValue(KernelKnobs, s)
		return
	}
	if _, ok := c.reg.Knob(ToolKnobs, s.Name); ok {
		c.knobValue(ToolKnobs, s)
		return
	}
	names := append(c.reg.Names(KernelKnobs), c.reg.Names(ToolKnobs)...)
	msg := "unknown knob " + quote(s.Name)
	if len(names) <= 12 {
		msg += "; known knobs: " + strings.Join(names, ", ")
	} else if best := closest(s.Name, names); best != "" {
		msg += "; did you mean " + quote(best) + "?"
	}
	c.errorf(s.Pos, "%s", msg)
}

// cpuNames checks that names with a cpuN segment (cpu3.nmis) name a real CPU.
func (c *checker) cpuNames(e Expr) {
	Names(e, func(n *Name) {
		base, _, _ := CutEventIndex(n.Name) // an event's name is perf's, not a CPU
		for _, seg := range strings.Split(base, ".") {
			if cpu, ok := ParseCPUNumber(seg); ok && strings.HasPrefix(seg, "cpu") {
				c.cpuInRange(n.Pos, cpu)
			}
		}
	})
}

// typeOf type-checks e and returns its type, or 0 after an error in it.
func (c *checker) typeOf(e Expr) Type {
	switch e := e.(type) {
	case *Lit:
		return IntType
	case *Name:
		if c.reg.Has(Invariants, e.Name) {
			return BoolType
		}
		if t, ok := c.reg.Observable(e.Name); ok {
			return t
		}
		c.errorf(e.Pos, "%s", c.unknownName(e.Name))
		return 0
	case *Unary:
		x := c.typeOf(e.X)
		want := IntType
		if e.Op == "!" {
			want = BoolType
		}
		if x != 0 && x != want {
			c.errorf(e.Pos, "%s needs %s operand, but %s is %s", e.Op, article(want), e.X, article(x))
			return 0
		}
		return want
	case *Binary:
		x, y := c.typeOf(e.X), c.typeOf(e.Y)
		if x == 0 || y == 0 {
			return 0
		}
		switch e.Op {
		case "&&", "||":
			return c.operands(e, BoolType, x, y, BoolType)
		case "==", "!=":
			if x != y {
				c.errorf(e.Pos, "%s compares %s %s with %s %s", e.Op, article(x), e.X, article(y), e.Y)
				return 0
			}
			return BoolType
		case "<", "<=", ">", ">=":
			return c.operands(e, IntType, x, y, BoolType)
		case "/":
			if l, ok := e.Y.(*Lit); ok && l.Value == 0 {
				c.errorf(e.Pos, "division by zero")
				return 0
			}
		}
		return c.operands(e, IntType, x, y, IntType)
	}
	return 0
}

func (c *checker) operands(e *Binary, want, x, y, result Type) Type {
	for _, side := range []struct {
		t Type
		e Expr
	}{{x, e.X}, {y, e.Y}} {
		if side.t != want {
			c.errorf(side.e.ExprPos(), "%s needs %s operands, but %s is %s", e.Op, want, side.e, article(side.t))
			return 0
		}
	}
	return result
}

func article(t Type) string {
	if t == IntType {
		return "an integer"
	}
	return "a boolean"
}

// unknownName explains an unknown name in an outcome, with a hint when a
// hyphenated name was probably meant as a subtraction.
func (c *checker) unknownName(name string) string {
	msg := "unknown observable or invariant " + quote(name)
	if base, _, ok := CutEventIndex(name); ok {
		return msg + c.unknownIndexed(base)
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '-' {
			continue
		}
		if _, ok := c.reg.Observable(name[:i]); ok {
			return msg + "; to subtract, put blanks around -: " + name[:i] + " - " + name[i+1:]
		}
	}
	obs, inv := c.reg.Names(Observables), c.reg.Names(Invariants)
	all := append(append([]string(nil), obs...), inv...)
	if len(all) <= 16 {
		return msg + "; observables: " + strings.Join(obs, ", ") + "; invariants: " + strings.Join(inv, ", ")
	}
	if best := closest(name, all); best != "" {
		return msg + "; did you mean " + quote(best) + "?"
	}
	return msg + " (simrun names observables invariants lists them)"
}

// unknownIndexed explains an event index on a name that takes none: which
// names do.
func (c *checker) unknownIndexed(base string) string {
	if _, ok := c.reg.Observable(base); ok {
		return "; " + base + " takes no event index"
	}
	var indexed []string
	for _, n := range c.reg.Names(Observables) {
		if strings.HasSuffix(n, "["+EventPlaceholder+"]") {
			indexed = append(indexed, n)
		}
	}
	if len(indexed) == 0 {
		return "; no observable takes an event index"
	}
	return "; the observables indexed by an event: " + strings.Join(indexed, ", ")
}

// ambiguousNames refuses a name that means two things: SESSION.NAME of a
// session called like the first segment of an observable (record rb: ... and
// rb.lost is both the kernel's rb.lost and session rb's lost).
func (c *checker) ambiguousNames(e Expr) {
	Names(e, func(n *Name) {
		s, rest, ok := strings.Cut(n.Name, ".")
		if !ok || c.sessions[s] == nil {
			return
		}
		if _, ok := c.reg.Observable("SESSION." + rest); !ok {
			return
		}
		if slices.Contains(c.reg.Names(Observables), n.Name) {
			c.errorf(n.Pos, "%s is both the observable %s and session %s's %s; give the session another name", n.Name, n.Name, s, rest)
		}
	})
}
