package runner

import (
	"fmt"
	"sort"
	"strings"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// Verb is an action of "at TIME VERB ARGS". Its handler runs in a proper kernel
// context: the action's timer fires on a CPU (the first CPU argument, else cpu0)
// and raises an irq, or an NMI when NMI is set, whose handler calls Do. A verb
// carried out by the perf tool process (snapshot: SIGUSR2 to perf) sends that
// process a signal from Do, so the work happens in the tool's own context.
type Verb struct {
	Spec scenarios.ActionSpec
	Help string
	NMI  bool
	// BootCPU fires the action's timer on cpu0 whatever its CPU argument
	// (the CPU hotplug verbs: the CPU named may be the one going down).
	BootCPU bool
	Do      func(a *ActionCtx)
}

// ActionCtx is what a verb's handler gets.
type ActionCtx struct {
	Run    *Run
	CPU    *cpu.CPU // where the handler runs
	Action *scenarios.Action
}

// Arg returns the i-th argument, or "".
func (a *ActionCtx) Arg(i int) string {
	if i < len(a.Action.Args) {
		return a.Action.Args[i].Name
	}
	return ""
}

// builtinVerbs are the actions the runtime carries out without perf.
func builtinVerbs() map[string]Verb {
	return map[string]Verb{
		"nmi": {Spec: scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgCPU}, MinArgs: 1}, NMI: true,
			Help: "an NMI on the CPU; its handler is perf's (perf_event_nmi_handler) when the run has perf",
			Do:   func(a *ActionCtx) { a.Run.Perf.NMI(a.CPU, false) }},
		"task-work-nmi": {Spec: scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgCPU}, MinArgs: 1}, NMI: true,
			Help: "an NMI on the CPU that queues a task_work on the current task with TWA_NMI_CURRENT, as unwind_deferred_request() does for perf's deferred callchains (counts nmi-work.queued and nmi-work.run)",
			Do:   taskWorkNMI},
		"signal": {Spec: scenarios.ActionSpec{Args: []scenarios.ArgKind{scenarios.ArgTask}, MinArgs: 1},
			Help: "kill(pid, SIGUSR1) to the task's process (si_code SI_USER): taken at its next return to user mode as its sigaction says " +
				"(sigaction SIGUSR1 handler: the empty handler runs; the default SIG_DFL ends the process)",
			Do: func(a *ActionCtx) {
				if t := a.Run.Tasks[a.Arg(0)]; t != nil {
					_, _ = a.Run.S.SendSignalTo(t, sched.Signal{Sig: sched.SIGUSR1, Code: sched.SI_USER}, sched.PIDTYPE_TGID)
				}
			}},
	}
}

// taskWorkNMI is the handler of task-work-nmi: task_work_add(current,
// TWA_NMI_CURRENT) from NMI context, on a user task.
func taskWorkNMI(a *ActionCtx) {
	r := a.Run
	t := sched.TaskOf(a.CPU.Curr())
	if t == nil || t.State == sched.Dead {
		return
	}
	err := r.S.TaskWorkAdd(a.CPU, t, sched.TaskWork{Name: "nmi-work", Fn: func(*sched.Task) { r.Counters["nmi-work.run"]++ }}, sched.TWANMICurrent)
	if err == nil {
		r.Counters["nmi-work.queued"]++
	}
}

// allVerbs returns the built-in verbs and the backend's (which win). The
// map is shared: callers must not change it.
func allVerbs(perf PerfBackend) map[string]Verb {
	if isPMUPerf(perf) {
		return pmuPerfRegistries().verbs
	}
	return verbsOf(perf)
}

// installActions arms one timer per action.
func (r *Run) installActions() error {
	for _, a := range r.File.Actions {
		verb, ok := r.verbs[a.Verb.Name]
		if !ok {
			return r.File.Errorf(a.Verb.Pos, "unknown action %q", a.Verb.Name)
		}
		c := r.M.CPUs[0]
		for i, k := range verb.Spec.Args {
			if verb.BootCPU {
				break
			}
			if (k == scenarios.ArgCPU || k == scenarios.ArgTarget) && i < len(a.Args) {
				if n, ok := scenarios.ParseCPUNumber(a.Args[i].Name); ok && strings.HasPrefix(a.Args[i].Name, "cpu") && n < len(r.M.CPUs) {
					c = r.M.CPUs[n]
					break
				}
			}
		}
		a, verb, home := a, verb, c
		name := actionName(a)
		tm := c.NewTimer(verb.NMI, cpu.Interrupt{Name: name, Fn: func(c *cpu.CPU) {
			if c != home {
				// hrtimers_cpu_dying() moved the timer off its offline CPU
				r.note(c.ID, "action", fmt.Sprintf("%s: cpu%d is offline, nothing happens", name, home.ID))
				return
			}
			verb.Do(&ActionCtx{Run: r, CPU: c, Action: a})
		}})
		tm.Arm(sim.Time(a.At))
	}
	return nil
}

func actionName(a *scenarios.Action) string {
	var b strings.Builder
	fmt.Fprintf(&b, "at %s %s", scenarios.FormatDuration(a.At), a.Verb.Name)
	for _, x := range a.Args {
		b.WriteString(" " + x.Name)
	}
	return b.String()
}

// VerbNames lists the verbs of a backend, sorted.
func VerbNames(perf PerfBackend) []string {
	v := allVerbs(backend(perf))
	out := make([]string, 0, len(v))
	for n := range v {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
