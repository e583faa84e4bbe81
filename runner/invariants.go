package runner

import (
	"fmt"
	"slices"
	"unsafe"

	"perfsim/cpu"
	"perfsim/scenarios"
	"perfsim/sched"
	"perfsim/sim"
)

// InvariantSpec is a property every run must have. Invariants live apart from the
// models: they observe the trace and the models' hooks, never the models' insides.
type InvariantSpec struct {
	Name    string
	Says    string // the statement, one line
	Why     string // why it must hold, one line
	Package string // where the mechanism it judges lives
}

// Violation is an invariant that did not hold.
type Violation struct {
	Invariant string   `json:"invariant"`
	T         sim.Time `json:"time_ns"`
	CPU       int      `json:"cpu"`
	Message   string   `json:"message"`
}

func (v Violation) String() string {
	if v.CPU < 0 { // judged at the end of the run, not on one CPU
		return fmt.Sprintf("%s at %s: %s", v.Invariant, v.T, v.Message)
	}
	return fmt.Sprintf("%s at %s on cpu%d: %s", v.Invariant, v.T, v.CPU, v.Message)
}

// maxViolationsPerInvariant keeps a broken run readable.
const maxViolationsPerInvariant = 5

// SchedInvariants are the invariants of the cpu and sched models, checked on the
// trace (and, for task work, the user-return hook) of every run.
var SchedInvariants = []InvariantSpec{
	{"one-thread-per-cpu", "a CPU switches away only from the thread it runs, and no thread runs on two CPUs at once",
		"a CPU has one current task (rq->curr); a task on two CPUs corrupts its stack and its perf context", "sched"},
	{"nmis-never-nest", "an NMI is never taken while the CPU is in an NMI handler",
		"the CPU blocks NMIs until IRET; perf's NMI paths (ring buffer nesting, aux pause) rely on it", "cpu"},
	{"irqs-never-nest", "an irq is never taken inside an irq or an NMI handler",
		"handlers run with irqs off; perf_output_begin's nesting accounting counts on at most task -> irq -> NMI", "cpu"},
	{"no-switch-in-interrupt", "no context switch happens inside an irq or NMI handler",
		"schedule() from atomic context is a bug (BUG: scheduling while atomic)", "sched"},
	{"interrupts-exit-in-order", "every interrupt exits on the CPU it entered, innermost first",
		"an interrupt returns to the context it interrupted", "cpu"},
	{"cpu-clock-monotonic", "on each CPU, the trace's time never goes backwards",
		"each CPU's clock only advances; perf timestamps (perf_clock) are monotonic per CPU", "sim"},
	{"lockdep", "no lock-order cycle between lock classes, no second lock of a held class without a nesting annotation, no lock taken in NMI, no class taken both in hardirq context and with hardirqs on, no hardirq-safe class ordered before a hardirq-unsafe one",
		"CONFIG_PROVE_LOCKING's checks (kernel/locking/lockdep.c): an order cycle can deadlock two CPUs, a lock in NMI can deadlock against its own CPU; off with lockdep=off", "sched"},
	{"hung-task", "no task is left asleep in TASK_UNINTERRUPTIBLE on a kernel wait (wait_var_event(), rcuwait_wait_event()) that nothing left can satisfy, " +
		"nor stays asleep on one longer than hung-task-timeout (10ms of virtual time) while other tasks run",
		"the hung-task detector (kernel/hung_task.c): a D task nobody will wake never finishes its system call and cannot be killed; the report names the " +
			"step point it slept after, what it waits for and the wait chain (the task that must act, and on while that one is in D: a cycle is a deadlock); " +
			"off with hung-task=off, the timed check alone with hung-task-timeout=off", "sched"},
	{"soft-lockup", "no CPU spins in a kernel spin-wait or retry loop (csd_lock_wait() in smp_call_function_single(), irq_work_sync() in _free_event(), " +
		"task_function_call()'s, perf_event_stop()'s and perf_pmu_output_stop()'s -EAGAIN retries, the retry loops of event_function_call() and perf_install_in_context()) for longer than the livelock bound (hung-task-timeout, 10ms of virtual time)",
		"the soft-lockup watchdog (kernel/watchdog.c): a spin nothing will end holds its CPU forever; the report names the loop's step point, " +
			"since when it spins, what it waits for and the state of the CPU that must act, and the run ends there instead of at its time limit; " +
			"off with hung-task=off or hung-task-timeout=off", "sched"},
	{"task-work-before-user-return", "a task never returns to user mode with task_work queued for it",
		"task_work_add() notifies the task (TIF_NOTIFY_RESUME) so its work runs before user mode; ef1ea98c8fff fixed an NMI race that lost the notification", "sched"},
}

