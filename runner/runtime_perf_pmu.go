package runner

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"perfsim/cpu"
	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// PMUPerf is the perf backend built from the pmu kernel core (pmu.NewKernel)
// and one perf record tool process per record line (perftool.NewSession).
//
// Everything it lists comes from the registries of the lower packages, so a
// new PMU, knob, observable, action or step point plugs in there:
//   - PMUs: pmu.Drivers() ("pmu NAME key=value" lines; caps=...), built with
//     Kernel.StartDrivers before any session starts;
//   - kernel knobs: pmu.AllKnobSpecs() (the ring buffer's rb.KnobSpecs, the
//     core's pmu.KnobSpecs and the drivers'), plus sched.Knobs (KernelKnobSpecs);
//     tool knobs: perftool.ToolKnobs();
//   - observables: pmu.ObservableNames() (flags per pmu.ObservableIsBool) and
//     perftool.AllSessionObservableNames(), which for a named session are also
//     SESSION.NAME; a session observable alone sums the sessions;
//   - verbs: perftool.Actions(), each taking the session first;
//   - step points: pmu.StepPoints() (the core's, rb's and the drivers');
//   - invariants: rb.Invariants, judged at the end of the run by rb.Check on the
//     log of every ring buffer the run allocated (pmu.Kernel.TraceBuffers), and
//     perftool.SessionInvariants(), judged on every session by their Check;
//   - timeline rows: a PMU implementing Timeliner (cs_etm's periods).
//
// NMIs: a forced "nmi cpuN at LABEL" and a timed "at T nmi cpuN" run
// perf_event_nmi_handler() (pmu.Kernel.PerfEventNMIHandler); a forced one
// stands for the PMI of the counters ACTIVE on that CPU overflowing right
// there (see there).
type PMUPerf struct{}

// rbTraceLimit bounds each ring buffer's invariant log (events), and
// rbTraceTotal the logs of a run in all; a buffer that logs past either (a
// benchmark) stops logging and is not judged.
const (
	rbTraceLimit = 1 << 16
	rbTraceTotal = 1 << 18
)

func (PMUPerf) KernelKnobs() []sim.KnobSpec { return pmu.AllKnobSpecs() }
func (PMUPerf) ToolKnobs() []sim.KnobSpec   { return perftool.ToolKnobs() }

