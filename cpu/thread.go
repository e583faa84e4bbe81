package cpu

import "perfsim/sim"

// Thread is a coroutine that runs on one CPU at a time: a task's kernel and user
// execution, or a CPU's idle thread. Interrupt handlers run nested on the coroutine
// of the thread they interrupt.
type Thread struct {
	Name string
	// Owner is the scheduler's object for this thread (its task).
	Owner any
	// User is true while the thread executes in user mode.
	User bool

	// Ran is the execution time this thread consumed in its own context (not in
	// the interrupts that landed on it).
	Ran sim.Duration

	cpu *CPU
	key string // FootprintKey's "thread:"+Name, made once (footprint_key.go)
	co  *sim.Coroutine
	hb  SyncClock // a switch's release and acquire (race.go)
}

// NewThread returns a thread that will run body the first time a CPU switches to
// it.
func (m *Machine) NewThread(name string, body func(th *Thread)) *Thread {
	th := &Thread{}
	m.InitThread(th, name, body)
	return th
}

// InitThread sets up a thread embedded in a bigger object (a task) in place.
// Unless its first fragment was declared by its own name
// (DeclareComplete("start:NAME")), that fragment counts as reaching
// unaudited code (unaudited.go): the declaration of every thread's
// ("start:") does not vouch for body.
func (m *Machine) InitThread(th *Thread, name string, body func(th *Thread)) {
	m.InitAuditedThread(th, name, func(th *Thread) {
		if !declaredExactly(threadStart + name) {
			th.cpu.Unaudited("a thread's body nobody annotated")
		}
		body(th)
	})
}

// InitAuditedThread is InitThread for a body whose accesses up to its first
// step point are annotated, or marked where they are not
// (CPU.Unaudited): its first fragment is declared complete with every
// thread's (DeclareComplete("start:")).
func (m *Machine) InitAuditedThread(th *Thread, name string, body func(th *Thread)) {
	th.Name = name
	th.key = "thread:" + name
	th.co = sim.NewCoroutine(func() { body(th) })
	m.threads = append(m.threads, th)
}

// NewAuditedThread is NewThread for a body as InitAuditedThread's.
func (m *Machine) NewAuditedThread(name string, body func(th *Thread)) *Thread {
	th := &Thread{}
	m.InitAuditedThread(th, name, body)
	return th
}

// CPU returns the CPU th runs on, or nil when it is not running.
func (th *Thread) CPU() *CPU { return th.cpu }

// Unwinding reports whether th's coroutine is being killed after the run
// (sim.Coroutine.Unwinding): a deferred clean-up in th's code returns at once.
func (th *Thread) Unwinding() bool { return th.co.Unwinding() }

// Step is a step point in th's task context.
func (th *Thread) Step(label string) { th.cpu.Step(label) }

// Spend consumes d of th's execution time in its current mode. In user mode every
// interrupt is taken when it arrives and the return to user mode runs the
// scheduler's exit work (which may switch or migrate th); in kernel mode interrupts
// are taken where irqs allow at each time advance.
func (th *Thread) Spend(d sim.Duration) {
	// Interrupts that become due exactly as d runs out stay pending: the step
	// points that follow may take them (a chosen skid), the next time advance must.
	// An NMI with a Skid that falls due within it of the end may be held there
	// too (CPU.holdNMI); th cannot leave its CPU during the hold, which takes
	// nothing.
	held := false
	for d > 0 {
		c := th.cpu
		if c.TakeInterrupts() && th.User && c.m.Hooks != nil {
			c.m.Hooks.IrqExitToUser(th)
			continue
		}
		start := c.eng.Now()
		c.waitUntil(start + d)
		ran := c.eng.Now() - start
		d -= ran
		th.Ran += ran
		c.Busy += ran
		held = held || c.holdNMI(d)
	}
	th.cpu.releaseNMI(held)
}

// SwitchTo makes next the running thread of th's CPU and suspends th: the
// switch_to() of a context switch. It returns when some CPU switches back to th;
// th.CPU() may then be another CPU.
func (th *Thread) SwitchTo(next *Thread) {
	c := th.cpu
	if c.curr != th {
		sim.Crash("switch from %s which is not current on cpu%d", th.Name, c.ID)
	}
	if next.cpu != nil {
		sim.Crash("%s is already running on cpu%d", next.Name, next.cpu.ID)
	}
	c.m.note(c, sim.KSwitch, th.Name, next.Name, 0)
	c.Release(th) // the switch's rq->lock / p->on_cpu ordering (race.go)
	c.Acquire(next)
	c.AccessMarkedOnly(th, "p->on_cpu", MarkedWrite, "finish_task_switch")    // kernel/sched/core.c: finish_task_switch() -> finish_lock_switch(): smp_store_release(&prev->on_cpu, 0)
	c.AccessMarkedOnly(next, "p->on_cpu", MarkedWrite, "prepare_task_switch") // kernel/sched/core.c: prepare_task_switch() -> prepare_lock_switch(): next->on_cpu = 1
	th.cpu = nil
	next.cpu = c
	c.curr = next
	c.switched = true
	th.co.Yield()
}

// Exit switches to next and ends th for good.
func (th *Thread) Exit(next *Thread) {
	c := th.cpu
	c.m.note(c, sim.KSwitch, th.Name, next.Name, 0)
	c.Acquire(next)
	c.AccessMarkedOnly(th, "p->on_cpu", MarkedWrite, "finish_task_switch")    // kernel/sched/core.c: finish_task_switch() -> finish_lock_switch(): smp_store_release(&prev->on_cpu, 0)
	c.AccessMarkedOnly(next, "p->on_cpu", MarkedWrite, "prepare_task_switch") // kernel/sched/core.c: prepare_task_switch() -> prepare_lock_switch(): next->on_cpu = 1
	th.cpu = nil
	next.cpu = c
	c.curr = next
	c.switched = true
	th.co.Yield() // never resumed; killed by Machine.Close
}

// Idle waits for the next interrupt in th (an idle thread).
func (th *Thread) Idle() {
	c := th.cpu
	if c.TakeInterrupts() {
		return
	}
	if c.releaseHeldIdle() && c.TakeInterrupts() {
		return
	}
	c.waitUntil(sim.Never)
	th.cpu.TakeInterrupts()
}

// Start makes th the current thread of c, which must have none yet (boot).
func (c *CPU) Start(th *Thread) {
	if c.curr != nil {
		sim.Crash("cpu%d already has a current thread", c.ID)
	}
	th.cpu = c
	c.curr = th
	c.eng.SetNext(c.lane, c.eng.Now())
}