// AllInvariants returns the built-in invariants and the backend's, sorted.
func AllInvariants(perf PerfBackend) []InvariantSpec {
	return slices.Clone(allInvariants(perf))
}

// allInvariants is AllInvariants, shared with the registry for PMUPerf: the
// caller only reads it.
func allInvariants(perf PerfBackend) []InvariantSpec {
	if perf = backend(perf); isPMUPerf(perf) {
		return pmuPerfRegistries().invariants
	}
	return sortedInvariants(perf)
}

// addViolation records v; a violation of an invariant no applicable outcome
// names is a failure of the run (and stops it under StopAtViolation).
func (r *Run) addViolation(v Violation) {
	r.perInv[v.Invariant]++
	if r.perInv[v.Invariant] <= maxViolationsPerInvariant {
		r.violations = append(r.violations, v)
	}
	if !r.judged[v.Invariant] {
		r.failedInv = true
		if r.opts.StopAtViolation {
			r.M.Eng.Stop()
		}
	}
	if tr := r.M.Trace(); tr.Keep {
		tr.Records = append(tr.Records, sim.Record{T: v.T, CPU: v.CPU, Kind: sim.KNote, Name: "violation", Detail: v.Invariant + ": " + v.Message})
	}
}

// violated reports whether inv was violated (so far).
func (r *Run) violated(inv string) bool { return r.perInv[inv] > 0 }

// Judged reports whether some applicable outcome names the invariant inv, so
// its violation is judged by that outcome rather than failing the run by itself.
func (r *Run) Judged(inv string) bool { return r.judged[inv] }

// judgedInvariants returns the invariants whose violation is not by itself a
// failure of the run: those named by an applicable outcome that may accept a
// violation (sometimes !inv, never inv, inv in a bigger condition). An invariant
// no outcome names, or named only as "always NAME", must hold: its violation
// fails the run at once.
func (r *Run) judgedInvariants() map[string]bool {
	out := map[string]bool{}
	for _, o := range r.File.Outcomes {
		if !r.applies(o) {
			continue
		}
		if _, ok := o.Cond.(*scenarios.Name); ok && o.Quant == scenarios.Always && o.At == nil {
			continue
		}
		scenarios.Names(o.Cond, func(n *scenarios.Name) { out[n.Name] = true })
	}
	return out
}

// OopsExpected reports whether an applicable outcome states that the run
// ends in a kernel oops ("always kernel.oops", no "at"), or may ("always
// kernel.oops || COND": every schedule oopses or meets COND): a scenario
// that shows an upstream bug whose symptom is an oops on this kernel, in
// every schedule or in the ones that reach it. Its oops then does not fail
// the run by itself (the outcome judges it: a run that neither oopses nor
// meets COND fails), nor is it a violation for explore.
func (r *Run) OopsExpected() bool {
	for _, o := range r.File.Outcomes {
		if o.Quant == scenarios.Always && o.At == nil && statesOops(o.Cond) && r.applies(o) {
			return true
		}
	}
	return false
}

// statesOops reports whether cond is kernel.oops, or a disjunction one of
// whose terms is.
func statesOops(cond scenarios.Expr) bool {
	switch c := cond.(type) {
	case *scenarios.Name:
		return c.Name == "kernel.oops"
	case *scenarios.Binary:
		return c.Op == "||" && (statesOops(c.X) || statesOops(c.Y))
	}
	return false
}

// installInvariants attaches the trace observer and the model hooks.
func (r *Run) installInvariants(perf PerfBackend) {
	r.invariants = allInvariants(perf) // read only (outcome.go)
	n := len(r.M.CPUs)
	w := &schedWatch{r: r, cpus: make([]cpuWatch, n), where: map[string]int{}}
	for i := range w.cpus {
		w.cpus[i].cur = r.S.Idle(i).Name
		w.where[w.cpus[i].cur] = i
	}
	r.obs = &traceCounters{switches: make([]int64, n), migrations: map[string]int64{}}
	tr := r.M.Trace()
	tr.Observers = append(tr.Observers, w, r.obs)
	r.S.UserReturnHooks = append(r.S.UserReturnHooks, userReturnCheck{r})
	r.S.Lockdep.Report = func(c *cpu.CPU, kind, msg string) {
		id := -1
		if c != nil {
			id = c.ID
		}
		r.addViolation(Violation{Invariant: "lockdep", T: r.M.Now(), CPU: id, Message: kind + ": " + msg})
	}
}

// schedWatch checks the trace-level invariants of SchedInvariants.
type schedWatch struct {
	r     *Run
	cpus  []cpuWatch     // per CPU: one bounds check a record
	where map[string]int // thread -> CPU it runs on
}

