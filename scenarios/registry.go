package scenarios

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind names a namespace of the Registry.
type Kind int

const (
	KernelKnobs Kind = iota + 1
	ToolKnobs
	PMUs
	Verbs
	Observables
	Invariants
	StepPoints
	Syscalls
	Statements  // the statements of a task's program (names only lists them)
	Tracepoints // the tracepoints perf record -e may name (names only lists them)
	Events      // the perf event names (simrun names events); nothing in a scenario is checked against them
	Faults      // the allocation sites a fail line may name (package faultinject)
)

var kindNames = map[Kind][2]string{ // singular, plural
	KernelKnobs: {"kernel knob", "kernel knobs"},
	ToolKnobs:   {"tool knob", "tool knobs"},
	PMUs:        {"PMU", "PMUs"},
	Verbs:       {"action", "actions"},
	Observables: {"observable", "observables"},
	Invariants:  {"invariant", "invariants"},
	StepPoints:  {"step point", "step points"},
	Syscalls:    {"system call", "system calls"},
	Statements:  {"task statement", "task statements"},
	Tracepoints: {"tracepoint", "tracepoints"},
	Events:      {"event", "events"},
	Faults:      {"allocation site", "faults"},
}

func (k Kind) String() string { return kindNames[k][0] }

// Type is the type of an observable.
type Type int

const (
	IntType  Type = iota + 1 // a counter or a value
	BoolType                 // a flag (usable as a condition on its own)
)

func (t Type) String() string {
	if t == BoolType {
		return "boolean"
	}
	return "integer"
}

// Value patterns allowed in the value lists of a Registry, besides literal values.
const (
	AnyInt      = "<int>"      // a non-negative integer (decimal, 0x hex, with _ separators)
	AnySize     = "<size>"     // a size like 4096, 4K, 1M
	AnyDuration = "<duration>" // a duration like 5us
)

// ArgKind is the shape of one argument of an action.
type ArgKind int

const (
	ArgSession  ArgKind = iota + 1 // a record session name
	ArgCPU                         // cpuN
	ArgTask                        // a task name
	ArgTarget                      // a session name, a task name or cpuN
	ArgInt                         // a non-negative integer
	ArgSize                        // 4K, 1M
	ArgDuration                    // 5us
	ArgWord                        // any word
)

var argKindNames = map[ArgKind]string{
	ArgSession: "a session name", ArgCPU: "a CPU like cpu0", ArgTask: "a task name",
	ArgTarget: "a session, a task or a CPU", ArgInt: "a number", ArgSize: "a size like 4K",
	ArgDuration: "a duration like 5us", ArgWord: "a word",
}

func (k ArgKind) String() string { return argKindNames[k] }

// ActionSpec is the shape of an action's arguments: Args[i] is the kind of the
// i-th argument; the first MinArgs are required, the rest optional.
type ActionSpec struct {
	Args    []ArgKind
	MinArgs int
}

// Registry is what the checker knows about the simulated kernel, tool and
// invariants. The runtime implements it; MapRegistry is a simple one.
type Registry interface {
	// Knob returns the values allowed for a kernel knob (KernelKnobs) or a tool knob
	// (ToolKnobs): literal values and the patterns AnyInt, AnySize, AnyDuration.
	// An empty list allows any value.
	Knob(kind Kind, name string) (values []string, ok bool)
	// PMU returns the attributes a PMU accepts, each with its allowed values as for
	// Knob. A value may be a comma-separated list; each element is checked.
	PMU(name string) (attrs map[string][]string, ok bool)
	// Action returns the argument shape of an action verb (snapshot, read, ...).
	Action(verb string) (ActionSpec, bool)
	// Observable returns the type of a named observable (aux.paused, cpu0.nmis).
	Observable(name string) (Type, bool)
	// Has reports whether name is a known invariant, step point or syscall.
	Has(kind Kind, name string) bool
	// Names lists the known names of kind, for error messages.
	Names(kind Kind) []string
}

