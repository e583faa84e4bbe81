// Package simrapid is the bridge between pgregory.net/rapid and the
// simulator: a sim.Chooser that draws a schedule from a *rapid.T, so rapid
// explores interleavings and shrinks a failing one, and Find, which runs a
// property expecting it may fail (a search, not a test). Property tests import
// it; so does simrun's explore --strategy rapid.
package simrapid

import (
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"pgregory.net/rapid"
)

// Chooser draws the schedule from a *rapid.T, so rapid explores schedules and
// shrinks a failing one. The schedule is drawn as a short list of disturbances,
// each "let Skip decisions take the undisturbed course, then take option Pick":
// rapid shrinks lists by deleting elements and lowering values, which here means
// fewer disturbances, earlier, with smaller option numbers, the shape a human
// wants to read. Every decision past the list is 0.
type Chooser struct {
	T *rapid.T
	// Max bounds the number of disturbances in one schedule (default 16).
	Max int
	// Horizon, when set, is the number of decisions of the undisturbed run:
	// skips are drawn up to it, so a disturbance lands somewhere in the run
	// (rapid favours small numbers, and 0..2^20 leaves most of a run of a
	// hundred decisions undisturbed or past its end).
	Horizon int

	plan  []disturbance
	drawn bool
	skip  int
}

type disturbance struct{ Skip, Pick int }

func disturbanceGen(maxSkip int) *rapid.Generator[disturbance] {
	return rapid.Custom(func(t *rapid.T) disturbance {
		return disturbance{
			Skip: rapid.IntRange(0, maxSkip).Draw(t, "skip"),
			Pick: rapid.IntRange(1, 64).Draw(t, "pick"),
		}
	})
}

// Choose implements sim.Chooser.
func (r *Chooser) Choose(n int, what string) int {
	if !r.drawn {
		max := r.Max
		if max <= 0 {
			max = 16
		}
		maxSkip := 1 << 20
		if r.Horizon > 0 {
			maxSkip = r.Horizon
		}
		r.plan = rapid.SliceOfN(disturbanceGen(maxSkip), 0, max).Draw(r.T, "schedule")
		r.drawn = true
		if len(r.plan) > 0 {
			r.skip = r.plan[0].Skip
		}
	}
	if len(r.plan) == 0 {
		return 0
	}
	if r.skip > 0 {
		r.skip--
		return 0
	}
	p := r.plan[0].Pick
	r.plan = r.plan[1:]
	if len(r.plan) > 0 {
		r.skip = r.plan[0].Skip
	}
	return 1 + (p-1)%(n-1)
}

// Options of one Find.
type Options struct {
	// Seed is rapid's seed; 0 derives one from the search's name, so a test
	// that expects rapid to find a bug does not depend on a random seed.
	Seed uint64
	// Checks is the number of schedules rapid tries, under -short too (0:
	// rapid's default, 100, or what -rapid.checks says, a fifth of it under
	// -short).
	Checks int
}

// SeedOf is the seed Find uses for a search called name when Options.Seed is 0.
func SeedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() | 1
}

// ErrNotInTest is Find's answer outside a go test binary: rapid.Check asks
// testing.Short(), which panics until package testing has registered and
// parsed its flags, and only a test binary does that (the project keeps
// package testing out of its programs).
var ErrNotInTest = errors.New("rapid runs only under go test (rapid.Check asks testing.Short()): " +
	"use explore.Options{Strategy: \"rapid\"} or simrapid.Find from a Go test; simrun explores with random, sparse, pct or bounded")

// Available reports whether rapid can run here: in a go test binary, whose
// flags (test.short among them) are registered and parsed.
func Available() bool { return flag.Lookup("test.short") != nil && flag.Parsed() }

// Find runs prop under rapid.Check expecting that it may fail: a search for a
// failing schedule rather than a test. It returns rapid's report of the shrunk
// failure, or "" when every check passed; ErrNotInTest outside go test. The
// prop should keep the decisions of the last failing run: rapid re-runs the
// minimal failing case last. The search is a function of o.Seed (whatever
// -rapid.seed or RAPID_SEED say).
func Find(name string, o Options, prop func(*rapid.T)) (string, error) {
	if !Available() {
		return "", ErrNotInTest
	}
	seed := o.Seed
	if seed == 0 {
		seed = SeedOf(name)
	}
	defer setFlag("rapid.nofailfile", "true")() // an expected failure is not a test failure to save
	defer setFlag("rapid.seed", strconv.FormatUint(seed, 10))()
	if o.Checks > 0 {
		checks := o.Checks
		if fl := flag.Lookup("test.short"); fl != nil && fl.Value.String() == "true" {
			// rapid runs a fifth of -rapid.checks under -short (its
			// checkTB); Checks is what the search was asked for.
			checks *= 5
		}
		defer setFlag("rapid.checks", strconv.Itoa(checks))()
	}
	tb := &findTB{name: name}
	rapid.Check(tb, prop)
	if !tb.failed {
		return "", nil
	}
	return strings.Join(tb.msgs, "\n"), nil
}

// setFlag sets a flag of the default set (rapid's) and returns its restorer.
func setFlag(name, value string) func() {
	fl := flag.Lookup(name)
	if fl == nil {
		return func() {}
	}
	old := fl.Value.String()
	_ = fl.Value.Set(value)
	return func() { _ = fl.Value.Set(old) }
}

// findTB is a rapid.TB that records failures instead of failing a test.
type findTB struct {
	name   string
	failed bool
	msgs   []string
}

func (f *findTB) Helper()                           {}
func (f *findTB) Name() string                      { return f.name }
func (f *findTB) Logf(format string, args ...any)   {}
func (f *findTB) Log(args ...any)                   {}
func (f *findTB) Skipf(format string, args ...any)  {}
func (f *findTB) Skip(args ...any)                  {}
func (f *findTB) SkipNow()                          {}
func (f *findTB) Errorf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *findTB) Error(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *findTB) Fatalf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *findTB) Fatal(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *findTB) FailNow()                          { f.failed = true }
func (f *findTB) Fail()                             { f.failed = true }
func (f *findTB) Failed() bool                      { return f.failed }

func (f *findTB) fail(msg string) {
	f.failed = true
	f.msgs = append(f.msgs, msg)
}
