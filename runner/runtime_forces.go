package runner

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/scenarios"
	"perfsim/sched"
)

// The step point where a pending forced preemption or migration of a running
// task is carried out: the task's own return-to-user loop, a preemption point
// where it can neither block nor be inside schedule().
const forceApplyLabel = "exit_to_user_mode_loop"

// forceState is the step hook of the file's forced interleavings.
type forceState struct {
	actors  map[*scenarios.Force]*actor
	r       *Run
	forces  []*scenarios.Force
	count   []int               // occurrences seen per force
	pending map[*sched.Task]int // task -> destination CPU of a pending migration
	order   []*sched.Task       // pending tasks in request order (determinism)
	// labels has the bit labelBit(L) set for each force's label L: the hook
	// runs at every step point of every CPU, and most labels are no force's,
	// which one test of a bit tells without comparing strings.
	labels [labelBits / 64]uint64
	// unfired is the number of forces that have not fired yet; when none is
	// left and no migration is pending, the hook removes itself (remove).
	unfired int
	remove  func()
}

const labelBits = 1024

// labelBit is where a label falls in forceState.labels: its length and its
// first and last bytes.
func labelBit(l string) uint {
	if l == "" {
		return 0
	}
	return (uint(len(l))*131 + uint(l[0])*31 + uint(l[len(l)-1])) % labelBits
}

// installForces adds a step hook when the file has forced interleavings:
//
//	nmi cpuN at LABEL          the N-th time cpuN reaches LABEL, an NMI is raised
//	                           with Now set: it is taken right there
//	preempt TASK at LABEL      the N-th time LABEL is reached on a CPU running TASK,
//	                           TASK's CPU is marked need_resched (resched_curr())
//	migrate TASK to cpuN ...   likewise, and TASK moves to cpuN at its next
//	                           return-to-user loop (active balance)
//
//	ipi cpuN at LABEL          the N-th time cpuN reaches LABEL, its pending
//	                           call_function_single IPI is taken there (or at the
//	                           first step point after it where irqs are on); until
//	                           then the IPIs raised to cpuN are held back (not
//	                           taken), so one raised earlier arrives exactly there
//	irq_work cpuN at LABEL     likewise its pending irq_work IPI
//	cpu-offline cpuN at LABEL  the N-th time LABEL is reached on any CPU, the
//	cpu-online cpuN at LABEL   task writing cpuN's online file starts on cpu0
//	                           (as the cpu-offline and cpu-online actions)
//	at LABEL on cpuN: OP       the N-th time LABEL is reached on any CPU, a task
//	                           waiting on cpuN (one per such line, a thread of the
//	                           file's process) wakes and carries out OP
//
// Occurrences count from 1; a force fires once.
func (r *Run) installForces() error {
	if len(r.File.Forces) == 0 {
		return nil
	}
	fs := &forceState{r: r, forces: r.File.Forces, count: make([]int, len(r.File.Forces)), pending: map[*sched.Task]int{}}
	if err := fs.spawnActors(); err != nil {
		return err
	}
	for _, f := range fs.forces {
		if name := heldIRQName(f.Kind); name != "" && f.CPU >= 0 && f.CPU < len(r.M.CPUs) {
			r.M.CPUs[f.CPU].HoldIRQ(name) // released when the force fires
		}
	}
	fs.setLabels()
	fs.unfired = len(fs.forces)
	r.forces = fs
	fs.remove = r.M.AddRemovableStepHook(fs.step)
	return nil
}

// setLabels sets the label bits of the forces that have not fired.
func (fs *forceState) setLabels() {
	fs.labels = [labelBits / 64]uint64{}
	for i, f := range fs.forces {
		if fs.count[i] < f.Occurrence {
			b := labelBit(f.Label.Name)
			fs.labels[b/64] |= 1 << (b % 64)
		}
	}
}

// done removes the hook once nothing is left for it to do: every force fired
// (each fires once) and no forced migration waits for its task's return to
// user mode. The rest of the run's step points then cost what they cost
// without forces.
func (fs *forceState) done() {
	if fs.unfired == 0 && len(fs.order) == 0 && fs.remove != nil {
		fs.remove()
		fs.remove = nil
	}
}

func (fs *forceState) step(c *cpu.CPU, label string) {
	r := fs.r
	if b := labelBit(label); fs.labels[b/64]&(1<<(b%64)) != 0 {
		fs.stepForces(c, label)
	}
	if label == forceApplyLabel && len(fs.order) > 0 {
		t := sched.TaskOf(c.Curr())
		if to, ok := fs.pending[t]; ok && c.Context() == cpu.CtxTask {
			c.Unaudited("a forced migration (the scenario's force)")
			fs.drop(t)
			if r.S.ForceMigrate(t, to) {
				r.note(c.ID, "force", fmt.Sprintf("migrate %s to cpu%d now", t.Comm, to))
			} else {
				r.note(c.ID, "force", fmt.Sprintf("migrate %s to cpu%d not possible (affinity %s)", t.Comm, to, t.Allowed))
			}
			fs.done()
		}
	}
}

