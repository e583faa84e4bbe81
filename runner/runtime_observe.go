package runner

import (
	"sort"
	"strconv"
	"strings"

	"perfsim/scenarios"
	"perfsim/sched"
)

// The observables of the cpu and sched models, the trace and the built-in verbs.
// "cpuN" stands for every CPU; task observables are task.NAME.FIELD for every task
// of the file. Durations are in nanoseconds.
var builtinObservables = map[string]scenarios.Type{
	"cpuN.nmis":        scenarios.IntType, // NMIs taken
	"cpuN.irqs":        scenarios.IntType, // irqs taken
	"cpuN.steps":       scenarios.IntType, // step points passed
	"cpuN.busy":        scenarios.IntType, // time spent executing (ns)
	"cpuN.switches":    scenarios.IntType, // context switches
	"sched.switches":   scenarios.IntType,
	"sched.migrations": scenarios.IntType,
	"sched.all-exited": scenarios.BoolType, // every task has exited
	"time.now":         scenarios.IntType,  // the virtual time (ns)
	"kernel.oops":      scenarios.BoolType, // the run ended in a model oops (NULL dereference, refcount underflow)
	"trace.choices":    scenarios.IntType,  // disturbing choices taken at step points
	"nmi-work.queued":  scenarios.IntType,  // task works queued by task-work-nmi
	"nmi-work.run":     scenarios.IntType,  // ... and run by their task
}

func init() {
	for n, h := range perfOpObservables {
		builtinObservables[n] = scenarios.IntType
		builtinObservableHelp[n] = h
	}
	for n, h := range errnoObservables() {
		builtinObservables[n] = scenarios.IntType
		builtinObservableHelp[n] = h
	}
}

// taskFields are the fields of task.NAME.FIELD.
var taskFields = map[string]scenarios.Type{
	"computed":       scenarios.IntType,  // user compute time done (ns)
	"ran":            scenarios.IntType,  // time executed in its own context (ns)
	"exited":         scenarios.BoolType, // the task has exited
	"exit-time":      scenarios.IntType,  // when it exited (ns; 0 while alive)
	"cpu":            scenarios.IntType,  // the CPU it runs on, or last ran on
	"migrations":     scenarios.IntType,  // moves between run queues
	"kernel-entries": scenarios.IntType,  // syscalls made
	"pending-works":  scenarios.IntType,  // task works queued and not yet run
	"signals":        scenarios.IntType,  // signals it took (handler run)
	"minor-faults":   scenarios.IntType,  // min_flt
	"major-faults":   scenarios.IntType,  // maj_flt
	"segfaulted":     scenarios.BoolType, // a bad access killed it
	"timer-slack":    scenarios.IntType,  // timer_slack_ns
}