func (PMUPerf) Invariants() []InvariantSpec {
	out := make([]InvariantSpec, 0, len(rb.Invariants))
	for _, inv := range rb.Invariants {
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "rb"})
	}
	for _, inv := range pmu.LifetimeInvariants { // judged where objects are used and in Finish
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "pmu"})
	}
	for _, inv := range pmu.AccountInvariants { // judged in Finish
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "pmu"})
	}
	for _, inv := range pmu.DataRaceInvariants { // judged at every annotated access
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "pmu"})
	}
	for _, inv := range pmu.InheritInvariants { // judged on every read() and in Finish
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "pmu"})
	}
	for _, inv := range pmu.CgroupInvariants { // judged in Finish
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: "pmu"})
	}
	for _, inv := range perftool.SessionInvariants() { // judged per session in Finish
		out = append(out, InvariantSpec{Name: inv.Name, Says: inv.Says, Why: inv.Why, Package: inv.Package})
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

func (PMUPerf) Observables() map[string]scenarios.Type {
	out := map[string]scenarios.Type{}
	for _, n := range pmu.ObservableNames() {
		out[n] = scenarios.IntType
		if pmu.ObservableIsBool(n) {
			out[n] = scenarios.BoolType
		}
	}
	for n := range oracleObservables {
		out[n] = scenarios.IntType
	}
	for _, n := range perftool.AllSessionObservableNames() {
		out[n] = scenarios.IntType
		out["SESSION."+n] = scenarios.IntType
	}
	return out
}

func (PMUPerf) ObservableHelp(name string) string {
	if h := pmu.ObservableHelp(name); h != "" {
		return h
	}
	if h, ok := oracleObservables[name]; ok {
		return h
	}
	return perftool.SessionObservableHelp(strings.TrimPrefix(name, "SESSION."))
}

func (PMUPerf) Verbs() map[string]Verb {
	out := map[string]Verb{}
	for _, a := range perftool.Actions() {
		spec := scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgSession}, MinArgs: 1 + a.MinArgs}
		spec.Args = append(spec.Args, a.Args...)
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

// Tracepoints lists the catalogue's tracepoints with their fields (simrun names tracepoints).
func (PMUPerf) Tracepoints() []NameEntry {
	var out []NameEntry
	for _, tp := range perftool.KernelTracepoints() {
		out = append(out, NameEntry{tp.System + ":" + tp.Name, perftool.TracepointFieldsLine(tp.System, tp.Name)})
	}
	return out
}

func (PMUPerf) Syscalls() []string {
	var out []string
	for _, tp := range perftool.KernelTracepoints() {
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
	// user unprivileged: perfmon_capable() and capable(CAP_IPC_LOCK) are
	// false, so perf_event_paranoid and RLIMIT_MEMLOCK bind
	o.Sysctl.PerfmonCapable = !r.File.Unprivileged()
	o.Tracepoints = perftool.KernelTracepoints()
	if r.knobSet.pmuErr != nil {
		return nil, r.knobSet.pmuErr
	}
	o.Knobs = r.knobSet.pmuKnobs // Extra is shared, read only
	p := &pmuRun{r: r, k: pmu.NewKernel(r.S, o), byName: map[string]*perftool.Session{}}
	r.shareProcess(p.k)
	p.k.TraceBuffers(rbTraceLimit)
	p.k.TraceBuffersInAll(rbTraceTotal)
	p.k.SetInheritViolationHook(func(v pmu.InheritViolation) {
		r.addViolation(Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	})
	p.k.SetLifetimeHook(func(v pmu.LifetimeViolation) {
		r.addViolation(Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	})
	p.k.SetDataRaceHook(func(v pmu.DataRaceViolation) {
		r.addViolation(Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	})
	prev := p.k.OnOutput
	p.k.OnOutput = func(e *pmu.Event, c *cpu.CPU, s *rb.Sample) {
		if e.State() != pmu.StateActive || e.OnCPU() != c.ID {
			p.notActive++
		}
		if prev != nil {
			prev(e, c, s)
		}
	}
	for _, line := range r.File.PMUs {
		cfg := pmu.PMUConfig{Name: line.Name, Attrs: map[string]string{}}
		for _, a := range line.Attrs {
			cfg.Attrs[a.Name] = a.Value
		}
		if err := p.k.StartDrivers([]pmu.PMUConfig{cfg}); err != nil {
			return nil, r.File.Errorf(line.Pos, "%v", err)
		}
	}
	toolKnobs := r.knobSet.toolKnobs // read only: the sessions only look values up
	keep := r.opts.PerfDataKeep
	if keep == 0 {
		keep = perftool.DefaultKeep
	}
	budget := perftool.NewKeepBudget(max(keep, 0))
	var refused scenarios.ErrorList // every record line perf refuses, not just the first
	for _, rec := range r.File.Records {
		parsed, err := r.parseRecord(rec, toolKnobs)
		var se *scenarios.Error
		if errors.As(err, &se) {
			refused = append(refused, se)
			continue
		}
		if err != nil || len(refused) > 0 {
			if err != nil {
				return nil, err
			}
			continue
		}
		var workload *sched.Task
		if w, ok := rec.Workload(); ok {
			workload = r.Tasks[w.Text]
		}
		sopts := perftool.DefaultSessionOptions()
		sopts.Knobs = toolKnobs
		sopts.Tasks = r.Tasks // -p/-t name them
		ss, err := perftool.NewSession(parsed, p.k, r.S, workload, sopts)
		if err != nil {
			return nil, r.File.Errorf(rec.Pos, "%v", err)
		}
		if keep > 0 {
			ss.Data.Keep = budget
		}
		p.sessions = append(p.sessions, ss)
		p.records = append(p.records, rec)
		if rec.Name != nil {
			r.S.Faults.Bind(rec.Name.Name, ss.Perf) // fail SITE in SESSION: its perf's calls
			p.byName[rec.Name.Name] = ss
			p.names = append(p.names, rec.Name.Name)
		} else {
			p.names = append(p.names, "")
		}
	}
	if len(refused) > 0 {
		return nil, refused
	}
	if dir := r.opts.PerfDataDir; dir != "" && len(p.sessions) > 0 {
		if err := p.spool(dir); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// oracleObservables are observables the backend computes from the pmu's
// oracle hook (Kernel.OnOutput), apart from the model.
var oracleObservables = map[string]string{
	"samples.not-active": "samples written for an event that was not ACTIVE on the writing CPU",
}

type pmuRun struct {
	notActive int64 // samples.not-active
	r         *Run
	k         *pmu.Kernel
	sessions  []*perftool.Session
	records   []*scenarios.Record // each session's record line
	names     []string
	byName    map[string]*perftool.Session
}

func (p *pmuRun) Observe(name string) (int64, bool) {
	if name == "samples.not-active" {
		return p.notActive, true
	}
	if v, ok := p.k.Observe(name); ok {
		return v, true
	}
	if sname, rest, ok := strings.Cut(name, "."); ok {
		// SESSION.NAME; a session named like an observable's first segment
		// (record cs: ... with cs.snapshot.count) falls through to the sum.
		if ss := p.byName[sname]; ss != nil {
			if v, ok := ss.Observe(rest); ok {
				return v, true
			}
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

// Timeline draws the rows of the PMUs that have their own timeline (cs_etm's
// periods), on the machine timeline's scale.
func (p *pmuRun) Timeline(end sim.Time, width int) string {
	var out string
	for _, x := range p.k.PMUs() {
		if tl, ok := x.(Timeliner); ok {
			out += tl.Timeline(end, width)
		}
	}
	return out
}

// NMI is perf_event_nmi_handler() on c (see pmu.Kernel.PerfEventNMIHandler).
func (p *pmuRun) NMI(c *cpu.CPU, forced bool) { p.k.PerfEventNMIHandler(c, forced) }

func (p *pmuRun) Script(w io.Writer) error {
	for i, ss := range p.sessions {
		if len(p.sessions) > 1 {
			fmt.Fprintf(w, "# session %d %s\n", i+1, p.names[i])
		}
		if err := ss.Script(w); err != nil {
			return fmt.Errorf("%s: %w", p.label(i), err)
		}
	}
	return nil
}

// label names session i for messages: "session 2 pt (line 7)".
func (p *pmuRun) label(i int) string {
	if p.names[i] == "" {
		return fmt.Sprintf("session %d (line %d)", i+1, p.records[i].Pos.Line)
	}
	return fmt.Sprintf("session %d %s (line %d)", i+1, p.names[i], p.records[i].Pos.Line)
}

// Messages are what the sessions printed while they ran and carried on
// after (perf's warnings), and why a session that gave up did (perf.error),
// each at its record line.
func (p *pmuRun) Messages() []string {
	var out []string
	for i, ss := range p.sessions {
		pos := p.records[i].Pos
		for _, w := range ss.Warnings {
			out = append(out, p.r.File.Errorf(pos, "perf record: %s", w).Error())
		}
		if ss.Err != nil {
			out = append(out, p.r.File.Errorf(pos, "perf record gave up (perf.error=1): %s", strings.TrimPrefix(ss.Err.Error(), "perf record: ")).Error())
		}
		if ss.Data.Dropped {
			out = append(out, p.r.File.Errorf(pos, "note: perf.data of %d bytes, over the %s kept in memory: its records were counted, not kept "+
				"(perf script and the checks that read them had nothing to look at)", ss.Data.Written, FormatSize(ss.Data.Keep.Total)).Error())
		}
	}
	return out
}

// Finish judges the ring buffer invariants: rb.Check on the log of every
// buffer the run allocated (a truncated log is noted, not judged).
func (p *pmuRun) Finish() []Violation {
	var out []Violation
	now := p.r.M.Now()
	// The rings of a session that ended normally were read to the end
	// (perf's last record__mmap_read_all()), so a record neither copied out
	// nor overwritten nor counted lost was missed.
	for _, ss := range p.sessions {
		if !ss.Finished || ss.Err != nil {
			continue
		}
		for _, m := range ss.Mmaps {
			if m.Map != nil {
				if l := p.k.BufferLogOf(m.Map.RB); l != nil {
					l.Drained = true
				}
			}
		}
	}
	for _, v := range p.k.InheritCheck() {
		out = append(out, Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	}
	for _, v := range p.k.CgroupCheck() {
		out = append(out, Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	}
	quiet := p.r.S.AllExited()
	for _, v := range p.k.LifetimeCheck(quiet) {
		out = append(out, Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	}
	for _, v := range p.k.AccountCheck(quiet) {
		out = append(out, Violation{Invariant: v.Invariant, T: v.T, CPU: v.CPU, Message: v.Message})
	}
	for _, l := range p.k.BufferLogs() {
		l.Quiet = quiet
		if l.Truncated {
			msg := fmt.Sprintf("ring buffer of %s logged over %d events, or the run's over %d in all: its invariants are not judged", l.Name, rbTraceLimit, rbTraceTotal)
			p.r.note(-1, "rb", msg)
			// Said with the result too: a verdict without these checks must say so.
			p.r.messages = append(p.r.messages, "note: "+msg)
			continue
		}
		for _, v := range l.Check() {
			t := now
			if at, ok := l.TimeOf(v); ok {
				t = at
			}
			out = append(out, Violation{Invariant: v.Invariant, T: t, CPU: -1,
				Message: fmt.Sprintf("ring buffer of %s: %s", l.Name, v.Detail)})
		}
	}
	for i, ss := range p.sessions { // perftool.RegisterSessionInvariant's
		for _, inv := range perftool.SessionInvariants() {
			for _, msg := range inv.Check(ss) {
				out = append(out, Violation{Invariant: inv.Name, T: now, CPU: -1,
					Message: fmt.Sprintf("session %d %s: %s", i+1, p.names[i], msg)})
			}
		}
	}
	p.k.ReleaseBufferLogs() // judged: the next run reuses their memory
	return out
}

// parseRecord parses a record line as the run's perf record does
// (perftool.Parse, with the machine's CPUs and the perf-version knob),
// reporting a refusal at the word it is about, and notes what perf prints
// and carries on after (Record.Messages) at theirs.
func (r *Run) parseRecord(rec *scenarios.Record, toolKnobs map[string]string) (*perftool.Record, error) {
	ropts := perftool.DefaultOptions()
	ropts.NrCPUs = len(r.M.CPUs)
	ropts.Tool = perftool.ToolOf(toolKnobs[perftool.PerfVersionKnob.Name])
	// user unprivileged: perf cannot read tracefs, takes the unprivileged
	// AUX default, and falls back to :u when the kernel refuses (session)
	ropts.Privileged = !r.File.Unprivileged()
	ropts.PMUs = map[string]bool{} // the scenario's pmu lines: the AUX PMUs the machine has
	for _, line := range r.File.PMUs {
		ropts.PMUs[line.Name] = true
	}
	argv := rec.Argv()
	at := func(option string) scenarios.Pos {
		if i, off, ok := (&perftool.Error{Option: option}).Locate(argv); ok {
			return rec.Args[i].PosAt(off)
		}
		return rec.Pos
	}
	var parsed *perftool.Record
	var err error
	if c, ok := r.knobSet.records.Load(rec); ok && c.(*parsedRecord).nr == ropts.NrCPUs && c.(*parsedRecord).tool == ropts.Tool && slices.Equal(c.(*parsedRecord).argv, argv) {
		parsed = c.(*parsedRecord).rec.Clone()
	} else if parsed, err = perftool.Parse(argv, ropts); err == nil {
		r.knobSet.records.Store(rec, &parsedRecord{argv: argv, nr: ropts.NrCPUs, tool: ropts.Tool, rec: parsed.Clone()})
	}
	if err != nil {
		pos := rec.Pos
		var pe *perftool.Error
		if errors.As(err, &pe) {
			if i, off, ok := pe.Locate(argv); ok {
				pos = rec.Args[i].PosAt(off)
			} else if pe.Option == "<command>" {
				last := rec.Args[len(rec.Args)-1]
				pos = last.PosAt(len(last.Text))
			}
		}
		return nil, r.File.Errorf(pos, "%v", err)
	}
	for _, m := range parsed.Messages {
		pos := rec.Pos
		if m.Option != "" {
			pos = at(m.Option)
		}
		if m.Note {
			r.messages = append(r.messages, r.File.Errorf(pos, "note: %s", m.Text).Error())
		} else {
			r.messages = append(r.messages, r.File.Errorf(pos, "perf record: %s", m.Text).Error())
		}
	}
	return parsed, nil
}
