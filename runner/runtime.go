package runner

import (
	"errors"
	"io"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// DefaultLimit is the virtual time a run may last when Options.Limit is 0. A run
// normally ends earlier, when every task has exited and nothing is left to do.
const DefaultLimit = 10 * sim.Second

// Options says how to run a checked scenario.
type Options struct {
	// Knobs overrides kernel or tool knobs by name (the file's kernel and tool
	// lines give the rest, then the defaults).
	Knobs map[string]string
	// Chooser makes every decision; nil is the quiet schedule (all zeros).
	Chooser sim.Chooser
	// Limit ends the run at this virtual time (0: DefaultLimit).
	Limit sim.Time
	// KeepTrace keeps the trace records (for --timeline, the trace text and the
	// shrunk schedule's lines); invariants see every record either way.
	KeepTrace bool
	// StopAtViolation ends the run at the first failing invariant (explore).
	StopAtViolation bool
	// Perf is the perf backend (nil: DefaultPerf).
	Perf PerfBackend
}

// Run is one run of a scenario: the machine, the scheduler, the tasks, the perf
// state, and what the oracles saw. Build makes it, Execute runs it once.
type Run struct {
	File  *scenarios.File
	Knobs map[string]string // the value of every kernel and tool knob
	M     *cpu.Machine
	S     *sched.Sched
	// Tasks maps the file's task names to their tasks.
	Tasks map[string]*sched.Task
	Perf  PerfRun
	// Counters that built-in verbs keep (nmi-work.queued, ...).
	Counters map[string]int64

	opts       Options
	limit      sim.Time
	log        *decisionLog
	verbs      map[string]Verb
	invariants []InvariantSpec
	judged     map[string]bool // invariants some applicable outcome names
	violations []Violation
	perInv     map[string]int
	failedInv  bool
	obs        *traceCounters
	samples    map[*scenarios.Outcome]sample
	forces     *forceState
	end        sim.Time
	oops       *sim.Oops
	ran        bool
}

type sample struct {
	taken bool
	ok    bool
	err   error
}

// Build makes a run of f, which must have passed Parse and Check. A scenario the
// runtime cannot build (a knob value, a record line perf refuses) is an error;
// errors at a place in the file are *Error.
func Build(f *scenarios.File, opts Options) (r *Run, err error) {
	perf := backend(opts.Perf)
	knobs, err := resolveKnobs(f, opts.Knobs, perf)
	if err != nil {
		return nil, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	r = &Run{File: f, Knobs: knobs, opts: opts, limit: limit, Tasks: map[string]*sched.Task{},
		Counters: map[string]int64{}, perInv: map[string]int{}, samples: map[*scenarios.Outcome]sample{}}
	r.log = &decisionLog{inner: opts.Chooser}
	if r.log.inner == nil {
		r.log.inner = sim.NewReplay(nil)
	}
	r.M = cpu.NewMachine(cpu.Config{CPUs: f.NumCPUs()}, r.log)
	r.log.eng = r.M.Eng
	m := r.M // r is nil when an error is returned
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	r.M.Trace().Keep = opts.KeepTrace
	cfg := sched.DefaultConfig()
	if err := applyKnobs(knobs, &cfg); err != nil {
		return nil, err
	}
	r.S = sched.New(r.M, cfg)
	r.judged = r.judgedInvariants()
	r.installInvariants(perf)
	for _, t := range f.Tasks {
		r.Tasks[t.Name] = r.S.Spawn(t.Name, taskMask(t), taskOps(t.Body)...)
	}
	if r.Perf, err = perf.Start(r); err != nil {
		return nil, err
	}
	r.verbs = allVerbs(perf)
	if err := r.installActions(); err != nil {
		return nil, err
	}
	r.installForces()
	r.installSampler()
	return r, nil
}

// Execute runs r to the end (every task exited and nothing left to do), the run
// limit, the first violation (with StopAtViolation) or a model oops, then runs the
// end-of-run checks. A run executes once.
func (r *Run) Execute() error {
	if r.ran {
		return errors.New("scenarios: a run executes once")
	}
	r.ran = true
	defer r.M.Close()
	err := r.M.Run(r.limit)
	r.end = r.M.Now()
	if err != nil {
		var o *sim.Oops
		if !errors.As(err, &o) {
			return err
		}
		r.oops = o
	}
	if r.oops == nil && !r.stopped() {
		for _, v := range r.Perf.Finish() {
			r.addViolation(v)
		}
	}
	return nil
}

// stopped reports whether the run ended at a violation.
func (r *Run) stopped() bool { return r.opts.StopAtViolation && r.failedInv }

// Decisions returns the decision list of the run so far: its replay token.
func (r *Run) Decisions() []int { return r.log.all }

// Trace returns the run's trace.
func (r *Run) Trace() *sim.Trace { return r.M.Trace() }

// Timeline renders the per-CPU timeline of the run (see sched.Timeline),
// followed by the rows of a perf backend that draws its own on the same time
// scale (PMUPerf: the PMUs with a Timeline, such as cs_etm's periods).
func (r *Run) Timeline(width int) string {
	out := r.S.Timeline(width)
	if tl, ok := r.Perf.(Timeliner); ok {
		end := r.M.Now() // sched.Timeline's end
		for _, t := range r.S.Tasks {
			end = max(end, t.Exited)
		}
		out += tl.Timeline(end, width)
	}
	return out
}

// Script writes the perf script text of the run's sessions.
func (r *Run) Script(w io.Writer) error { return r.Perf.Script(w) }

// Violations returns the invariant violations seen.
func (r *Run) Violations() []Violation { return r.violations }

// Oops returns the model crash that ended the run, if any.
func (r *Run) Oops() *sim.Oops { return r.oops }

// End returns the virtual time the run ended at.
func (r *Run) End() sim.Time { return r.end }

// note adds a trace record from the runtime.
func (r *Run) note(c int, name, detail string) {
	if tr := r.M.Trace(); tr.On() {
		tr.Add(sim.Record{T: r.M.Now(), CPU: c, Kind: sim.KNote, Name: name, Detail: detail})
	}
}