// Observe returns the value of an observable: the built-in ones, then the perf
// backend's. Booleans are 0 or 1.
func (r *Run) Observe(name string) (int64, bool) {
	if inv, ok := strings.CutPrefix(name, violationsPrefix); ok && r.isInvariant(inv) {
		return int64(r.perInv[inv]), true
	}
	if v, ok := r.observeBuiltin(name); ok {
		return v, true
	}
	if r.Perf != nil {
		return r.Perf.Observe(name)
	}
	return 0, false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (r *Run) observeBuiltin(name string) (int64, bool) {
	switch name {
	case "sched.switches":
		return int64(r.S.Switches), true
	case "sched.migrations":
		return int64(r.S.Migrations), true
	case "sched.all-exited":
		return b2i(r.S.AllExited()), true
	case "kernel.oops":
		return b2i(r.oops != nil), true
	case "time.now":
		return int64(r.M.Now()), true
	case "trace.choices":
		return r.obs.choices, true
	case "nmi-work.queued", "nmi-work.run", "forces.fired", "forces.found-pending", "forces.nothing-pending":
		return r.Counters[name], true
	}
	if v, ok := r.observePerfOps(name); ok {
		return v, true
	}
	if rest, ok := strings.CutPrefix(name, "cpu"); ok {
		num, field, ok := strings.Cut(rest, ".")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 0 || n >= len(r.M.CPUs) || strconv.Itoa(n) != num {
			return 0, false
		}
		c := r.M.CPUs[n]
		switch field {
		case "nmis":
			return int64(c.NMIs), true
		case "irqs":
			return int64(c.IRQs), true
		case "steps":
			return int64(c.Steps), true
		case "busy":
			return int64(c.Busy), true
		case "switches":
			return r.obs.switches[n], true
		}
		return 0, false
	}
	if rest, ok := strings.CutPrefix(name, "task."); ok {
		if v, ok := observeVar(r, rest); ok {
			return v, true
		}
		i := strings.LastIndexByte(rest, '.')
		if i < 0 {
			return 0, false
		}
		t := r.Tasks[rest[:i]]
		if t == nil {
			return 0, false
		}
		return observeTask(r, t, rest[i+1:])
	}
	return 0, false
}

func observeTask(r *Run, t *sched.Task, field string) (int64, bool) {
	switch field {
	case "computed":
		return int64(t.Computed), true
	case "ran":
		return int64(t.Ran), true
	case "exited":
		return b2i(t.State == sched.Dead), true
	case "exit-time":
		return int64(t.Exited), true
	case "cpu":
		return int64(t.CPUID()), true
	case "migrations":
		return r.obs.migrations[t.Thread.Name], true
	case "kernel-entries":
		return int64(t.KernelEntries), true
	case "pending-works":
		return int64(t.PendingWorks()), true
	case "signals":
		n := int64(0)
		for _, d := range r.S.Delivered {
			if d.Task == t {
				n++
			}
		}
		return n, true
	case "minor-faults":
		return int64(t.MinFlt), true
	case "major-faults":
		return int64(t.MajFlt), true
	case "segfaulted":
		if t.Segfaulted {
			return 1, true
		}
		return 0, true
	case "timer-slack":
		return int64(t.TimerSlack), true
	}
	return 0, false
}

// ObservableNames lists every observable of this run, with cpuN and task names
// expanded, sorted; the backend's names are included as it lists them.
func (r *Run) ObservableNames() []string {
	var out []string
	add := func(pattern string) {
		if strings.Contains(pattern, "cpuN") {
			for i := range r.M.CPUs {
				out = append(out, strings.Replace(pattern, "cpuN", "cpu"+strconv.Itoa(i), 1))
			}
			return
		}
		out = append(out, pattern)
	}
	for n := range builtinObservables {
		add(n)
	}
	vars := taskVars(r.File)
	for _, t := range r.File.Tasks {
		for f := range taskFields {
			out = append(out, "task."+t.Name+"."+f)
		}
		for v := range vars[t.Name] {
			out = append(out, "task."+t.Name+varInfix+v)
		}
	}
	for n := range backend(r.opts.Perf).Observables() {
		if base, _, ok := scenarios.CutEventIndex(n); ok { // [EVENT]: each event of the session
			out = append(out, r.indexedNames(base)...)
			continue
		}
		if strings.Contains(n, "SESSION") {
			for _, rec := range r.File.Records {
				if rec.Name != nil {
					add(strings.Replace(n, "SESSION", rec.Name.Name, 1))
				}
			}
			continue
		}
		add(n)
	}
	sort.Strings(out)
	return out
}

// Observables returns the value of every observable at the end of the run.
func (r *Run) Observables() map[string]int64 {
	out := map[string]int64{}
	for _, n := range r.ObservableNames() {
		if v, ok := r.Observe(n); ok {
			out[n] = v
		}
	}
	return out
}

// violationsPrefix names the observable violations.INVARIANT: how many times
// INVARIANT was violated in the run so far. An outcome on it does not judge
// the invariant (a violation still fails the run and explore still reports
// it); it states what the old code is expected to break, e.g.
// "when aux-free=pre-57ffc5ca679f sometimes violations.aux-refcount > 0".
const violationsPrefix = "violations."
