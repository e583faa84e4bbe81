// Registering a PMU driver, knob, observable or step point
//
// This file is the pmu package's registry: what it holds is everything the
// scenario runtime (runner.PMUPerf) lists for `simrun knobs`, the checker
// and the "pmu NAME key=value" lines of a scenario. The runtime reads only
// these functions, so a new PMU or mechanism plugs in without touching the
// scenarios package:
//
//   - A PMU driver (arch/x86/events/intel/pt.c, coresight-etm-perf.c, ...)
//     calls RegisterDriver from an init function of its package (pmu/pt,
//     pmu/coresight) with its Name (the sysfs name perf's -e uses and the
//     scenario's "pmu NAME"), its scenario attributes (Attrs: key -> allowed
//     values, literal words or the patterns ValueInt, ValueSize, ValueDuration),
//     the capability words a scenario may list in caps=a,b (Caps), and New,
//     which builds the PMU on a Kernel with the scenario's attributes; the
//     runtime registers what New returns with Kernel.RegisterPMU
//     (perf_pmu_register) before any event is opened. A driver whose package
//     is imported by nobody is not registered: scenarios imports pmu/...
//     drivers through scenarios/drivers.go's blank imports (add yours there,
//     one line) or the driver registers from package pmu itself.
//   - Kernel knobs of the pmu layer go into KnobSpecs (knobs.go); a driver's
//     own knobs go into Driver.Knobs and are read with Kernel.Knob(name).
//     Ring buffer knobs live in rb.KnobSpecs; pmu applies them (Knobs.RB) to
//     every buffer it allocates.
//   - Observables: RegisterObservable / RegisterBoolObservable (a name like
//     "aux.paused" and a getter); Kernel.Observe and ObservableNames see them.
//   - Step points: every label passed to Step() in pmu (and its driver
//     packages) must be in StepPoints() (add it to coreStepPoints or call
//     RegisterStepPoints from init); scenarios' tests scan the source for
//     labels nobody registered.
//   - NMIs: a registered PMU that implements NMIHandler is called by
//     Kernel.PerfEventNMIHandler (pmi_forced.go) for every NMI perf sees.
package pmu

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sim"
)

// Value patterns of Driver.Attrs, besides literal words (the scenario
// checker's spelling).
const (
	ValueInt      = "<int>"      // a non-negative integer
	ValueSize     = "<size>"     // 4096, 4K, 1M
	ValueDuration = "<duration>" // 5us
)

// Driver is a PMU driver a scenario can put on the machine ("pmu NAME
// key=value...").
type Driver struct {
	// Name is the PMU's name (pmu->name, /sys/bus/event_source/devices/NAME).
	Name string
	// Help is one line for listings.
	Help string
	// Attrs are the "pmu NAME key=value" attributes: key -> allowed values
	// (literal words and the Value* patterns; empty allows any value).
	Attrs map[string][]string
	// Caps are the capability words the driver can have; a scenario selects
	// some with caps=a,b (PERF_PMU_CAP_* as words: aux-pause, itrace, ...).
	Caps []string
	// Knobs are the driver's kernel knobs (read with Kernel.Knob).
	Knobs []sim.KnobSpec
	// StepPoints are the labels the driver passes to Step.
	StepPoints []string
	// Builtin: the core always has this PMU; a "pmu NAME" line only
	// configures it (New may return nil).
	Builtin bool
	// New builds the PMU on k. attrs holds the scenario's attributes (a key
	// given without a value maps to ""; "caps" holds the comma-separated
	// list). It returns the PMU to register, or nil when it only configured
	// one the core already has.
	New func(k *Kernel, attrs map[string]string) (PMU, error)
}

// PMUConfig is one "pmu NAME key=value..." line of a scenario.
type PMUConfig struct {
	Name  string
	Attrs map[string]string
}

// NMIHandler is implemented by a registered PMU that takes part in perf's
// NMI handler (x86: the PMI is shared by every PMU of the core; Intel PT's
// ToPA interrupt comes through x86_pmu_handle_irq too). forced: the NMI was
// forced by a scenario, see Kernel.PerfEventNMIHandler.
type NMIHandler interface {
	HandleNMI(c *cpu.CPU, forced bool) (handled bool)
}

var (
	drivers       []Driver
	extraSteps    []string
	boolObs       = map[string]bool{}
	observableHlp = map[string]string{}
)

