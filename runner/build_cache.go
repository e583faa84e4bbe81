package runner

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/scenarios"
	"perfsim/sched"
)

// knobSet is what Build derives from a file's kernel and tool lines, the
// knob overrides and the backend alone: the same for every schedule of an
// exploration, which builds one run per schedule. Everything in it is read
// only once made; runs share it.
type knobSet struct {
	// The key: the file, copies of its kernel and tool lines and of the
	// overrides (only PMUPerf's sets are kept).
	f            *scenarios.File
	kernel, tool [][2]string // NAME, VALUE
	overrides    map[string]string

	knobs map[string]string // resolveKnobs: Run.Knobs
	list  []string          // KnobList(knobs), sorted
	// pmuKnobs and toolKnobs are PMUPerf.Start's (made for it only): the
	// pmu layer's knobs applied (pmuErr: the value one refused) and the perf
	// tool's values.
	pmuKnobs  pmu.Knobs
	pmuErr    error
	toolKnobs map[string]string
	// schedCfg is sched.DefaultConfig() with the scheduler's knobs applied
	// (applyKnobs; schedErr: the value it refused), made at the first Build:
	// a sched.Config is a value, each run gets its copy.
	schedOnce sync.Once
	schedCfg  sched.Config
	schedErr  error
	// judged is Run.judgedInvariants of a run with these knobs (read only),
	// made at the first Build
	judgedOnce sync.Once
	judged     map[string]bool
	// records holds each record line as perf parsed it (*scenarios.Record ->
	// *parsedRecord), never handed out: a run gets a Clone.
	records sync.Map
}

// parsedRecord is a record line perf accepted, with what it was parsed
// from: the words, the machine's CPUs and the perf version.
type parsedRecord struct {
	argv []string
	nr   int
	tool perftool.Tool
	rec  *perftool.Record
}

// schedConfig returns the scheduler's configuration of ks's knobs.
func (ks *knobSet) schedConfig() (sched.Config, error) {
	ks.schedOnce.Do(func() {
		ks.schedCfg = sched.DefaultConfig()
		ks.schedErr = applyKnobs(ks.knobs, &ks.schedCfg)
	})
	return ks.schedCfg, ks.schedErr
}

// judgedInvariants returns the invariants r's outcomes judge
// (Run.judgedInvariants), made once for ks's file and knobs.
func (ks *knobSet) judgedInvariants(r *Run) map[string]bool {
	ks.judgedOnce.Do(func() { ks.judged = r.judgedInvariants() })
	return ks.judged
}

// lastKnobSet is the knobSet Build made last; an exploration (its workers
// too) builds every run from the same file and overrides, so one entry is
// enough.
var lastKnobSet atomic.Pointer[knobSet]

// knobSetFor returns the knobs of a run of f with overrides under perf
// (resolved), made once for a file and overrides and then reused.
func knobSetFor(f *scenarios.File, overrides map[string]string, perf PerfBackend) (*knobSet, error) {
	pmuPerf := isPMUPerf(perf)
	if ks := lastKnobSet.Load(); ks != nil && pmuPerf && ks.matches(f, overrides) {
		return ks, nil
	}
	knobs, err := resolveKnobs(f, overrides, perf)
	if err != nil {
		return nil, err
	}
	ks := &knobSet{f: f, kernel: settings(f.Kernel), tool: settings(f.Tool), overrides: maps.Clone(overrides),
		knobs: knobs, list: KnobList(knobs)}
	if pmuPerf {
		ks.pmuKnobs, ks.pmuErr = pmuKnobsOf(knobs)
		ks.toolKnobs = toolKnobsOf(knobs)
		lastKnobSet.Store(ks)
	}
	return ks, nil
}

// matches reports whether ks was made for f (as it is now) and overrides.
func (ks *knobSet) matches(f *scenarios.File, overrides map[string]string) bool {
	if ks.f != f || !maps.Equal(ks.overrides, overrides) {
		return false
	}
	same := func(a [][2]string, b []*scenarios.Setting) bool {
		return slices.EqualFunc(a, b, func(x [2]string, y *scenarios.Setting) bool { return x[0] == y.Name && x[1] == y.Value })
	}
	return same(ks.kernel, f.Kernel) && same(ks.tool, f.Tool)
}

func settings(l []*scenarios.Setting) [][2]string {
	out := make([][2]string, len(l))
	for i, s := range l {
		out[i] = [2]string{s.Name, s.Value}
	}
	return out
}

// pmuKnobsOf applies every knob of the pmu layer (ring buffer, core,
// drivers) to a pmu.Knobs.
func pmuKnobsOf(knobs map[string]string) (pmu.Knobs, error) {
	var k pmu.Knobs
	for spec := range pmu.KnobSpecsSeq() {
		if _, err := pmu.ApplyAnyKnob(&k, spec.Name, knobs[spec.Name]); err != nil {
			return pmu.Knobs{}, err
		}
	}
	return k, nil
}

// toolKnobsOf is the perf tool's knobs' values.
func toolKnobsOf(knobs map[string]string) map[string]string {
	out := map[string]string{}
	for _, k := range perftool.ToolKnobs() {
		out[k.Name] = knobs[k.Name]
	}
	return out
}
