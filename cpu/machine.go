// Package cpu models simulated CPUs: each CPU's context stack (task -> irq -> NMI),
// irqs on and off, pending interrupts and their delivery at step points, irq_work,
// per-CPU timers and per-CPU variables. Threads (the sched package's tasks and the
// per-CPU idle threads) are coroutines that run on a CPU.
package cpu

import (
	"perfsim/sim"
)

// Hooks are the calls the CPU layer makes up into the scheduler, which implements
// them, as the kernel's entry code calls into the scheduler.
type Hooks interface {
	// IrqExitToUser runs when the last interrupt returns to a thread in user mode:
	// the kernel's irqentry_exit_to_user_mode() (resched, signals, task_work).
	IrqExitToUser(th *Thread)
}

// StepHook is called at every step point taken while hooks are installed; forced
// interleavings (deliver an NMI when a context reaches a label) are StepHooks.
type StepHook func(c *CPU, label string)

// Config describes the machine.
type Config struct {
	CPUs int
}

// Machine is the set of CPUs and the engine that interleaves them.
type Machine struct {
	Eng   *sim.Engine
	CPUs  []*CPU
	Hooks Hooks

	stepHooks []StepHook
	stepIDs   []uint64 // stepIDs[i] names stepHooks[i] for the remove func AddRemovableStepHook returns (0: not removable)
	stepNext  uint64
	threads   []*Thread
	footprint FootprintFunc       // footprint.go
	seg       SegmentListener     // segment.go: nil unless a reduction listens
	unaudited map[auditCtx]string // unaudited.go: the contexts whose open fragment reached unaudited code
	hb        *RaceDetector       // race.go: nil unless the data-race oracle is on
}

// NewMachine builds n CPUs driven by an engine asking ch for every decision.
func NewMachine(cfg Config, ch sim.Chooser) *Machine {
	if cfg.CPUs <= 0 {
		cfg.CPUs = 1
	}
	m := &Machine{Eng: sim.NewEngine(ch)}
	for i := 0; i < cfg.CPUs; i++ {
		c := &CPU{ID: i, m: m, eng: m.Eng, irqsOn: true}
		c.ipi.cpu = i
		c.lane = m.Eng.AddLane(sim.LaneName(i), c.run)
		m.CPUs = append(m.CPUs, c)
	}
	return m
}

// Now returns the current virtual time.
func (m *Machine) Now() sim.Time { return m.Eng.Now() }

// Trace returns the run's trace.
func (m *Machine) Trace() *sim.Trace { return m.Eng.Trace }

// AddStepHook installs a hook called at every step point on every CPU.
func (m *Machine) AddStepHook(h StepHook) {
	m.stepHooks = append(m.stepHooks, h)
	m.stepIDs = append(m.stepIDs, 0)
	for _, c := range m.CPUs {
		c.updateAttn()
	}
}

// Run runs the machine until nothing is left to do before until, then kills every
// suspended thread so no goroutine outlives the run. A model crash is returned as
// *sim.Oops.
func (m *Machine) Run(until sim.Time) error {
	err := m.Eng.Run(until)
	if err != nil {
		if o, ok := err.(*sim.Oops); ok {
			m.Eng.Trace.Add(sim.Record{T: o.Time, CPU: o.Lane, Kind: sim.KOops, Name: o.Msg})
		}
	}
	return err
}

// Close kills every thread's coroutine. Call it when a run is over.
func (m *Machine) Close() {
	for _, th := range m.threads {
		th.co.Kill()
	}
	m.threads = nil
	if m.hb != nil {
		m.hb.close() // race.go: the next run's detector reuses its memory
	}
}

// note adds a trace record if anyone listens.
func (m *Machine) note(c *CPU, k sim.Kind, name, detail string, n int64) {
	if t := m.Eng.Trace; t.On() {
		t.Add(sim.Record{T: m.Eng.Now(), CPU: c.ID, Kind: k, Name: name, Detail: detail, N: n})
	}
}

// RunningCPU is the CPU whose lane the engine runs now; nil between lanes
// (the engine's own work, the machine's build).
func (m *Machine) RunningCPU() *CPU {
	if r := m.Eng.Running(); r != nil && r.ID < len(m.CPUs) {
		return m.CPUs[r.ID]
	}
	return nil
}