// RegisterDriver adds a PMU driver; call it from an init function. A second
// driver of the same name replaces the first.
func RegisterDriver(d Driver) {
	if d.Name == "" {
		panic("pmu.RegisterDriver: a driver needs a name")
	}
	for i := range drivers {
		if drivers[i].Name == d.Name {
			drivers[i] = d
			return
		}
	}
	drivers = append(drivers, d)
}

// Drivers returns the registered drivers, sorted by name.
func Drivers() []Driver {
	out := slices.Clone(drivers)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupDriver returns the driver of that name.
func LookupDriver(name string) (Driver, bool) {
	for _, d := range drivers {
		if d.Name == name {
			return d, true
		}
	}
	return Driver{}, false
}

// DriverAttrs returns the attributes a "pmu NAME" line may give: the
// driver's Attrs, plus caps (its Caps) when it has capabilities.
func (d Driver) DriverAttrs() map[string][]string {
	out := map[string][]string{}
	for k, v := range d.Attrs {
		out[k] = slices.Clone(v)
	}
	if len(d.Caps) > 0 {
		out["caps"] = slices.Clone(d.Caps)
	}
	return out
}

// RegisterObservable adds a named integer observable of the perf core.
func RegisterObservable(name, help string, get func(k *Kernel) int64) {
	observables[name] = get
	observableHlp[name] = help
}

// RegisterBoolObservable adds a named flag (0 or 1) of the perf core.
func RegisterBoolObservable(name, help string, get func(k *Kernel) bool) {
	RegisterObservable(name, help, func(k *Kernel) int64 {
		if get(k) {
			return 1
		}
		return 0
	})
	boolObs[name] = true
}

// ObservableIsBool reports whether a core observable is a flag.
func ObservableIsBool(name string) bool { return boolObs[name] }

// ObservableHelp returns the one-line meaning of a registered observable.
func ObservableHelp(name string) string { return observableHlp[name] }

// RegisterStepPoints adds step point labels (call it from init).
func RegisterStepPoints(labels ...string) { extraSteps = append(extraSteps, labels...) }

// coreStepPoints are the labels the core (this package) passes to Step.
var coreStepPoints = []string{
	"__perf_event_disable", "__perf_install_in_context", "__perf_remove_from_context",
	"ctx_sched_in", "ctx_sched_out", "event_function_call:ctx-locked", "event_function_call:retry",
	"event_sched_in", "event_sched_out", "event_sched_out:del", "perf_event_context_sched_out:disabled",
	"perf_event_enable_on_exec", "perf_event_exit_task_context", "perf_event_task_sched_in",
	"perf_event_task_sched_out", "perf_ioctl:PAUSE_OUTPUT:checked", "perf_ioctl:PAUSE_OUTPUT:rb-read",
	"perf_mmap:mmap_mutex", "perf_mmap_close:detached", "perf_mmap_close:mmap_count-dec",
	"perf_poll:wait", "smp_call_function_single:wait",
}

// StepPoints lists every step point label of the perf kernel model: the
// core's, the ring buffer's (rb.StepPoints), the drivers' and the registered
// ones, sorted.
func StepPoints() []string {
	out := slices.Concat(coreStepPoints, rb.StepPoints, extraSteps)
	for _, d := range drivers {
		out = append(out, d.StepPoints...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// AllKnobSpecs lists the kernel knobs the pmu layer applies: the ring
// buffer's (rb.KnobSpecs), the core's (KnobSpecs) and the drivers', sorted.
func AllKnobSpecs() []sim.KnobSpec { return slices.Clone(allKnobSpecs()) }

// KnobSpecsSeq yields AllKnobSpecs without the copy: what builds every run's
// kernel options reads them only.
func KnobSpecsSeq() iter.Seq[sim.KnobSpec] {
	return slices.Values(allKnobSpecs())
}

// allKnobSpecs is AllKnobSpecs sorted once: the knobs are registered by init
// functions (RegisterDriver), and every run's perf backend asks for them.
var allKnobSpecs = sync.OnceValue(func() []sim.KnobSpec {
	out := slices.Concat(rb.KnobSpecs, KnobSpecs)
	for _, d := range drivers {
		out = append(out, d.Knobs...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
})

// ApplyAnyKnob sets any knob of AllKnobSpecs in k: a ring buffer knob in
// k.RB, a core knob in its field, a driver knob in k.Extra. It reports
// whether the name is one of them.
func ApplyAnyKnob(k *Knobs, name, value string) (bool, error) {
	if ok, err := rb.ApplyKnob(&k.RB, name, value); ok {
		return true, err
	}
	if ok, err := ApplyKnob(k, name, value); ok {
		return true, err
	}
	for _, d := range drivers {
		for _, spec := range d.Knobs {
			if spec.Name != name {
				continue
			}
			if err := spec.Check(value); err != nil {
				return true, err
			}
			if k.Extra == nil {
				k.Extra = map[string]string{}
			}
			k.Extra[name] = value
			return true, nil
		}
	}
	return false, nil
}

// ApplyKnobs sets the knobs of settings (NAME -> VALUE) in k, with the
// settings their values imply (sim.KnobSpec.Implies: a knob of a kernel
// older than v6.6 brings that kernel's close(2)) unless settings names them:
// what the runner does with a scenario's kernel line, for a kernel built
// from Go. A name that is not a knob of the pmu layer is an error.
func ApplyKnobs(k *Knobs, settings map[string]string) error {
	specs := allKnobSpecs()
	all := make(map[string]string, len(specs))
	for _, spec := range specs {
		all[spec.Name] = spec.Default()
	}
	for n, v := range settings {
		if _, ok := all[n]; !ok {
			return fmt.Errorf("pmu: no kernel knob %q", n)
		}
		all[n] = v
	}
	if err := sim.ResolveImplied(specs, all, func(n string) bool { _, ok := settings[n]; return ok }); err != nil {
		return err
	}
	for _, spec := range specs {
		if v := all[spec.Name]; v != spec.Default() || settings[spec.Name] != "" {
			if _, err := ApplyAnyKnob(k, spec.Name, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// Knob returns the value of a kernel knob (its default when not set). A name
// no spec defines is a bug in the model, not a default: it panics, so a typo
// cannot silently select today's code.
func (k *Kernel) Knob(name string) string {
	c := &k.knobs.valCache[bytesSlot(name, knobCacheSize)] // by where the name's bytes are (strbytes.go)
	if c.set && sameBytes(c.name, name) {
		return c.value
	}
	v := k.knob(name)
	*c = knobCached{name: name, value: v, set: true}
	return v
}

// knob is Knob by the memo.
func (k *Kernel) knob(name string) string {
	if v := k.knobs.vals; len(v) > 0 {
		// The callers pass string constants: the same name is the same
		// bytes, and a test of the pointer finds it without comparing.
		for i := range v {
			if sameBytes(v[i].name, name) {
				return v[memoHit(v, i)].value
			}
		}
		for i := range v {
			if v[i].name == name {
				return v[i].value
			}
		}
	}
	spec, ok := kernelKnobSpec(name)
	if !ok {
		panic("pmu: Kernel.Knob: no kernel knob " + name)
	}
	v, ok := k.Opts.Knobs.Extra[name]
	if !ok {
		v = spec.Default()
	}
	if k.knobs.vals == nil {
		k.knobs.vals = make([]knobValue, 0, 16) // the dozen a run asks, grown once
	}
	k.knobs.vals = append(k.knobs.vals, knobValue{name: name, value: v})
	return v
}

// KnobIs reports whether kernel knob name has value; a value the knob does not
// have panics, like an unknown name.
func (k *Kernel) KnobIs(name, value string) bool {
	// A cache by where the name's and the value's bytes are (strbytes.go)
	// answers most without a scan.
	c := &k.knobs.isCache[bytesSlot(name, knobCacheSize)^bytesSlot(value, knobCacheSize)]
	if c.set && sameBytes(c.name, name) && sameBytes(c.value, value) {
		return c.is
	}
	is := k.knobIs(name, value)
	*c = knobCached{name: name, value: value, is: is, set: true}
	return is
}

// knobCacheSize is the number of entries of knobMemo.isCache (a power of 2).
const knobCacheSize = 32

// knobCached is an entry of knobMemo.isCache: KnobIs(name, value).
type knobCached struct {
	name, value string
	is, set     bool
}

// knobIs is KnobIs by the memo.
func (k *Kernel) knobIs(name, value string) bool {
	if is := k.knobs.is; len(is) > 0 {
		for i := range is {
			if q := &is[i]; sameBytes(q.name, name) && sameBytes(q.value, value) {
				return is[memoHit(is, i)].is
			}
		}
		for i := range is {
			if q := &is[i]; q.name == name && q.value == value {
				return q.is
			}
		}
	}
	spec, _ := kernelKnobSpec(name)
	if err := spec.Check(value); err != nil && spec.Name != "" {
		panic("pmu: Kernel.KnobIs: " + err.Error())
	}
	is := k.Knob(name) == value
	if k.knobs.is == nil {
		k.knobs.is = make([]knobValue, 0, 16)
	}
	k.knobs.is = append(k.knobs.is, knobValue{name: name, value: value, is: is})
	return is
}

// knobMemo holds what Knob and KnobIs resolved, the knobs asked most towards
// the front (a new entry is appended; memoHit moves an entry found one place
// forward each time it is found): the hot paths (an overflow, a syscall, a
// tracepoint) ask the same dozen knobs again and again, a scan of a few
// entries costs less than the index and the checks, and the knobs of a
// Kernel do not change once it is made (Opts.Knobs is read only).
type knobMemo struct {
	vals, is []knobValue
	isCache  [knobCacheSize]knobCached // in front of is (KnobIs)
	valCache [knobCacheSize]knobCached // in front of vals (Knob)
}

// memoHit moves the memo entry i that a lookup found one place towards the
// front, so the knobs a run asks most are found in the first few compares
// (a hot path asks the same knob thousands of times), and returns where it
// is now. The order of the memo says nothing else.
func memoHit(v []knobValue, i int) int {
	if i == 0 {
		return 0
	}
	v[i-1], v[i] = v[i], v[i-1]
	return i - 1
}

type knobValue struct {
	name, value string
	is          bool // KnobIs(name, value)
}

// kernelKnobSpec finds a knob of the core or of a driver. Kernel.Knob asks
// it on hot paths (an overflow, a syscall), so the names registered by the
// init functions are indexed once; the index is checked against the slices
// (they are exported), and a name it misses is looked for by a scan.
func kernelKnobSpec(name string) (sim.KnobSpec, bool) {
	knobIndexOnce.Do(buildKnobIndex)
	if at, ok := knobIndex[name]; ok {
		if at.driver < 0 {
			if at.i < len(KnobSpecs) && KnobSpecs[at.i].Name == name {
				return KnobSpecs[at.i], true
			}
		} else if at.driver < len(drivers) && at.i < len(drivers[at.driver].Knobs) && drivers[at.driver].Knobs[at.i].Name == name {
			return drivers[at.driver].Knobs[at.i], true
		}
	}
	return scanKernelKnobSpec(name)
}

// knobAt is where a knob's spec is: KnobSpecs[i] (driver -1) or
// drivers[driver].Knobs[i].
type knobAt struct{ driver, i int }

var (
	knobIndexOnce sync.Once
	knobIndex     map[string]knobAt
)

// buildKnobIndex indexes the knobs as scanKernelKnobSpec finds them (the
// first of a name wins).
func buildKnobIndex() {
	knobIndex = map[string]knobAt{}
	add := func(name string, at knobAt) {
		if _, ok := knobIndex[name]; !ok {
			knobIndex[name] = at
		}
	}
	for i, spec := range KnobSpecs {
		add(spec.Name, knobAt{-1, i})
	}
	for d := range drivers {
		for i, spec := range drivers[d].Knobs {
			add(spec.Name, knobAt{d, i})
		}
	}
}

func scanKernelKnobSpec(name string) (sim.KnobSpec, bool) {
	for _, spec := range KnobSpecs {
		if spec.Name == name {
			return spec, true
		}
	}
	for _, d := range drivers {
		for _, spec := range d.Knobs {
			if spec.Name == name {
				return spec, true
			}
		}
	}
	return sim.KnobSpec{}, false
}

// maxPMUs is the size of the per-CPU pmu_disable_count array.
const maxPMUs = len([8]int{})

// RegisterPMU is perf_pmu_register(): p joins the PMUs perf_event_open
// tries. Call it before events are opened.
// kernel/events/core.c: perf_pmu_register()
func (k *Kernel) RegisterPMU(p PMU) error {
	for _, x := range k.pmus {
		if x.Name() == p.Name() {
			return fmt.Errorf("perf_pmu_register: a PMU named %s exists", p.Name())
		}
	}
	if len(k.pmus) >= maxPMUs {
		return fmt.Errorf("perf_pmu_register: the model has room for %d PMUs", maxPMUs)
	}
	p.base().index = len(k.pmus)
	k.pmus = append(k.pmus, p)
	return nil
}

// StartDrivers builds the PMUs of a scenario's "pmu" lines, in order: each
// driver's New, then RegisterPMU. Attribute values are checked against the
// driver's lists first.
func (k *Kernel) StartDrivers(cfgs []PMUConfig) error {
	for _, cfg := range cfgs {
		d, ok := LookupDriver(cfg.Name)
		if !ok {
			return fmt.Errorf("no PMU driver named %s", cfg.Name)
		}
		allowed := d.DriverAttrs()
		for key, v := range cfg.Attrs {
			vals, ok := allowed[key]
			if !ok {
				return fmt.Errorf("pmu %s has no attribute %s", cfg.Name, key)
			}
			for _, one := range strings.Split(v, ",") {
				if !attrValueOK(vals, one) {
					return fmt.Errorf("pmu %s %s=%s: expected one of %s", cfg.Name, key, one, strings.Join(vals, ", "))
				}
			}
		}
		if d.New == nil {
			continue
		}
		p, err := d.New(k, cfg.Attrs)
		if err != nil {
			return fmt.Errorf("pmu %s: %w", cfg.Name, err)
		}
		if p != nil {
			if err := k.RegisterPMU(p); err != nil {
				return err
			}
		}
	}
	return nil
}

func attrValueOK(vals []string, v string) bool {
	if len(vals) == 0 {
		return true
	}
	for _, a := range vals {
		switch a {
		case ValueInt, ValueSize, ValueDuration:
			return true // the scenario checker parses these; New re-parses
		}
		if a == v {
			return true
		}
	}
	return false
}

// ParseAttrInt parses an ValueInt value (decimal or 0x hex, _ separators).
func ParseAttrInt(v string) (int64, error) {
	return strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 0, 64)
}

// ParseAttrDuration parses a ValueDuration value: a non-negative integer
// and one of the units ns, us, ms, s (250ns, 5us).
func ParseAttrDuration(v string) (sim.Duration, error) {
	units := []struct {
		suffix string
		d      sim.Duration
	}{{"ns", sim.Nanosecond}, {"us", sim.Microsecond}, {"ms", sim.Millisecond}, {"s", sim.Second}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			n, err := strconv.ParseInt(strings.ReplaceAll(num, "_", ""), 10, 64)
			if err != nil || n < 0 || n > int64(sim.Never/u.d) {
				break
			}
			return sim.Duration(n) * u.d, nil
		}
	}
	return 0, fmt.Errorf("expected a duration like 200ns or 5us, found %q", v)
}

// The core's own PMU, the x86 core PMU ("cpu"): always there; a scenario
// may set how many general-purpose counters each CPU has, and the PMI's
// skid: how late after the overflow its NMI may be taken (skid=200ns; 0, the
// default, takes it when the counter overflows). With a skid, explore may hold
// a PMI that falls due within the skid of the end of a time advance to that
// end, so that it lands in the kernel path that follows (cpu.Interrupt.Skid).
func init() {
	RegisterDriver(Driver{
		Name:    "cpu",
		Help:    "the x86 core PMU (cycles, instructions): counters advance with execution and raise a PMI (NMI) on overflow, up to skid=DURATION late",
		Attrs:   map[string][]string{"counters": {ValueInt}, "skid": {ValueDuration}},
		Builtin: true,
		New: func(k *Kernel, attrs map[string]string) (PMU, error) {
			if v, ok := attrs["counters"]; ok {
				n, err := ParseAttrInt(v)
				if err != nil || n < 1 || n > 8 {
					return nil, fmt.Errorf("counters=%s: expected 1 to 8", v)
				}
				k.hwPMU.setCounters(int(n))
			}
			if v, ok := attrs["skid"]; ok {
				d, err := ParseAttrDuration(v)
				if err != nil {
					return nil, fmt.Errorf("skid=%s: %w", v, err)
				}
				k.hwPMU.setSkid(d)
			}
			return nil, nil
		},
	})
}

// setSkid sets the skid of every CPU's PMI (before any counter is armed).
func (p *hwPMU) setSkid(d sim.Duration) {
	p.k.Opts.HW.Skid = d
	for i := range p.cpuc {
		p.cpuc[i].nmi.Skid = d
	}
}

// setCounters resizes the per-CPU counter arrays (before any event exists).
func (p *hwPMU) setCounters(n int) {
	p.k.Opts.HW.Counters = n
	for i := range p.cpuc {
		p.cpuc[i].events = make([]*Event, n)
		p.cpuc[i].active = make([]bool, n)
	}
}
