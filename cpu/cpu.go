package cpu

import (
	"slices"

	"perfsim/sim"
)

// Context is what a CPU is executing: a thread (task or idle), an irq handler on top
// of it, or an NMI handler on top of either.
type Context uint8

// Contexts, innermost last.
const (
	CtxTask Context = iota
	CtxIRQ
	CtxNMI
)

func (x Context) String() string { return [...]string{"task", "irq", "nmi"}[x] }

// Interrupt is a pending interrupt: its handler runs to completion on top of the
// interrupted context.
type Interrupt struct {
	Name string
	Fn   func(c *CPU)
	// Now forces delivery at the current step point (forced interleavings).
	Now bool
	// Skid is how late an NMI may be taken (a PMI's skid): when it falls due
	// within Skid of the end of a time advance (Spend), the Chooser may hold it
	// to the end of that advance ("nmi-skid"), so that the step points which
	// follow may take it. 0: taken when it falls due, no decision.
	Skid sim.Duration
}

// CPU is one simulated CPU.
type CPU struct {
	ID   int
	ipi  ipiKey // its interrupt mailbox (race.go)
	m    *Machine
	eng  *sim.Engine
	lane *sim.Lane
	// agents is the buffer of a decision's agents (sim.Agent, for
	// strategies that reason about who runs).
	agents []sim.Agent

	curr     *Thread // the thread whose coroutine this CPU runs
	ran      *Thread // the thread its run resumed last
	switched bool    // curr changed while running: resume the new one
	nextSet  bool    // the thread yielded through yield, which set the lane's next
	clock    sim.Time
	resumeAt sim.Time

	irqsOn  bool // the interrupt flag (local_irq_save/restore)
	inIRQ   bool
	inNMI   bool
	preempt int // preempt_count, for "scheduling while atomic" checks

	timers     sim.EventQueue
	pendingNMI []Interrupt
	pendingIRQ []Interrupt
	// nmiHold: the first pending NMI is held by its skid to the end of the
	// running time advance (see holdNMI); nothing is delivered meanwhile.
	nmiHold    bool
	irqWork    []func(c *CPU)
	irqWorkIPI bool // the irq_work self-IPI is pending
	// held: names of irqs a scenario holds back until its label (HoldIRQ,
	// expedite.go); a held irq is delivered only once expedited (Now).
	held []heldIRQ

	attn bool // a step point must look around (see updateAttn)

	lastStep string // the label of the last step point this CPU passed (LastStep)

	spinner *Thread // the thread in SpinUntil's wait, which Kick ends (spin.go)

	offline bool     // !cpu_online() (hotplug.go)
	owned   []*Timer // the timers on this CPU, armed or not (hotplug.go)
	// ranged: the hrtimers armed with a slack range since the last
	// expiry walk (hrtimer.go); some may have fired or been cancelled.
	ranged []*Timer

	// Counters, exported as observables.
	Steps uint64
	NMIs  uint64
	IRQs  uint64
	// Busy is the time this CPU spent executing (threads and handlers).
	Busy sim.Duration
}

// Machine returns the machine c belongs to.
func (c *CPU) Machine() *Machine { return c.m }

// Now returns the current virtual time.
func (c *CPU) Now() sim.Time { return c.eng.Now() }

// Curr returns the thread running on c.
func (c *CPU) Curr() *Thread { return c.curr }

// Context returns the innermost context executing on c.
func (c *CPU) Context() Context {
	switch {
	case c.inNMI:
		return CtxNMI
	case c.inIRQ:
		return CtxIRQ
	}
	return CtxTask
}

// InNMI reports in_nmi().
func (c *CPU) InNMI() bool { return c.inNMI }

// InIRQ reports hard irq context (not NMI).
func (c *CPU) InIRQ() bool { return c.inIRQ }

// IrqsDisabled reports irqs_disabled().
func (c *CPU) IrqsDisabled() bool { return !c.irqsOn }

func (c *CPU) nmiDeliverable() bool { return len(c.pendingNMI) > 0 && !c.inNMI && !c.nmiHold }
func (c *CPU) irqDeliverable() bool {
	return len(c.pendingIRQ) > 0 && c.irqsOn && !c.inIRQ && !c.inNMI && !c.nmiHold && (len(c.held) == 0 || c.nextIRQ() >= 0)
}

