package scenarios

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/scenarios/record"
	"perfsim/sched"
	"perfsim/sim"
)

// PMUPerf is the perf backend built from the pmu kernel core (pmu.NewKernel)
// and one perf record tool process per record line (record.NewSession).
//
// Everything it lists comes from the registries of the lower packages, so a
// new PMU, knob, observable, action or step point plugs in there:
//   - PMUs: pmu.Drivers() ("pmu NAME key=value" lines; caps=...), built with
//     Kernel.StartDrivers before any session starts;
//   - kernel knobs: pmu.AllKnobSpecs() (the ring buffer's rb.KnobSpecs, the
//     core's pmu.KnobSpecs and the drivers'), plus sched.Knobs (KernelKnobSpecs);
//     tool knobs: record.ToolKnobs();
//   - observables: pmu.ObservableNames() (flags per pmu.ObservableIsBool) and
//     record.AllSessionObservableNames(), which for a named session are also
//     SESSION.NAME; a session observable alone sums the sessions;
//   - verbs: record.Actions(), each taking the session first;
//   - step points: pmu.StepPoints() (the core's, rb's and the drivers');
//   - invariants: rb.Invariants, judged at the end of the run by rb.Check on the
//     log of every ring buffer the run allocated (pmu.Kernel.TraceBuffers).
//
// NMIs: a forced "nmi cpuN at LABEL" and a timed "at T nmi cpuN" run
// perf_event_nmi_handler() (pmu.Kernel.PerfEventNMIHandler); a forced one
// stands for the PMI of the counters ACTIVE on that CPU overflowing right
// there (see there).
type PMUPerf struct{}

// rbTraceLimit bounds each ring buffer's invariant log (events); a buffer that
// logs more (a benchmark) stops logging and is not judged.
const rbTraceLimit = 1 << 18

func (PMUPerf) KernelKnobs() []sim.KnobSpec { return pmu.AllKnobSpecs() }
func (PMUPerf) ToolKnobs() []sim.KnobSpec   { return record.ToolKnobs() }

func (PMUPerf) Invariants() []InvariantSpec {
	out := make([]InvariantSpec, 0, len(rb.Invariants))
	for _, inv := range rb.Invariants {
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "rb"})
	}
	return out
}

func (PMUPerf) PMUs() map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for _, d := range pmu.Drivers() {
		out[d.Name] = d.DriverAttrs()
	}
	return out
}

func (PMUPerf) Observables() map[string]Type {
	out := map[string]Type{}
	for _, n := range pmu.ObservableNames() {
		out[n] = IntType
		if pmu.ObservableIsBool(n) {
			out[n] = BoolType
		}
	}
	for _, n := range record.AllSessionObservableNames() {
		out[n] = IntType
		out["SESSION."+n] = IntType
	}
	return out
}

var recordArgKinds = map[record.ArgKind]ArgKind{
	record.ArgCPU: ArgCPU, record.ArgInt: ArgInt, record.ArgSize: ArgSize,
	record.ArgDuration: ArgDuration, record.ArgWord: ArgWord,
}

func (PMUPerf) Verbs() map[string]Verb {
	out := map[string]Verb{}
	for _, a := range record.Actions() {
		spec := ActionSpec{Args: []ArgKind{ArgSession}, MinArgs: 1 + a.MinArgs}
		for _, k := range a.Args {
			kind, ok := recordArgKinds[k]
			if !ok {
				kind = ArgWord
			}
			spec.Args = append(spec.Args, kind)
		}
		do := a.Do
		out[a.Name] = Verb{Spec: spec, Help: a.Help, Do: func(ac *ActionCtx) {
			p, ok := ac.Run.Perf.(*pmuRun)
			if !ok {
				return
			}
			ss := p.byName[ac.Arg(0)]
			if ss == nil {
				return
			}
			var args []string
			for _, x := range ac.Action.Args[1:] {
				args = append(args, x.Name)
			}
			do(ss, args)
		}}
	}
	return out
}

func (PMUPerf) StepPoints() []string { return pmu.StepPoints() }

