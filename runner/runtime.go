package runner

import (
	"errors"
	"fmt"
	"io"
	"time"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// Options says how to run a checked scenario.
type Options struct {
	// Knobs overrides kernel or tool knobs by name (the file's kernel and tool
	// lines give the rest, then the defaults).
	Knobs map[string]string
	// Chooser makes every decision; nil is the quiet schedule (all zeros).
	Chooser sim.Chooser
	// Limit ends the run at this virtual time (0: DefaultLimit; negative:
	// MaxTimeLimit). A run that reaches it with tasks still to finish stops
	// with a *LimitError.
	Limit sim.Time
	// MaxSteps, MaxWall and MaxMemory bound the engine steps, the wall-clock
	// time and the heap (bytes) of the run (0: DefaultMaxSteps,
	// DefaultMaxWall, DefaultMaxMemory; negative: no limit). A run that
	// reaches one stops with a *LimitError (see sim.Limits).
	MaxSteps  int64
	MaxWall   time.Duration
	MaxMemory int64
	// KeepTrace keeps the trace records (for --timeline, the trace text and the
	// shrunk schedule's lines); invariants see every record either way.
	KeepTrace bool
	// StopAtViolation ends the run at the first failing invariant (explore).
	StopAtViolation bool
	// Perf is the perf backend (nil: DefaultPerf).
	Perf PerfBackend
	// PerfDataDir, when set, is where WritePerfData will write the sessions'
	// perf.data: each session spools its data section there as it records
	// it, so a perf.data of any size is written whole (without it, a data
	// section over PerfDataKeep is not kept and WritePerfData refuses it).
	PerfDataDir string
	// PerfDataKeep bounds the bytes of perf.data the sessions of the run keep
	// in memory (0: perftool.DefaultKeep; negative: no bound). Past it the
	// records are counted, not kept: the observables stay right, perf script
	// has nothing to print (see perftool.PerfData.Keep).
	PerfDataKeep int64
	// OutcomesOnly: Result judges the outcomes and leaves out what explore
	// does not read, the map of every observable and the replay token
	// (Result.Observables nil, Token ""): only the observables the outcomes
	// name are computed.
	OutcomesOnly bool
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
	knobSet    *knobSet // Knobs and what is derived from them alone (build_cache.go)
	limit      sim.Time
	hungDue    sim.Time // the timed hung-task check's next look (hungtask.go)
	hungTimed  bool     // a watchdog (the timed hung-task check, or a soft lockup) reported and ended the run
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
	fds        *fdState // the perf fds of the tasks' programs (runtime_perfops.go)
	perfOps    map[scenarios.Op]func(*sched.Task)
	end        sim.Time
	oops       *sim.Oops
	limitErr   *LimitError
	messages   []string // what perf printed at the start and carried on after (Result.Messages)
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
	ks, err := knobSetFor(f, opts.Knobs, perf)
	if err != nil {
		return nil, err
	}
	knobs := ks.knobs
	lim := resolveLimits(opts)
	if len(f.Tasks) == 0 && len(f.Records) == 0 {
		// Nothing would run: the run would end at once and every outcome be
		// judged on an idle machine. (A perf record -a line alone runs.)
		return nil, f.Errorf(scenarios.Pos{Line: 1, Col: 1},
			"nothing to run: the file has no task and no record line (declare a task: task NAME, its program indented under it)")
	}
	if err := checkTimes(f, lim.time); err != nil {
		return nil, err
	}
	r = &Run{File: f, Knobs: knobs, knobSet: ks, opts: opts, limit: lim.time, Tasks: map[string]*sched.Task{},
		Counters: map[string]int64{}, perInv: map[string]int{}, samples: map[*scenarios.Outcome]sample{}}
	r.log = &decisionLog{inner: opts.Chooser}
	if r.log.inner == nil {
		r.log.inner = sim.NewReplay(nil)
	}
	r.log.settler, _ = r.log.inner.(sim.Settler)
	r.M = cpu.NewMachine(cpu.Config{CPUs: f.NumCPUs()}, r.log)
	r.M.Eng.SetLimits(lim.engine)
	r.log.eng = r.M.Eng
	m := r.M // r is nil when an error is returned
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	r.M.Trace().Keep = opts.KeepTrace
	cfg, err := ks.schedConfig()
	if err != nil {
		return nil, err
	}
	r.S = sched.New(r.M, cfg)
	r.judged = ks.judgedInvariants(r)
	r.installInvariants(perf)
	perfOps, err := r.perfOpCalls()
	if err != nil {
		return nil, err
	}
	if len(perfOps) > 0 {
		r.fdState() // made before the run, not by the first op's user code (footprint_perfops.go)
	}
	for _, t := range f.Tasks {
		r.Tasks[t.Name] = r.S.Spawn(t.Name, taskMask(t), taskOps(f, t.Body, r.M.Eng.Tick, perfOps)...)
	}
	r.buildFaults()
	if err := r.buildCgroups(); err != nil {
		return nil, err
	}
	if r.Perf, err = perf.Start(r); err != nil {
		return nil, err
	}
	if err := r.checkEventIndexes(); err != nil {
		return nil, err
	}
	r.checkAddrFilters() // SET_FILTER strings the kernel will refuse: a note for check and run
	r.verbs = allVerbs(perf)
	if err := r.installActions(); err != nil {
		return nil, err
	}
	if err := r.installForces(); err != nil {
		return nil, err
	}
	r.installSampler()
	return r, nil
}

// Execute runs r to the end (every task exited and nothing left to do), the
// first violation (with StopAtViolation) or a model oops, then runs the
// end-of-run checks. A run that reaches one of its limits (the virtual time
// with a task still to finish, the steps, the wall clock, the heap) stops
// there and returns a *LimitError: it has no Result. A run executes once.
func (r *Run) Execute() error {
	if r.ran {
		return errors.New("scenarios: a run executes once")
	}
	r.ran = true
	defer r.M.Close()
	err := r.runWatched()
	r.end = r.M.Now()
	if err != nil {
		var le *sim.LimitError
		if errors.As(err, &le) {
			r.limitErr = r.limitError(le)
			return r.limitErr
		}
		var se *sim.StrategyError
		if errors.As(err, &se) { // no verdict: the Chooser's bug, named with the decisions it made
			return fmt.Errorf("%w; the decisions before it: replay token %s", err, r.log.token())
		}
		var o *sim.Oops
		if !errors.As(err, &o) {
			return err
		}
		r.oops = o
	}
	if r.hungTimed {
		return nil // a watchdog ended the run (hungtask.go): judged as it is
	}
	if r.oops == nil && !r.stopped() && !r.S.AllExited() && r.M.Eng.Pending() {
		r.limitErr = r.timeLimitError()
		return r.limitErr
	}
	if r.oops == nil && !r.stopped() && !r.S.AllExited() && len(r.S.Blocked()) > 0 && !r.hungTasks() {
		r.limitErr = r.hangError() // nothing left to run, and tasks wait forever
		return r.limitErr
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
func (r *Run) Decisions() []int { return r.log.dense() }

// NumDecisions is the number of decisions the run made (len(Decisions())).
func (r *Run) NumDecisions() int { return r.log.n }

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