func (c *CPU) updateAttn() {
	c.attn = c.nmiDeliverable() || c.irqDeliverable() || len(c.m.stepHooks) > 0 || c.eng.Trace.Steps
}

// Step is a step point: a place where the kernel can be interrupted or overlapped
// by another CPU and it matters. When nothing else can happen it costs a counter
// increment and a branch; otherwise the Chooser decides whether a pending NMI or irq
// is taken here, or another CPU due at the same instant runs first.
func (c *CPU) Step(label string) {
	c.Steps++
	c.lastStep = label
	if !c.attn {
		// Nothing to look around for (no pending interrupt, no step
		// hook, no traced steps), only, when contended, other CPUs due
		// at this instant: a decision between going on and the tied
		// CPUs. With many CPUs in lock step that is nearly every step
		// point, and once the Chooser has settled (sim.Settler) the
		// engine counts and passes it without building it (PassTied),
		// called from here, not from a function of its own: a call less
		// at 15 step points a syscall.
		if c.eng.Contended() && !c.eng.PassTied() {
			c.stepSlow(label)
		}
		return
	}
	c.stepSlow(label)
}

// LastStep is the label of the last step point this CPU passed: where its
// code was, for the reports of the oracles (a use after free's two places).
func (c *CPU) LastStep() string { return c.lastStep }

func (c *CPU) stepSlow(label string) {
	tr := c.eng.Trace
	if tr.Steps {
		c.m.note(c, sim.KStep, label, c.Context().String(), 0)
	}
	for _, h := range c.m.stepHooks {
		h(c, label)
	}
	for c.nmiDeliverable() && c.pendingNMI[0].Now {
		c.deliverNMI()
	}
	for c.irqDeliverable() && c.pendingIRQ[0].Now {
		c.deliverIRQ()
	}
	n := 1
	nmi := c.nmiDeliverable()
	if nmi {
		n++
	}
	irq := c.irqDeliverable()
	if irq {
		n++
	}
	ties := 0
	if c.eng.Contended() {
		ties = c.eng.TiedCount()
		n += ties
	}
	if n == 1 {
		return
	}
	var d int
	if c.eng.Pass() {
		return // the answer is 0: no list of agents, no question
	}
	if c.eng.WantsAgents() {
		// Who each option lets run: this CPU, its NMI, its irq, the tied CPUs.
		ag := append(c.agents[:0], sim.CPUAgent(c.ID))
		if nmi {
			ag = append(ag, sim.NMIAgent(c.ID))
		}
		if irq {
			ag = append(ag, sim.IRQAgent(c.ID))
		}
		if ties > 0 {
			ag = c.eng.AppendTiedAgents(ag)
		}
		c.agents = ag
		d = c.eng.ChooseAgents(label, ag)
	} else {
		d = c.eng.Choose(n, label) // a strategy that draws a number: no list of agents
	}
	if d == 0 {
		return
	}
	if nmi {
		if d == 1 {
			c.m.note(c, sim.KChoice, label, "nmi "+c.pendingNMI[0].Name, 0)
			c.deliverNMI()
			return
		}
		d--
	}
	if irq {
		if d == 1 {
			c.m.note(c, sim.KChoice, label, "irq "+c.pendingIRQ[c.nextIRQ()].Name, 0)
			c.deliverIRQ()
			return
		}
		d--
	}
	next := c.eng.TiedLane(d - 1)
	c.m.note(c, sim.KChoice, label, "run "+next.Name, 0)
	c.eng.SwitchTo(next)
	c.resumeAt = c.eng.Now()
	c.yield()
}

// yield suspends the running thread's coroutine, handing the CPU back to the
// engine, or straight to the thread of the lane the engine picks next (handoff.go).
func (c *CPU) yield() {
	c.updateNext()
	c.nextSet = true // nothing runs on c between here and run's end: its next stands
	if next := c.handoff(); next != nil {
		c.curr.co.YieldTo(next.co)
		return
	}
	c.curr.co.Yield()
}