// cpuWatch is what schedWatch knows of one CPU.
type cpuWatch struct {
	cur   string // the thread it runs
	irq   int    // irq depth
	nmi   int    // NMI depth
	stack []ctxName
	last  sim.Time
}

func (w *schedWatch) bad(inv string, rec *sim.Record, format string, args ...any) {
	w.r.addViolation(Violation{Invariant: inv, T: rec.T, CPU: rec.CPU, Message: fmt.Sprintf(format, args...)})
}

// Observe implements sim.Observer.
func (w *schedWatch) Observe(rec *sim.Record) {
	c := rec.CPU
	if c < 0 || c >= len(w.cpus) {
		return
	}
	s := &w.cpus[c]
	if rec.T < s.last {
		w.bad("cpu-clock-monotonic", rec, "%s record at %s after one at %s", rec.Kind, rec.T, s.last)
	}
	s.last = rec.T
	switch rec.Kind {
	case sim.KEnter:
		switch rec.Name {
		case "nmi":
			if s.nmi > 0 {
				w.bad("nmis-never-nest", rec, "NMI %s taken inside an NMI", rec.Detail)
			}
			s.nmi++
		case "irq":
			if s.irq > 0 || s.nmi > 0 {
				w.bad("irqs-never-nest", rec, "irq %s taken inside %s", rec.Detail, s.innermost())
			}
			s.irq++
		}
		s.stack = append(s.stack, ctxName{rec.Name, rec.Detail})
	case sim.KExit:
		want := ctxName{rec.Name, rec.Detail}
		if n := len(s.stack); n == 0 || !s.stack[n-1].same(want) {
			w.bad("interrupts-exit-in-order", rec, "exit from %s, but the innermost context is %s", want, s.innermost())
		} else {
			s.stack = s.stack[:n-1]
		}
		switch rec.Name {
		case "nmi":
			s.nmi--
		case "irq":
			s.irq--
		}
	case sim.KSwitch:
		if s.irq > 0 || s.nmi > 0 {
			w.bad("no-switch-in-interrupt", rec, "switch from %s to %s inside %s", rec.Name, rec.Detail, s.innermost())
		}
		if s.cur != rec.Name {
			w.bad("one-thread-per-cpu", rec, "switch from %s, but cpu%d runs %s", rec.Name, c, s.cur)
		}
		delete(w.where, rec.Name)
		if o, ok := w.where[rec.Detail]; ok && o != c {
			w.bad("one-thread-per-cpu", rec, "%s switched in while it runs on cpu%d", rec.Detail, o)
		}
		w.where[rec.Detail] = c
		s.cur = rec.Detail
	}
}

// ctxName is an interrupt context on a CPU's stack: its kind and name, as
// "kind name" in messages.
type ctxName struct{ kind, name string }

func (n ctxName) String() string { return n.kind + " " + n.name }

// same is n == o, without comparing bytes when both strings are the same
// ones (an exit names its context with the strings its entry did).
func (n ctxName) same(o ctxName) bool {
	return sameString(n.kind, o.kind) && sameString(n.name, o.name)
}

func sameString(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

func (s *cpuWatch) innermost() string {
	if n := len(s.stack); n > 0 {
		return s.stack[n-1].String()
	}
	return "task context"
}

// userReturnCheck is the task-work-before-user-return invariant, on the
// scheduler's user-return hook (where unwind_reset_info() runs).
type userReturnCheck struct{ r *Run }

func (u userReturnCheck) ExitToUser(t *sched.Task) {
	t.CPU().AccessMarkedOnly(t, "task->task_works", cpu.MarkedRead, "exit_to_user_mode") // kernel/entry/common.c: exit_to_user_mode(): the invariant reads what task_work_add() writes
	if n := t.PendingWorks(); n > 0 {
		c := t.CPUID()
		u.r.addViolation(Violation{Invariant: "task-work-before-user-return", T: u.r.M.Now(), CPU: c,
			Message: fmt.Sprintf("%s returns to user mode with %d task_work(s) queued and TIF_NOTIFY_RESUME clear", t, n)})
	}
}

// traceCounters counts what the trace shows, for observables.
type traceCounters struct {
	switches   []int64
	migrations map[string]int64 // by thread name
	choices    int64
}

func (tc *traceCounters) Observe(rec *sim.Record) {
	switch rec.Kind {
	case sim.KSwitch:
		if rec.CPU >= 0 && rec.CPU < len(tc.switches) {
			tc.switches[rec.CPU]++
		}
	case sim.KMigrate:
		tc.migrations[rec.Name]++
	case sim.KChoice:
		tc.choices++
	}
}