// stepForces counts label against each force that names it and fires the
// ones whose occurrence it is.
func (fs *forceState) stepForces(c *cpu.CPU, label string) {
	r := fs.r
	fired := false
	for i, f := range fs.forces {
		if f.Label.Name != label || fs.count[i] >= f.Occurrence {
			continue
		}
		var t *sched.Task
		switch f.Kind {
		case scenarios.ForceNMI, scenarios.ForceIPI, scenarios.ForceIRQWork:
			if c.ID != f.CPU {
				continue
			}
		case scenarios.ForceAction, scenarios.ForceOffline, scenarios.ForceOnline:
			// the label may be reached on any CPU
		default:
			t = r.Tasks[f.Task.Name]
			if t == nil || sched.TaskOf(c.Curr()) != t {
				continue
			}
		}
		c.Unaudited("a forced interleaving (the scenario's force)") // the forces' counts and what they fire carry no footprint (sched/footprint_entry.go)
		fs.count[i]++
		if fs.count[i] < f.Occurrence {
			continue
		}
		fs.unfired--
		fired = true
		fs.fire(c, f, t)
	}
	if fired {
		fs.setLabels()
		fs.done()
	}
}

func (fs *forceState) fire(c *cpu.CPU, f *scenarios.Force, t *sched.Task) {
	r := fs.r
	what := forceText(f)
	r.note(c.ID, "force", what)
	r.Counters["forces.fired"]++
	if name := heldIRQName(f.Kind); name != "" {
		if c.ExpediteIRQ(name) {
			r.Counters["forces.found-pending"]++
		} else {
			r.Counters["forces.nothing-pending"]++
			r.note(c.ID, "force", fmt.Sprintf("no %s pending on cpu%d", name, c.ID))
		}
		c.ReleaseIRQ(name)
		return
	}
	switch f.Kind {
	case scenarios.ForceNMI:
		c.RaiseNMI(cpu.Interrupt{Name: "forced", Fn: func(c *cpu.CPU) { r.Perf.NMI(c, true) }, Now: true})
	case scenarios.ForceAction:
		fs.fireAction(f)
	case scenarios.ForceOffline, scenarios.ForceOnline:
		startHotplugWrite(r, f.CPU, f.Kind == scenarios.ForceOnline)
	case scenarios.ForcePreempt:
		r.S.ForcePreempt(t)
	case scenarios.ForceMigrate:
		if _, ok := fs.pending[t]; !ok {
			fs.order = append(fs.order, t)
		}
		fs.pending[t] = f.CPU
		r.S.ForcePreempt(t)
	}
}

// forceObservables are the forced interleavings' counters (Run.Counters).
var forceObservables = map[string]string{
	"forces.fired":           "forced interleavings that reached their label and fired",
	"forces.found-pending":   "forced ipi/irq_work whose label found such an irq pending (raised earlier and held back, or not yet taken)",
	"forces.nothing-pending": "forced ipi/irq_work whose label found no such irq pending",
}

func init() {
	for n, h := range forceObservables {
		builtinObservables[n] = scenarios.IntType
		builtinObservableHelp[n] = h
	}
}

// heldIRQName is the irq a force of kind k holds back until its label.
func heldIRQName(k scenarios.ForceKind) string {
	switch k {
	case scenarios.ForceIPI:
		return pmu.IPIName
	case scenarios.ForceIRQWork:
		return cpu.IrqWorkName
	}
	return ""
}

func (fs *forceState) drop(t *sched.Task) {
	delete(fs.pending, t)
	for i, x := range fs.order {
		if x == t {
			fs.order = append(fs.order[:i:i], fs.order[i+1:]...)
			break
		}
	}
}

func forceText(f *scenarios.Force) string {
	s := ""
	switch f.Kind {
	case scenarios.ForceNMI:
		s = fmt.Sprintf("nmi cpu%d", f.CPU)
	case scenarios.ForcePreempt:
		s = "preempt " + f.Task.Name
	case scenarios.ForceMigrate:
		s = fmt.Sprintf("migrate %s to cpu%d", f.Task.Name, f.CPU)
	case scenarios.ForceIPI:
		s = fmt.Sprintf("ipi cpu%d", f.CPU)
	case scenarios.ForceIRQWork:
		s = fmt.Sprintf("irq_work cpu%d", f.CPU)
	case scenarios.ForceAction:
		s = fmt.Sprintf("on cpu%d: %s", f.CPU, f.Op)
	case scenarios.ForceOffline, scenarios.ForceOnline:
		s = fmt.Sprintf("%s cpu%d", f.Kind, f.CPU)
	}
	s += " at " + f.Label.Name
	if f.Occurrence != 1 {
		s += fmt.Sprintf(" occurrence %d", f.Occurrence)
	}
	return s
}