func (c *CPU) updateNext() {
	t := c.resumeAt
	if n := c.timers.Next(); n < t {
		t = n
	}
	if len(c.pendingNMI) > 0 || len(c.pendingIRQ) > 0 {
		// Pending interrupts are seen the next time the thread looks; a waiting
		// thread is woken to take them now.
		if now := c.eng.Now(); t > now && c.wakeable() {
			t = now
		}
	}
	c.eng.SetNext(c.lane, t)
}

// wakeable reports whether a pending interrupt could be delivered if the waiting
// thread were resumed now.
func (c *CPU) wakeable() bool { return c.nmiDeliverable() || c.irqDeliverable() }

// run is the engine's entry into this CPU: fire due timers, then resume the current
// thread (and, after a context switch, the next one) until it yields.
func (c *CPU) run() {
	now := c.eng.Now()
	if now < c.clock {
		sim.Crash("cpu%d clock went backwards: %s after %s", c.ID, now, c.clock)
	}
	c.setClock(now)
	if c.m.seg != nil {
		c.m.boundary(c, BoundaryResume, "") // the timers fire in the resumed lane's fragment
	}
	for t := c.timers.PopDue(now); t != nil; t = c.timers.PopDue(now) {
		t.Fire()
	}
	for {
		th := c.curr
		c.beforeResume(th)
		if c.m.seg != nil {
			c.m.boundary(c, BoundaryResume, "")
		}
		th.co.Resume()
		// The thread may have handed the run on to other CPUs (handoff):
		// the run that ended is the engine's running lane's. None: the
		// thread that came back ended its run in its yield, having picked
		// the next lane for the engine to run.
		l := c.eng.Running()
		if l == nil {
			return
		}
		if l != c.lane {
			c = c.m.CPUs[l.ID]
			th = c.ran
		}
		if c.switched {
			continue
		}
		if th.co.Done() && c.curr == th {
			sim.Crash("thread %s returned while current on cpu%d", th.Name, c.ID)
		}
		break
	}
	if !c.nextSet { // a thread that returned, or yielded other than through yield
		c.updateNext()
	}
}

// setClock starts c's run at now (run, and a handoff to c).
func (c *CPU) setClock(now sim.Time) {
	c.clock = now
	c.updateAttn()
}

// beforeResume is what a run does before it resumes th on c (run, and a
// handoff to c): nothing switched, no next time set or asked for yet.
func (c *CPU) beforeResume(th *Thread) {
	c.switched, c.nextSet = false, false
	c.resumeAt = sim.Never
	c.ran = th
}

// waitUntil suspends the running thread until t (or until an interrupt arrives).
// When no other CPU and none of c's timers is due before t, the clock jumps
// there without a coroutine switch (the fast path of a time advance).
func (c *CPU) waitUntil(t sim.Time) {
	if t != sim.Never && c.timers.Next() > t && !c.wakeable() && c.eng.TryAdvance(c.lane, t) {
		c.clock = t
		return
	}
	c.resumeAt = t
	c.yield()
}

// TakeInterrupts delivers every deliverable pending interrupt, NMIs first. It
// reports whether it delivered any.
func (c *CPU) TakeInterrupts() bool {
	took := false
	for {
		switch {
		case c.nmiDeliverable():
			c.deliverNMI()
		case c.irqDeliverable():
			c.deliverIRQ()
		default:
			return took
		}
		took = true
	}
}

func (c *CPU) deliverNMI() {
	it := c.pendingNMI[0]
	c.pendingNMI = popInterrupt(c.pendingNMI, 0)
	c.NMIs++
	c.runHandler(&c.inNMI, "nmi", it)
	// An irq raised by the NMI (irq_work's self-IPI) is taken as soon as the NMI
	// returns into a context with irqs on.
	for c.irqDeliverable() {
		c.deliverIRQ()
	}
}

func (c *CPU) deliverIRQ() {
	i := c.nextIRQ()
	it := c.pendingIRQ[i]
	c.pendingIRQ = popInterrupt(c.pendingIRQ, i)
	c.IRQs++
	c.runHandler(&c.inIRQ, "irq", it)
}

// popInterrupt removes q[i], keeping the order and the backing array (a
// queue re-sliced from the front allocated anew on every raise after a
// delivery).
func popInterrupt(q []Interrupt, i int) []Interrupt {
	n := len(q) - 1
	copy(q[i:], q[i+1:])
	q[n] = Interrupt{}
	return q[:n]
}

