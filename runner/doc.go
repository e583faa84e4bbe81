// Package runner builds and runs a checked scenario: the machine and its
// CPUs, the scheduler and the tasks, the perf backend (the pmu kernel core and
// one perftool session per record line), the timed actions and forced
// interleavings, the oracles (invariants) and, at the end, the outcomes and
// the Result.
//
//	f, err := runner.Open("rb-data-head-backwards") // a .sim path or a built-in
//	_, res, err := runner.RunOnce(f, runner.Options{Knobs: map[string]string{"rb-put-handle": "pre-1b038c6e05ff"}})
//
// Files: runtime.go (Build, Execute, Options, Run), runtime_tasks.go,
// runtime_actions.go, runtime_forces.go (nmi/preempt/migrate at a label),
// runtime_knobs.go, runtime_perf*.go (the PerfBackend interface and the pmu
// backend), runtime_observe.go and invariants.go (the oracles),
// outcome*.go (evaluation and the Result), registry_builtin.go and names.go
// (what a scenario may name, for the checker and simrun names), load.go,
// limits.go (the limits of a run and LimitError), perf_data.go (perf.data
// files, spooled with Options.PerfDataDir).
//
// A run stops at its limits (Options.Limit, MaxSteps, MaxWall, MaxMemory;
// the defaults in limits.go) with a *LimitError, which is not a scenario
// error and has no Result; Validate does everything Build does to refuse a
// scenario, without running it (simrun check).
//
// Searching many schedules is package explore's job; the language is package
// scenarios'.
package runner
