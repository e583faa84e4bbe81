package scenarios

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/scenarios/record"
	"perfsim/sched"
	"perfsim/sim"
)

// PMUPerf is the perf backend built from the pmu kernel core (pmu.NewKernel)
// and one perf record tool process per record line (record.NewSession).
//
// Observables: the kernel's names as pmu.ObservableNames lists them, and the
// sessions' (record.SessionObservableNames: perf.samples, ...), which for a
// named session are also SESSION.perf.samples; perf.X alone sums the sessions.
// Verbs: snapshot SESSION (SIGUSR2 to perf) and stop SESSION (SIGINT).
//
// Not wired yet: forced and timed NMIs run no perf handler (the pmu package
// has no exported perf_event_nmi_handler), and the ring buffer invariants
// (rb.Check) are not run at the end, as the pmu kernel does not export its log.
type PMUPerf struct{}

func (PMUPerf) KernelKnobs() []sim.KnobSpec { return pmu.KnobSpecs }
func (PMUPerf) ToolKnobs() []sim.KnobSpec   { return nil }
func (PMUPerf) Invariants() []InvariantSpec { return nil }
func (PMUPerf) PMUs() map[string]map[string][]string {
	return nil
}

func (PMUPerf) Observables() map[string]Type {
	out := map[string]Type{}
	for _, n := range pmu.ObservableNames() {
		out[n] = IntType
	}
	for _, n := range record.SessionObservableNames() {
		out[n] = IntType
		out["SESSION."+n] = IntType
	}
	return out
}

func (PMUPerf) Verbs() map[string]Verb {
	session := func(do func(ss *record.Session)) func(a *ActionCtx) {
		return func(a *ActionCtx) {
			if p, ok := a.Run.Perf.(*pmuRun); ok {
				if ss := p.byName[a.Arg(0)]; ss != nil {
					do(ss)
				}
			}
		}
	}
	return map[string]Verb{
		"snapshot": {Spec: ActionSpec{Args: []ArgKind{ArgSession}, MinArgs: 1},
			Help: "kill -USR2 $PERFPID: perf takes an AUX snapshot (with -S)", Do: session((*record.Session).Snapshot)},
		"stop": {Spec: ActionSpec{Args: []ArgKind{ArgSession}, MinArgs: 1},
			Help: "kill -INT $PERFPID: perf stops recording", Do: session((*record.Session).Stop)},
	}
}

func (PMUPerf) StepPoints() []string {
	return []string{
		"__perf_event_disable", "__perf_event_overflow:handler", "__perf_install_in_context",
		"__perf_remove_from_context", "ctx_sched_in", "ctx_sched_out", "event_function_call:ctx-locked",
		"event_function_call:retry", "event_sched_in", "event_sched_out", "event_sched_out:del",
		"perf_event_context_sched_out:disabled", "perf_event_enable_on_exec", "perf_event_exit_task_context",
		"perf_event_task_sched_in", "perf_event_task_sched_out", "perf_ioctl:PAUSE_OUTPUT:checked",
		"perf_ioctl:PAUSE_OUTPUT:rb-read", "perf_mmap:mmap_mutex", "perf_mmap_close:detached",
		"perf_mmap_close:mmap_count-dec", "perf_poll:wait", "smp_call_function_single:wait",
	}
}

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

// Start builds the kernel and starts one perf session per record line.
func (PMUPerf) Start(r *Run) (PerfRun, error) {
	o := pmu.DefaultOptions(len(r.M.CPUs))
	o.Tracepoints = record.KernelTracepoints()
	for _, k := range pmu.KnobSpecs {
		if _, err := pmu.ApplyKnob(&o.Knobs, k.Name, r.Knobs[k.Name]); err != nil {
			return nil, err
		}
	}
	p := &pmuRun{k: pmu.NewKernel(r.S, o), byName: map[string]*record.Session{}}
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
		ss, err := record.NewSession(parsed, p.k, r.S, workload, record.DefaultSessionOptions())
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

func (p *pmuRun) NMI(c *cpu.CPU) {}

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

func (p *pmuRun) Finish() []Violation { return nil }