// runHandler runs an interrupt handler on top of the interrupted context: the
// context flag set and irqs off while it runs, entry and exit in the trace.
func (c *CPU) runHandler(in *bool, kind string, it Interrupt) {
	saved := c.irqsOn
	*in, c.irqsOn = true, false
	c.updateAttn()
	c.m.note(c, sim.KEnter, kind, it.Name, 0)
	if c.m.seg != nil { // the label is built only for a listener: handlers run on every interrupt
		c.m.boundary(c, BoundaryEnter, "enter:"+it.Name)
	}
	c.m.touch(c, "pending", true) // taken off the pending list: what the step points that follow offer changes
	c.Acquire(&c.ipi)
	it.Fn(c)
	c.m.note(c, sim.KExit, kind, it.Name, 0)
	*in, c.irqsOn = false, saved
	c.updateAttn()
	c.m.boundary(c, BoundaryExit, "")
}

// RaiseNMI makes an NMI pending on c. It is delivered at a step point chosen by
// the Chooser, or at the latest when c's running context next advances time or
// returns to user mode; NMIs never nest.
func (c *CPU) RaiseNMI(it Interrupt) {
	if c.offline && c.dropOffline(it) {
		return
	}
	c.m.post(c)
	c.pendingNMI = append(c.pendingNMI, it)
	c.kick()
}

// RaiseIRQ makes an irq pending on c; it is delivered only where irqs are on.
func (c *CPU) RaiseIRQ(it Interrupt) {
	if c.offline && c.dropOffline(it) {
		return
	}
	c.m.post(c)
	c.pendingIRQ = append(c.pendingIRQ, it)
	c.kick()
}

// kick makes a waiting c look at its pending interrupts now.
func (c *CPU) kick() {
	c.updateAttn()
	if c.eng.Running() != c.lane {
		if c.wakeable() && c.lane.Next() > c.eng.Now() {
			c.eng.SetNext(c.lane, c.eng.Now())
		}
	}
}

// IrqWorkQueue queues fn to run in irq context on c: irq_work_queue(). From an NMI
// it runs at the next point where irqs are on.
func (c *CPU) IrqWorkQueue(fn func(c *CPU)) {
	c.m.post(c)
	c.irqWork = append(c.irqWork, fn)
	if !c.irqWorkIPI {
		c.irqWorkIPI = true
		c.RaiseIRQ(Interrupt{Name: "irq_work", Fn: irqWorkRun})
	}
}

// irqWorkRun is the irq_work IPI handler: irq_work_run().
func irqWorkRun(c *CPU) {
	c.irqWorkIPI = false
	for len(c.irqWork) > 0 {
		fn := c.irqWork[0]
		c.irqWork = c.irqWork[1:]
		fn(c)
	}
}

// LocalIrqSave disables irqs and returns the previous state: local_irq_save().
func (c *CPU) LocalIrqSave() bool {
	f := c.irqsOn
	c.irqsOn = false
	c.updateAttn()
	return f
}

// LocalIrqRestore restores the irq state; pending irqs are taken at once if irqs
// come back on: local_irq_restore().
func (c *CPU) LocalIrqRestore(flags bool) {
	c.irqsOn = flags
	c.updateAttn()
	for c.irqDeliverable() {
		c.deliverIRQ()
	}
}

// PreemptDisable increments preempt_count.
func (c *CPU) PreemptDisable() { c.preempt++ }

// PreemptEnable decrements preempt_count.
func (c *CPU) PreemptEnable() {
	c.preempt--
	if c.preempt < 0 {
		sim.Crash("preempt_count underflow on cpu%d", c.ID)
	}
}

// PreemptCount returns preempt_count.
func (c *CPU) PreemptCount() int { return c.preempt }

// Spend advances c's clock by d in the running irq or NMI handler (or task code
// that cannot be migrated meanwhile): the handler is busy for d. Interrupts that
// may nest are taken at each time advance.
func (c *CPU) Spend(d sim.Duration) {
	held := false
	for d > 0 {
		c.TakeInterrupts()
		start := c.eng.Now()
		c.waitUntil(start + d)
		ran := c.eng.Now() - start
		d -= ran
		c.Busy += ran
		held = held || c.holdNMI(d)
	}
	c.releaseNMI(held)
}

