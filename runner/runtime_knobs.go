package runner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// KernelKnobSpecs lists every kernel knob of the simulator with backend perf: the
// scheduler's and the perf backend's (for PMUPerf: the ring buffer's, the perf
// core's and the PMU drivers'), sorted by name.
func KernelKnobSpecs(perf PerfBackend) []sim.KnobSpec {
	if perf = backend(perf); isPMUPerf(perf) {
		return slices.Clone(pmuPerfRegistries().kernel)
	}
	return sortedKnobs(slices.Concat(sched.Knobs, perf.KernelKnobs()))
}

// ToolKnobSpecs lists the perf tool's knobs.
func ToolKnobSpecs(perf PerfBackend) []sim.KnobSpec {
	if perf = backend(perf); isPMUPerf(perf) {
		return slices.Clone(pmuPerfRegistries().tool)
	}
	return sortedKnobs(slices.Clone(perf.ToolKnobs()))
}

// knobSpecLists are KernelKnobSpecs and ToolKnobSpecs for reading only: the
// PMU backend's lists are its registries' own, not copies (resolveKnobs runs
// once per schedule of an exploration).
func knobSpecLists(perf PerfBackend) (kernel, tool []sim.KnobSpec) {
	if perf = backend(perf); isPMUPerf(perf) {
		reg := pmuPerfRegistries()
		return reg.kernel, reg.tool
	}
	return KernelKnobSpecs(perf), ToolKnobSpecs(perf)
}

func backend(perf PerfBackend) PerfBackend {
	if perf == nil {
		return DefaultPerf
	}
	return perf
}

func findKnob(list []sim.KnobSpec, name string) (sim.KnobSpec, bool) {
	for _, k := range list {
		if k.Name == name {
			return k, true
		}
	}
	return sim.KnobSpec{}, false
}

// ParseKnobArg splits a command line NAME=VALUE.
func ParseKnobArg(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" || value == "" {
		return "", "", fmt.Errorf("expected NAME=VALUE, found %q", s)
	}
	return name, value, nil
}

// resolveKnobs returns the value of every knob for a run: the default, then the
// file's kernel and tool lines, then the overrides (kernel or tool knobs by name).
func resolveKnobs(f *scenarios.File, overrides map[string]string, perf PerfBackend) (map[string]string, error) {
	kernel, tool := knobSpecLists(perf)
	out := make(map[string]string, len(kernel)+len(tool))
	for _, k := range kernel {
		out[k.Name] = k.Default()
	}
	for _, k := range tool {
		out[k.Name] = k.Default()
	}
	for _, s := range f.Kernel {
		out[s.Name] = s.Value
	}
	for _, s := range f.Tool {
		out[s.Name] = s.Value
	}
	names := make([]string, 0, len(overrides))
	for n := range overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := overrides[n]
		k, ok := findKnob(kernel, n)
		if !ok {
			k, ok = findKnob(tool, n)
		}
		if !ok {
			known := make([]string, 0, len(kernel)+len(tool))
			for _, k := range append(append([]sim.KnobSpec(nil), kernel...), tool...) {
				known = append(known, k.Name)
			}
			if best := scenarios.Closest(n, known); best != "" {
				return nil, fmt.Errorf("unknown knob %q; did you mean %q? (simrun knobs lists them)", n, best)
			}
			return nil, fmt.Errorf("unknown knob %q; known knobs: %s", n, strings.Join(known, ", "))
		}
		if err := k.Check(v); err != nil {
			return nil, err
		}
		out[n] = v
	}
	// A value of an old kernel brings the settings it implies
	// (sim.KnobSpec.Implies), so the knobs line says what ran; one the
	// scenario or an override sets wins.
	explicit := func(n string) bool {
		if _, ok := overrides[n]; ok {
			return true
		}
		return slices.ContainsFunc(f.Kernel, func(s *scenarios.Setting) bool { return s.Name == n }) ||
			slices.ContainsFunc(f.Tool, func(s *scenarios.Setting) bool { return s.Name == n })
	}
	if err := sim.ResolveImplied(slices.Concat(kernel, tool), out, explicit); err != nil {
		return nil, err
	}
	return out, nil
}

// applyKnobs sets the scheduler knobs; the backend reads the rest from Run.Knobs.
func applyKnobs(knobs map[string]string, cfg *sched.Config) error {
	for _, k := range sched.Knobs {
		if _, err := sched.ApplyKnob(cfg, k.Name, knobs[k.Name]); err != nil {
			return err
		}
	}
	return nil
}

// KnobList formats knobs as sorted NAME=VALUE words.
func KnobList(knobs map[string]string) []string {
	out := make([]string, 0, len(knobs))
	for n, v := range knobs {
		out = append(out, n+"="+v)
	}
	sort.Strings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }

// ResolveKnobs is the value of every kernel and tool knob in a run of f with
// overrides (simrun's --kernel NAME=VALUE) under perf (nil: DefaultPerf); an
// unknown knob or value is an error.
func ResolveKnobs(f *scenarios.File, overrides map[string]string, perf PerfBackend) (map[string]string, error) {
	return resolveKnobs(f, overrides, backend(perf))
}
