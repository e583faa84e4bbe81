package runner

import (
	"io"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sim"
)

// PerfBackend is the perf side of the simulator: the pmu kernel core
// (kernel/events/core.c and its ring buffers) and the perf record tool sessions
// started from the file's record lines. The runtime knows perf only through this
// interface, so the pmu and session packages plug in here (see NoPerf and
// DefaultPerf). Everything it lists joins the Registry the checker uses.
type PerfBackend interface {
	// KernelKnobs and ToolKnobs list the knobs of the kernel core and the tool.
	KernelKnobs() []sim.KnobSpec
	ToolKnobs() []sim.KnobSpec
	// Observables maps observable names to their types; a name may contain the
	// segment cpuN (cpuN.pmi) or SESSION (SESSION.samples), which match every CPU
	// and every session name of the file.
	Observables() map[string]scenarios.Type
	// ObservableHelp returns the one-line meaning of one of them, or "".
	ObservableHelp(name string) string
	// Invariants lists the invariants the backend checks (ring buffer ones, ...).
	Invariants() []InvariantSpec
	// Verbs are the actions of "at TIME VERB ARGS" the backend carries out
	// (snapshot, read, pause-output, ...).
	Verbs() map[string]Verb
	// StepPoints and Syscalls list the step point labels and the system calls the
	// kernel model knows (for the checker).
	StepPoints() []string
	Syscalls() []string
	// PMUs lists the PMUs a "pmu NAME ..." line may name, with their attributes.
	PMUs() map[string]map[string][]string
	// Start builds the perf state of one run. It is called once the machine, the
	// scheduler and every task exist and before anything runs; r.Knobs holds the
	// value of every knob. A record line perf refuses is an error made with
	// r.File.Errorf at the offending word.
	Start(r *Run) (PerfRun, error)
}

// PerfRun is the perf state of one run.
type PerfRun interface {
	// Observe returns the value of an observable the backend listed.
	Observe(name string) (int64, bool)
	// NMI is the NMI handler of forced and timed NMIs: perf_event_nmi_handler().
	// forced: a forced interleaving's "nmi cpuN at LABEL", which stands for the
	// PMI of a counter overflowing right there.
	NMI(c *cpu.CPU, forced bool)
	// Script writes what the sessions' readers got, as perf script prints it.
	Script(w io.Writer) error
	// Finish runs at the end of the run (drain the readers, then the end-of-run
	// checks such as rb.Check) and returns the invariant violations found.
	Finish() []Violation
}

// DefaultPerf is the backend runs, the registry and simrun use when no other is
// given: the pmu kernel core with perf record sessions (PMUPerf). NoPerf runs
// the cpu and sched models alone.
var DefaultPerf PerfBackend = PMUPerf{}

// NoPerf is the backend without perf: no knobs, no sessions. A file with a
// record line is an error under it.
type NoPerf struct{}

func (NoPerf) KernelKnobs() []sim.KnobSpec            { return nil }
func (NoPerf) ToolKnobs() []sim.KnobSpec              { return nil }
func (NoPerf) Observables() map[string]scenarios.Type { return nil }
func (NoPerf) ObservableHelp(string) string           { return "" }
func (NoPerf) Invariants() []InvariantSpec            { return nil }
func (NoPerf) Verbs() map[string]Verb                 { return nil }
func (NoPerf) StepPoints() []string                   { return nil }
func (NoPerf) Syscalls() []string                     { return nil }
func (NoPerf) PMUs() map[string]map[string][]string   { return nil }
func (NoPerf) Start(r *Run) (PerfRun, error) {
	if len(r.File.Records) > 0 {
		rec := r.File.Records[0]
		return nil, r.File.Errorf(rec.Pos, "this simulator has no perf sessions yet (the pmu kernel and perf record are not built in)")
	}
	if len(r.File.PMUs) > 0 {
		return nil, r.File.Errorf(r.File.PMUs[0].Pos, "this simulator has no PMU models yet")
	}
	return noPerfRun{}, nil
}

type noPerfRun struct{}

func (noPerfRun) Observe(string) (int64, bool) { return 0, false }
func (noPerfRun) NMI(*cpu.CPU, bool)           {}
func (noPerfRun) Script(io.Writer) error       { return nil }
func (noPerfRun) Finish() []Violation          { return nil }
