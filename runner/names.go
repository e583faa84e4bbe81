package runner

import (
	"fmt"
	"perfsim/faultinject"
	"sort"
	"strings"

	"perfsim/pmu"
	"perfsim/scenarios"
)

// What a scenario file may name, with what each name means: `simrun names`
// prints it, so a scenario writer finds the step point labels, observables,
// actions and invariants without reading the models.

// builtinObservableHelp is what the runtime's own observables mean.
var builtinObservableHelp = map[string]string{
	"cpuN.nmis":        "NMIs taken on the CPU",
	"cpuN.irqs":        "irqs taken on the CPU",
	"cpuN.steps":       "step points the CPU passed",
	"cpuN.busy":        "time the CPU spent executing (ns)",
	"cpuN.switches":    "context switches on the CPU",
	"sched.switches":   "context switches on every CPU",
	"sched.migrations": "task moves between run queues",
	"sched.all-exited": "every task has exited",
	"time.now":         "the virtual time (ns)",
	"kernel.oops":      "the run ended in a model oops (NULL dereference, refcount underflow, ...)",
	"trace.choices":    "disturbing choices taken at step points",
	"nmi-work.queued":  "task works queued by the task-work-nmi action",
	"nmi-work.run":     "... and run by their task",
}

// taskFieldHelp is what task.NAME.FIELD means.
var taskFieldHelp = map[string]string{
	"computed":       "user compute time done (ns)",
	"ran":            "time executed in its own context (ns)",
	"exited":         "the task has exited",
	"exit-time":      "when it exited (ns; 0 while alive)",
	"cpu":            "the CPU it runs on, or last ran on",
	"migrations":     "moves between run queues",
	"kernel-entries": "syscalls made",
	"pending-works":  "task works queued and not yet run",
	"signals":        "signals it took (get_signal() dequeued them and the handler ran): who got the SIGIO or SIGTRAP",
	"minor-faults":   "page faults that found or allocated the page (min_flt)",
	"major-faults":   "page faults that read a file page (maj_flt)",
	"segfaulted":     "a bad access (no VMA, or one that forbids it) killed it with SIGSEGV",
	"timer-slack":    "its timer_slack_ns (what prctl(PR_GET_TIMERSLACK) returns): how late its nanosleep may wake",
}

// argSyntax is how an action's argument is written in its synopsis.
var argSyntax = map[scenarios.ArgKind]string{
	scenarios.ArgSession: "SESSION", scenarios.ArgCPU: "cpuN", scenarios.ArgTask: "TASK", scenarios.ArgTarget: "SESSION|TASK|cpuN",
	scenarios.ArgInt: "N", scenarios.ArgSize: "SIZE", scenarios.ArgDuration: "DURATION", scenarios.ArgWord: "WORD",
}

// NameEntry is a name a scenario may use and what it means.
type NameEntry struct {
	Name   string
	Detail string
}

// Describe lists the names of kind that any scenario may use under the perf
// backend perf (nil: DefaultPerf), sorted, each with its meaning: an action's
// arguments and help, an observable's type and meaning (cpuN, SESSION and
// task.TASK stand for every CPU, session and task), an invariant's statement,
// a PMU's attributes.
func Describe(perf PerfBackend, kind scenarios.Kind) []NameEntry {
	perf = backend(perf)
	var out []NameEntry
	switch kind {
	case scenarios.Verbs:
		for name, v := range allVerbs(perf) {
			var args []string
			for i, a := range v.Spec.Args {
				s := argSyntax[a]
				if i >= v.Spec.MinArgs {
					s = "[" + s + "]"
				}
				args = append(args, s)
			}
			out = append(out, NameEntry{name + " " + strings.Join(args, " "), v.Help})
		}
		out = append(out, perfOpNames...)
	case scenarios.Observables:
		obs := map[string]scenarios.Type{}
		for n, t := range builtinObservables {
			obs[n] = t
		}
		for n, t := range perf.Observables() {
			obs[n] = t
		}
		for n, t := range obs {
			help := builtinObservableHelp[n]
			if help == "" {
				help = perf.ObservableHelp(n)
			}
			out = append(out, NameEntry{n, describeType(t, help)})
		}
		for f, t := range taskFields {
			out = append(out, NameEntry{"task.TASK." + f, describeType(t, taskFieldHelp[f])})
		}
		out = append(out, NameEntry{"task.TASK.var.NAME", describeType(scenarios.IntType,
			"what the task's program bound with \"as NAME\" (a syscall's return, -errno when it failed; 0 until bound)")})
		out = append(out, NameEntry{violationsPrefix + "INVARIANT", describeType(scenarios.IntType,
			"how many times INVARIANT was violated so far (an outcome on it leaves the violation failing the run)")})
	case scenarios.Invariants:
		for _, inv := range AllInvariants(perf) {
			out = append(out, NameEntry{inv.Name, inv.Says})
		}
	case scenarios.StepPoints:
		for _, n := range NewRegistry(nil, perf).Names(scenarios.StepPoints) {
			out = append(out, NameEntry{n, pmu.StepHelp(n)})
		}
		out = append(out, NameEntry{"task_work_run:NAME", "one label per task work name"})
	case scenarios.Syscalls:
		out = append(out, describeSyscalls()...)
	case scenarios.Statements:
		for _, st := range scenarios.TaskStatements {
			out = append(out, NameEntry{st.Syntax, st.Help})
		}
	case scenarios.Tracepoints:
		if tl, ok := perf.(interface{ Tracepoints() []NameEntry }); ok {
			out = append(out, tl.Tracepoints()...)
		}
	case scenarios.Events:
		out = append(out, describeEvents()...)
	case scenarios.Faults:
		for _, site := range faultinject.Sites {
			out = append(out, NameEntry{site.Name, fmt.Sprintf("%s; %s; fails with %s", site.Help, site.Where, site.Err)})
		}
		out = append(out, NameEntry{faultinject.AnySite, "every site: fail any in TASK occurrence N fails the task's N-th allocation of any site (fail-nth over the model's sites)"})
	case scenarios.PMUs:
		for name, attrs := range perf.PMUs() {
			var as []string
			for a, vals := range attrs {
				if len(vals) > 0 {
					a += "=" + strings.Join(vals, "|")
				}
				as = append(as, a)
			}
			sort.Strings(as)
			out = append(out, NameEntry{name, strings.Join(as, " ")})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func describeType(t scenarios.Type, help string) string {
	if help == "" {
		return fmt.Sprintf("(%s)", t)
	}
	return fmt.Sprintf("(%s) %s", t, help)
}
