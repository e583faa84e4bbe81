package runner

import (
	"slices"
	"sort"
	"strings"

	"perfsim/faultinject"
	"perfsim/scenarios"
)

// knownSyscalls are the system calls a task program may make: every x86_64
// syscall (uapi.Syscalls) by its table name and, where it differs, its entry
// point's (uname and newuname). Any of them runs the scheduler's syscall
// path; the perf backend adds bodies and tracepoints (registry_syscalls.go).
var knownSyscalls = tableSyscallNames()

// schedStepPoints are the step point labels of the cpu and sched models.
// task_work_run:NAME is one label per task work name.
var schedStepPoints = []string{
	"__schedule:irqs-off", "context_switch", "exit_to_user_mode_loop",
	"syscall_enter_from_user_mode", "task_work_run:nmi-work", "exc_page_fault",
	// sched/fork.go and sched/wake.go
	"copy_process:sched_fork", "copy_process:perf_event_init_task", "copy_process:fatal_signal_pending", "kernel_clone:wake_up_new_task",
	"do_wait:schedule", "ttwu_queue_wakelist", "sched_ttwu_pending",
	"pipe_write:wait", "pipe_write:copied", "pipe_read:wait", "futex_wait:queue",
	// sched/hotplug.go
	"sched_cpu_deactivate", "sched_cpu_wait_empty", "bringup_cpu",
	"de_thread:wait", // sched/exec_dethread.go: an exec waiting for the other threads to exit
	// sched/wake.go and sched/placement.go: CFS placement's migrations
	"try_to_wake_up:set_task_cpu", "sched_exec:stop_one_cpu", "sched_balance_newidle",
}

// SimRegistry is the simulator's Registry for one file: the names of the cpu and
// sched models, the built-in verbs and invariants, the file's tasks and
// sessions, and everything the perf backend lists.
type SimRegistry struct {
	perf     PerfBackend
	tasks    map[string]bool
	vars     map[string]map[string]bool // the names each task binds (observe_vars.go)
	sessions []string
	obs      map[string]scenarios.Type
	verbs    map[string]Verb
}

// NewRegistry returns the registry to Check f against (perf nil: DefaultPerf).
func NewRegistry(f *scenarios.File, perf PerfBackend) *SimRegistry {
	perf = backend(perf)
	r := &SimRegistry{perf: perf, tasks: map[string]bool{}, obs: map[string]scenarios.Type{}, verbs: allVerbs(perf)}
	if f != nil {
		for _, t := range f.Tasks {
			r.tasks[t.Name] = true
		}
		r.vars = taskVars(f)
		for _, rec := range f.Records {
			if rec.Name != nil {
				r.sessions = append(r.sessions, rec.Name.Name)
			}
		}
	}
	for n, t := range builtinObservables {
		r.obs[n] = t
	}
	for n, t := range perf.Observables() {
		r.obs[n] = t
	}
	return r
}

func knobValues(k []string) []string { return append([]string(nil), k...) }

// Knob implements Registry.
func (r *SimRegistry) Knob(kind scenarios.Kind, name string) ([]string, bool) {
	list := KernelKnobSpecs(r.perf)
	if kind == scenarios.ToolKnobs {
		list = ToolKnobSpecs(r.perf)
	}
	k, ok := findKnob(list, name)
	if !ok {
		return nil, false
	}
	return knobValues(k.Values), true
}

// PMU implements Registry.
func (r *SimRegistry) PMU(name string) (map[string][]string, bool) {
	a, ok := r.perf.PMUs()[name]
	return a, ok
}

// Action implements Registry.
func (r *SimRegistry) Action(verb string) (scenarios.ActionSpec, bool) {
	v, ok := r.verbs[verb]
	return v.Spec, ok
}

// Observable implements Registry.
func (r *SimRegistry) Observable(name string) (scenarios.Type, bool) {
	// Any event index matches [EVENT] here; the run checks it names one of
	// the session's events (checkEventIndexes), once perf parsed its -e.
	name = scenarios.EventPattern(name)
	if t, ok := r.obs[name]; ok {
		return t, true
	}
	if t, ok := r.obs[scenarios.CPUPattern(name)]; ok {
		return t, true
	}
	if inv, ok := strings.CutPrefix(name, violationsPrefix); ok && r.Has(scenarios.Invariants, inv) {
		return scenarios.IntType, true
	}
	if rest, ok := strings.CutPrefix(name, "task."); ok {
		if task, v, ok := cutVar(rest); ok && r.vars[task][v] {
			return scenarios.IntType, true
		}
		if i := strings.LastIndexByte(rest, '.'); i > 0 && r.tasks[rest[:i]] {
			t, ok := taskFields[rest[i+1:]]
			return t, ok
		}
	}
	for _, s := range r.sessions {
		if rest, ok := strings.CutPrefix(name, s+"."); ok {
			if t, ok := r.obs["SESSION."+rest]; ok {
				return t, true
			}
		}
	}
	return 0, false
}

// Has implements Registry.
func (r *SimRegistry) Has(kind scenarios.Kind, name string) bool {
	switch kind {
	case scenarios.Invariants:
		for _, inv := range AllInvariants(r.perf) {
			if inv.Name == name {
				return true
			}
		}
	case scenarios.StepPoints:
		return slices.Contains(schedStepPoints, name) || strings.HasPrefix(name, "task_work_run:") ||
			slices.Contains(r.perf.StepPoints(), name)
	case scenarios.Syscalls:
		return slices.Contains(knownSyscalls, name) || slices.Contains(r.perf.Syscalls(), name)
	case scenarios.Faults:
		return faultinject.Known(name)
	}
	return false
}

// Names implements Registry.
func (r *SimRegistry) Names(kind scenarios.Kind) []string {
	var out []string
	switch kind {
	case scenarios.KernelKnobs, scenarios.ToolKnobs:
		list := KernelKnobSpecs(r.perf)
		if kind == scenarios.ToolKnobs {
			list = ToolKnobSpecs(r.perf)
		}
		for _, k := range list {
			out = append(out, k.Name)
		}
	case scenarios.PMUs:
		for n := range r.perf.PMUs() {
			out = append(out, n)
		}
	case scenarios.Verbs:
		for n := range r.verbs {
			out = append(out, n)
		}
	case scenarios.Observables:
		for n := range r.obs {
			out = append(out, n)
		}
		for t := range r.tasks {
			for f := range taskFields {
				out = append(out, "task."+t+"."+f)
			}
			for v := range r.vars[t] {
				out = append(out, "task."+t+varInfix+v)
			}
		}
	case scenarios.Invariants:
		for _, inv := range AllInvariants(r.perf) {
			out = append(out, inv.Name)
		}
	case scenarios.StepPoints:
		out = append(append(out, schedStepPoints...), r.perf.StepPoints()...)
	case scenarios.Syscalls:
		out = append(append(out, knownSyscalls...), r.perf.Syscalls()...)
	case scenarios.Faults:
		out = append(append(out, faultinject.SiteNames()...), faultinject.AnySite)
	}
	sort.Strings(out)
	return slices.Compact(out)
}
