package runner

import (
	"fmt"
	"slices"

	"perfsim/scenarios"
	"perfsim/sim"
)

// applies reports whether o's when conditions hold for this run's knobs.
func (r *Run) applies(o *scenarios.Outcome) bool { return WhenHolds(o, r.Knobs) }

// WhenHolds reports whether every condition of o's when holds for the
// resolved knobs: whether a run with them judges o.
func WhenHolds(o *scenarios.Outcome, knobs map[string]string) bool {
	for _, s := range o.When {
		if knobs[s.Name] != s.Value {
			return false
		}
	}
	return true
}

// Eval evaluates an outcome expression now: integers, and booleans as 0 or 1.
// An invariant is true while it has not been violated.
func (r *Run) Eval(e scenarios.Expr) (int64, error) {
	switch e := e.(type) {
	case *scenarios.Lit:
		return e.Value, nil
	case *scenarios.Name:
		if r.isInvariant(e.Name) {
			return b2i(!r.violated(e.Name)), nil
		}
		v, ok := r.Observe(e.Name)
		if !ok {
			return 0, fmt.Errorf("%s has no value in this run", e.Name)
		}
		return v, nil
	case *scenarios.Unary:
		x, err := r.Eval(e.X)
		if err != nil {
			return 0, err
		}
		if e.Op == "!" {
			return b2i(x == 0), nil
		}
		return scenarios.Negate(x)
	case *scenarios.Binary:
		x, err := r.Eval(e.X)
		if err != nil {
			return 0, err
		}
		// && and || short-circuit, as C does.
		switch e.Op {
		case "&&":
			if x == 0 {
				return 0, nil
			}
		case "||":
			if x != 0 {
				return 1, nil
			}
		}
		y, err := r.Eval(e.Y)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case "&&", "||":
			return b2i(y != 0), nil
		case "==":
			return b2i(x == y), nil
		case "!=":
			return b2i(x != y), nil
		case "<":
			return b2i(x < y), nil
		case "<=":
			return b2i(x <= y), nil
		case ">":
			return b2i(x > y), nil
		case ">=":
			return b2i(x >= y), nil
		}
		return scenarios.Arith(e.Op, x, y)
	}
	return 0, fmt.Errorf("unknown expression %T", e)
}

func (r *Run) isInvariant(name string) bool {
	for _, inv := range r.invariants {
		if inv.Name == name {
			return true
		}
	}
	return false
}

// installSampler adds a lane to the engine that evaluates the "at TIME" outcomes
// when virtual time reaches TIME. It only reads the models; where it falls among
// CPUs due at the same instant is a decision like any other.
func (r *Run) installSampler() {
	var times []sim.Time
	for _, o := range r.File.Outcomes {
		if o.At != nil && r.applies(o) {
			times = append(times, sim.Time(*o.At))
		}
	}
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var lane *sim.Lane
	lane = r.M.Eng.AddLane("outcomes", func() {
		r.M.Other(lane.ID, "outcomes") // its reads of the model are a fragment of their own (explore's walks)
		now := r.M.Now()
		for _, o := range r.File.Outcomes {
			if o.At != nil && r.applies(o) && sim.Time(*o.At) == now {
				v, err := r.Eval(o.Cond)
				r.samples[o] = sample{taken: true, ok: v != 0, err: err}
			}
		}
		times = times[1:]
		next := sim.Never
		if len(times) > 0 {
			next = times[0]
		}
		r.M.Eng.SetNext(lane, next)
	})
	r.M.Eng.SetNext(lane, times[0])
}