// MapRegistry is a Registry built from maps, for tests and small tools. In
// Observables a name may contain "cpuN", which matches cpu0, cpu1, ..., and
// end with "[EVENT]", which matches any event index (event_index.go).
type MapRegistry struct {
	KernelKnobs map[string][]string
	ToolKnobs   map[string][]string
	PMUs        map[string]map[string][]string
	Actions     map[string]ActionSpec
	Observables map[string]Type
	Invariants  []string
	StepPoints  []string
	Syscalls    []string
	Faults      []string
}

func (m *MapRegistry) Knob(kind Kind, name string) ([]string, bool) {
	knobs := m.KernelKnobs
	if kind == ToolKnobs {
		knobs = m.ToolKnobs
	}
	v, ok := knobs[name]
	return v, ok
}

func (m *MapRegistry) PMU(name string) (map[string][]string, bool) {
	a, ok := m.PMUs[name]
	return a, ok
}

func (m *MapRegistry) Action(verb string) (ActionSpec, bool) {
	a, ok := m.Actions[verb]
	return a, ok
}

func (m *MapRegistry) Observable(name string) (Type, bool) {
	name = EventPattern(name)
	if t, ok := m.Observables[name]; ok {
		return t, true
	}
	t, ok := m.Observables[CPUPattern(name)]
	return t, ok
}

// CPUPattern replaces a name segment cpu<digits> by cpuN (in the name before
// an event index: the event's name is perf's).
func CPUPattern(name string) string {
	name, ev, indexed := CutEventIndex(name)
	if indexed {
		return CPUPattern(name) + "[" + ev + "]"
	}
	segs := strings.Split(name, ".")
	for i, s := range segs {
		if c, ok := ParseCPUNumber(s); ok && strings.HasPrefix(s, "cpu") && s == "cpu"+strconv.Itoa(c) {
			segs[i] = "cpuN"
		}
	}
	return strings.Join(segs, ".")
}

func (m *MapRegistry) Has(kind Kind, name string) bool {
	var list []string
	switch kind {
	case Invariants:
		list = m.Invariants
	case StepPoints:
		list = m.StepPoints
	case Syscalls:
		list = m.Syscalls
	case Faults:
		list = m.Faults
	}
	return slices.Contains(list, name)
}

func (m *MapRegistry) Names(kind Kind) []string {
	var out []string
	switch kind {
	case KernelKnobs:
		out = slices.Collect(maps.Keys(m.KernelKnobs))
	case ToolKnobs:
		out = slices.Collect(maps.Keys(m.ToolKnobs))
	case PMUs:
		out = slices.Collect(maps.Keys(m.PMUs))
	case Verbs:
		out = slices.Collect(maps.Keys(m.Actions))
	case Observables:
		out = slices.Collect(maps.Keys(m.Observables))
	case Invariants:
		out = slices.Clone(m.Invariants)
	case StepPoints:
		out = slices.Clone(m.StepPoints)
	case Syscalls:
		out = slices.Clone(m.Syscalls)
	case Faults:
		out = slices.Clone(m.Faults)
	}
	sort.Strings(out)
	return out
}

// NameKinds are the kinds Describe lists, in the order simrun names prints them.
var NameKinds = []Kind{Verbs, Observables, Invariants, StepPoints, Syscalls, PMUs, Statements, Tracepoints, Events, Faults}

// KindNamed returns the kind whose plural name (or a short form: steps) is s.
func KindNamed(s string) (Kind, bool) {
	s = strings.ToLower(s)
	for _, k := range NameKinds {
		plural := strings.ToLower(kindNames[k][1])
		if s == plural || s == strings.ReplaceAll(plural, " ", "-") ||
			(k == StepPoints && s == "steps") || (k == Syscalls && s == "syscalls") || (k == Statements && s == "statements") {
			return k, true
		}
	}
	return 0, false
}

// Plural is the kind's name in the plural ("step points").
func (k Kind) Plural() string { return kindNames[k][1] }