// holdNMI is asked when a time advance was cut short with rest still to run:
// if the NMI that fell due meanwhile has a skid of at least rest, the Chooser
// decides ("nmi-skid") whether it is taken at once (0) or held to the end of
// the advance (1), where the step points that follow may take it and the next
// time advance must. While it is held c takes nothing (NMIs never nest, and
// no irq overtakes the NMI). It reports whether it held the NMI; only the
// Spend that held it releases it (releaseNMI).
func (c *CPU) holdNMI(rest sim.Duration) bool {
	if rest <= 0 || !c.nmiDeliverable() {
		return false
	}
	it := &c.pendingNMI[0]
	if it.Skid <= 0 || it.Now || rest > it.Skid {
		return false
	}
	// Option 0 lets the NMI in now, option 1 lets this CPU run on.
	c.agents = append(c.agents[:0], sim.NMIAgent(c.ID), sim.CPUAgent(c.ID))
	if c.eng.ChooseAgents("nmi-skid", c.agents) == 0 {
		return false
	}
	c.m.note(c, sim.KChoice, "nmi-skid", "hold nmi "+it.Name, 1)
	c.nmiHold = true
	c.updateAttn()
	return true
}

// releaseNMI ends the hold the current time advance set, if held: the NMI is
// pending at the step points that follow.
func (c *CPU) releaseNMI(held bool) {
	if held {
		c.nmiHold = false
		c.updateAttn()
	}
}

// Timer is a per-CPU timed event that raises an interrupt (hrtimer, tick, a
// counter overflow's NMI) when it fires.
type Timer struct {
	c   *CPU
	t   *sim.Timer
	NMI bool
	it  Interrupt
	// hr: an hrtimer of the CPU's hrtimer base (NewHRTimer); soft is its
	// soft expiry, t.When its hard one (hrtimer.go).
	hr   bool
	soft sim.Time
}

// NewTimer returns an unarmed timer on c that raises it (as an NMI if nmi).
func (c *CPU) NewTimer(nmi bool, it Interrupt) *Timer {
	tm := &Timer{c: c, NMI: nmi, it: it}
	tm.t = sim.NewTimer(it.Name, tm.fire)
	c.owned = append(c.owned, tm)
	return tm
}

func (tm *Timer) fire() { tm.raise() }

// raise notes the expiry and raises the timer's interrupt.
func (tm *Timer) raise() {
	tm.c.m.note(tm.c, sim.KTimer, tm.it.Name, "", 0)
	if tm.NMI {
		tm.c.RaiseNMI(tm.it)
	} else {
		tm.c.RaiseIRQ(tm.it)
	}
}

// Arm (re)arms the timer at when (not before now), with no slack.
func (tm *Timer) Arm(when sim.Time) {
	if now := tm.c.eng.Now(); when < now {
		when = now
	}
	tm.arm(when, when)
}

// arm queues the timer at its hard expiry when, soft its soft one (a
// range, soft < when, puts it among the CPU's ranged timers: hrtimer.go).
func (tm *Timer) arm(soft, when sim.Time) {
	tm.soft = soft
	if soft < when && !slices.Contains(tm.c.ranged, tm) {
		tm.c.ranged = append(tm.c.ranged, tm)
	}
	tm.c.m.post(tm.c)
	tm.c.timers.Add(tm.t, when)
	if tm.c.eng.Running() != tm.c.lane && when < tm.c.lane.Next() {
		tm.c.eng.SetNext(tm.c.lane, when)
	}
}

// Cancel disarms the timer. Like Arm, it posts to the timer's CPU: a cancel
// from another CPU changes what that CPU's next step point finds queued, so
// the footprint walks hear it as contention with the expiry it may forestall
// (and the race detector as the timer base lock's release), whether or not
// the timer is still queued: the expiry may come before it or after.
func (tm *Timer) Cancel() {
	tm.c.m.post(tm.c)
	tm.c.timers.Remove(tm.t)
}

// Armed reports whether the timer is queued, and when.
func (tm *Timer) Armed() (bool, sim.Time) { return tm.t.Queued(), tm.t.When }

// CPU returns the timer's CPU.
func (tm *Timer) CPU() *CPU { return tm.c }