func (PMUPerf) Syscalls() []string {
	var out []string
	for _, tp := range record.KernelTracepoints() {
		if name, ok := strings.CutPrefix(tp.Name, "sys_enter_"); ok && tp.System == "syscalls" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Start builds the kernel, its scenario PMUs, and starts one perf session per
// record line.
func (PMUPerf) Start(r *Run) (PerfRun, error) {
	o := pmu.DefaultOptions(len(r.M.CPUs))
	o.Tracepoints = record.KernelTracepoints()
	for _, k := range pmu.AllKnobSpecs() {
		if _, err := pmu.ApplyAnyKnob(&o.Knobs, k.Name, r.Knobs[k.Name]); err != nil {
			return nil, err
		}
	}
	p := &pmuRun{r: r, k: pmu.NewKernel(r.S, o), byName: map[string]*record.Session{}}
	p.k.TraceBuffers(rbTraceLimit)
	for _, line := range r.File.PMUs {
		cfg := pmu.PMUConfig{Name: line.Name, Attrs: map[string]string{}}
		for _, a := range line.Attrs {
			cfg.Attrs[a.Name] = a.Value
		}
		if err := p.k.StartDrivers([]pmu.PMUConfig{cfg}); err != nil {
			return nil, r.File.Errorf(line.Pos, "%v", err)
		}
	}
	toolKnobs := map[string]string{}
	for _, k := range record.ToolKnobs() {
		toolKnobs[k.Name] = r.Knobs[k.Name]
	}
	for _, rec := range r.File.Records {
		ropts := record.DefaultOptions()
		ropts.NrCPUs = len(r.M.CPUs)
		parsed, err := record.Parse(rec.Argv(), ropts)
		if err != nil {
			return nil, r.File.Errorf(rec.Pos, "%v", err)
		}
		var workload *sched.Task
		if w, ok := rec.Workload(); ok {
			workload = r.Tasks[w.Text]
		}
		sopts := record.DefaultSessionOptions()
		sopts.Knobs = toolKnobs
		ss, err := record.NewSession(parsed, p.k, r.S, workload, sopts)
		if err != nil {
			return nil, r.File.Errorf(rec.Pos, "%v", err)
		}
		p.sessions = append(p.sessions, ss)
		if rec.Name != nil {
			p.byName[rec.Name.Name] = ss
			p.names = append(p.names, rec.Name.Name)
		} else {
			p.names = append(p.names, "")
		}
	}
	return p, nil
}

type pmuRun struct {
	r        *Run
	k        *pmu.Kernel
	sessions []*record.Session
	names    []string
	byName   map[string]*record.Session
}

func (p *pmuRun) Observe(name string) (int64, bool) {
	if v, ok := p.k.Observe(name); ok {
		return v, true
	}
	if sname, rest, ok := strings.Cut(name, "."); ok {
		if ss := p.byName[sname]; ss != nil {
			return ss.Observe(rest)
		}
	}
	var sum int64
	found := false
	for _, ss := range p.sessions {
		if v, ok := ss.Observe(name); ok {
			sum, found = sum+v, true
		}
	}
	return sum, found
}

// NMI is perf_event_nmi_handler() on c (see pmu.Kernel.PerfEventNMIHandler).
func (p *pmuRun) NMI(c *cpu.CPU, forced bool) { p.k.PerfEventNMIHandler(c, forced) }

func (p *pmuRun) Script(w io.Writer) error {
	for i, ss := range p.sessions {
		if len(p.sessions) > 1 {
			fmt.Fprintf(w, "# session %d %s\n", i+1, p.names[i])
		}
		if err := ss.Script(w); err != nil {
			return err
		}
	}
	return nil
}

// Finish judges the ring buffer invariants: rb.Check on the log of every
// buffer the run allocated (a truncated log is noted, not judged).
func (p *pmuRun) Finish() []Violation {
	var out []Violation
	now := p.r.M.Now()
	for _, l := range p.k.BufferLogs() {
		if l.Truncated {
			p.r.note(-1, "rb", fmt.Sprintf("ring buffer of %s logged over %d events: its invariants are not judged", l.Name, rbTraceLimit))
			continue
		}
		for _, v := range l.Check() {
			out = append(out, Violation{Invariant: v.Invariant, T: now, CPU: -1,
				Message: fmt.Sprintf("ring buffer of %s: %s", l.Name, v.Detail)})
		}
	}
	return out
}
