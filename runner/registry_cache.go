package runner

import (
	"maps"
	"slices"
	"sort"
	"sync"

	"perfsim/sched"
	"perfsim/sim"
)

// The lists Build reads from the registries of the PMUPerf backend, sorted
// once per process: the registries are filled by init functions and do not
// change afterwards, and an exploration builds one run per schedule (these
// were a tenth of its CPU time). Callers get copies (a map they must not
// change: allVerbs's).
var pmuPerfRegistries = sync.OnceValue(func() (c struct {
	kernel, tool []sim.KnobSpec
	invariants   []InvariantSpec
	verbs        map[string]Verb
}) {
	p := PMUPerf{}
	c.kernel = sortedKnobs(slices.Concat(sched.Knobs, p.KernelKnobs()))
	c.tool = sortedKnobs(slices.Clone(p.ToolKnobs()))
	c.invariants = sortedInvariants(p)
	c.verbs = verbsOf(p)
	return c
})

func sortedKnobs(out []sim.KnobSpec) []sim.KnobSpec {
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func sortedInvariants(perf PerfBackend) []InvariantSpec {
	out := append(append([]InvariantSpec(nil), SchedInvariants...), perf.Invariants()...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func verbsOf(perf PerfBackend) map[string]Verb {
	v := builtinVerbs()
	maps.Copy(v, hotplugVerbs())
	maps.Copy(v, cgroupVerbs())
	maps.Copy(v, perf.Verbs())
	return v
}

// isPMUPerf reports whether perf (resolved) is the PMUPerf backend, whose
// registry lists are cached.
func isPMUPerf(perf PerfBackend) bool {
	_, ok := perf.(PMUPerf)
	return ok
}
