package pmu

import (
	"strings"

	"perfsim/cpu"
	"perfsim/sim"
	"perfsim/uapi"
)

// swPMU is perf_swevent: the PERF_TYPE_SOFTWARE events counted by calls
// placed in the kernel (context-switches, cpu-migrations, ...), found through
// a per-CPU list of the events ACTIVE there (swevent_htable).
type swPMU struct {
	pmuBase
	noAux
	k      *Kernel
	active [][uapi.PERF_COUNT_SW_MAX][]*Event // per CPU, per config
}

func newSwPMU(k *Kernel) *swPMU {
	return &swPMU{pmuBase: pmuBase{isSoftware: true}, k: k, active: make([][uapi.PERF_COUNT_SW_MAX][]*Event, len(k.M.CPUs))}
}

func (p *swPMU) Name() string         { return "software" }
func (p *swPMU) Type() uint32         { return uapi.PERF_TYPE_SOFTWARE }
func (p *swPMU) Capabilities() uint32 { return PERF_PMU_CAP_NO_NMI }

// EventInit accepts the counting software events; cpu-clock and task-clock
// are retargeted at their own PMUs (ENOENT with a new attr.type).
// kernel/events/core.c: perf_swevent_init()
func (p *swPMU) EventInit(e *Event) error {
	if e.Attr.Type != uapi.PERF_TYPE_SOFTWARE {
		return uapi.ENOENT
	}
	if e.Attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		return uapi.EOPNOTSUPP // no branch sampling for software events
	}
	switch e.Attr.Config {
	case uapi.PERF_COUNT_SW_CPU_CLOCK:
		e.Attr.Type = p.k.cpuClock.typ
		return uapi.ENOENT
	case uapi.PERF_COUNT_SW_TASK_CLOCK:
		e.Attr.Type = p.k.taskClock.typ
		return uapi.ENOENT
	}
	if e.Attr.Config >= uapi.PERF_COUNT_SW_MAX {
		return uapi.ENOENT
	}
	return nil
}

// Add puts the event on this CPU's list.
// kernel/events/core.c: perf_swevent_add()
func (p *swPMU) Add(c *cpu.CPU, e *Event, flags int) error {
	p.k.accessEventHW(c, e, "perf_swevent_add")
	if e.isSampling() {
		e.hw.lastPeriod = e.hw.samplePeriod
		perfSweventSetPeriod(e)
	}
	e.hw.state = 0
	if flags&PERF_EF_START == 0 {
		e.hw.state = PERF_HES_STOPPED
	}
	l := &p.active[c.ID][e.Attr.Config]
	if p.k.M.FootprintListening() {
		c.AccessMarkedOnly(swHlistKey{p, c.ID}, "swevent_htable->hlist", cpu.MarkedWrite, "perf_swevent_add") // kernel/events/core.c: perf_swevent_add(): hlist_add_head_rcu(&event->hlist_entry, head)
	}
	*l = append(*l, e)
	return nil
}

// Del is perf_swevent_del().
func (p *swPMU) Del(c *cpu.CPU, e *Event, flags int) {
	l := &p.active[c.ID][e.Attr.Config]
	if p.k.M.FootprintListening() {
		c.AccessMarkedOnly(swHlistKey{p, c.ID}, "swevent_htable->hlist", cpu.MarkedWrite, "perf_swevent_del") // kernel/events/core.c: perf_swevent_del(): hlist_del_rcu(&event->hlist_entry)
	}
	*l = remove(*l, e)
}

func (p *swPMU) Start(c *cpu.CPU, e *Event, flags int) { e.hw.state = 0 }
func (p *swPMU) Stop(c *cpu.CPU, e *Event, flags int)  { e.hw.state = PERF_HES_STOPPED }

// perfSwEventSched counts a scheduler software event on c with the caller's
// kernel regs.
// include/linux/perf_event.h: __perf_sw_event_sched() -> ___perf_sw_event()
func (k *Kernel) perfSwEventSched(c *cpu.CPU, config int) {
	l := k.swPMU.active[c.ID][config]
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(swHlistKey{k.swPMU, c.ID}, "swevent_htable->hlist", cpu.MarkedRead, "perf_sw_event_sched") // kernel/events/core.c: do_perf_sw_event(): head = find_swevent_head_rcu(swhash, type, event_id)
	}
	if len(l) == 0 {
		return
	}
	// The walk, perf_swevent_event() and its overflow are annotated
	// (footprint_overflow.go).
	listening := k.M.FootprintListening()
	if listening {
		k.accessInterruptedRegs(c)
	}
	r := k.interruptedRegs(c)
	r.user = false
	r.ip = k.ipSchedule
	for i := 0; i < len(l); i++ {
		e := l[i]
		if listening {
			c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedRead, "perf_swevent_match") // core.c: perf_swevent_match(): if (event->hw.state & PERF_HES_STOPPED) return 0
		}
		if e.hw.state&PERF_HES_STOPPED != 0 {
			continue
		}
		var data perfSampleData
		k.perfSweventEventAt(c, e, 1, &data, &r)
		if listening {
			c.AccessMarkedOnly(swHlistKey{k.swPMU, c.ID}, "swevent_htable->hlist", cpu.MarkedRead, "do_perf_sw_event") // core.c: do_perf_sw_event(): hlist_for_each_entry_rcu(event, head, hlist_entry)
		}
		l = k.swPMU.active[c.ID][config]
	}
}

// clockPMU is perf_cpu_clock / perf_task_clock: an hrtimer per event fires
// every sample_period ns and samples in irq context.
type clockPMU struct {
	pmuBase
	noAux
	k    *Kernel
	name string
	typ  uint32
	cfg  uint64
}

func (p *clockPMU) Name() string         { return p.name }
func (p *clockPMU) Type() uint32         { return p.typ }
func (p *clockPMU) Capabilities() uint32 { return PERF_PMU_CAP_NO_NMI }

// EventInit accepts the retargeted event and sets up the hrtimer period
// (at least 10us; freq mode becomes a fixed period NSEC_PER_SEC/freq).
// kernel/events/core.c: cpu_clock_event_init(), perf_swevent_init_hrtimer()
func (p *clockPMU) EventInit(e *Event) error {
	if e.Attr.Type != p.typ || e.Attr.Config != p.cfg {
		return uapi.ENOENT
	}
	if e.Attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		return uapi.EOPNOTSUPP
	}
	if !e.isSampling() {
		return nil
	}
	hwc := &e.hw
	if e.Attr.Freq {
		hz := e.Attr.SampleFreq()
		e.Attr.SamplePeriod = uint64(sim.Second) / hz
		e.Attr.Freq = false
		hwc.samplePeriod = e.Attr.SamplePeriod
	}
	// The period stays as asked (it is the samples' period); the timer
	// is set to at least 10us (perf_swevent_start_hrtimer()).
	hwc.lastPeriod = hwc.samplePeriod
	hwc.periodLeft = int64(hwc.samplePeriod) // perf_event_alloc()
	return nil
}

// Add starts the clock on c.
// kernel/events/core.c: cpu_clock_event_add()
func (p *clockPMU) Add(c *cpu.CPU, e *Event, flags int) error {
	p.accessClock(c, e, "cpu_clock_event_add")
	e.hw.timerCPU = c.ID
	if flags&PERF_EF_START != 0 {
		p.Start(c, e, flags)
	} else {
		e.hw.state = PERF_HES_STOPPED
	}
	return nil
}

// Del is cpu_clock_event_del(): stop with an update.
func (p *clockPMU) Del(c *cpu.CPU, e *Event, flags int) {
	p.accessClock(c, e, "cpu_clock_event_del")
	p.Stop(c, e, PERF_EF_UPDATE)
}

// Start starts counting and the hrtimer: for what was left of the period
// when it stopped (10us if that had run out), else a whole period of at
// least 10us.
// kernel/events/core.c: cpu_clock_event_start() -> perf_swevent_start_hrtimer()
func (p *clockPMU) Start(c *cpu.CPU, e *Event, flags int) {
	e.hw.state = 0
	e.hw.startTime = c.Now()
	e.hw.running = true
	if !e.isSampling() {
		return
	}
	period := e.hw.periodLeft
	if period != 0 {
		if period < 0 {
			period = 10000
		}
		e.hw.periodLeft = 0
	} else {
		period = int64(max(10000, e.hw.samplePeriod))
	}
	p.arm(c, e, sim.Duration(period))
}

// Stop marks the event stopped, cancels the hrtimer unless the event is
// throttled (its callback, seeing PERF_HES_STOPPED, will not restart it),
// remembering how much of the period is left, and folds the elapsed time into
// the count. The cancel is hrtimer_try_to_cancel(): Stop may run inside the
// event's own hrtimer callback (__perf_event_overflow()'s event_limit stop),
// where hrtimer_cancel() would wait for itself; before eb3182ef0405 (knob
// cpu-clock-stop) it did, and the CPU locked up.
// kernel/events/core.c: cpu_clock_event_stop() -> perf_swevent_cancel_hrtimer()
func (p *clockPMU) Stop(c *cpu.CPU, e *Event, flags int) {
	if e.hw.running && flags&PERF_EF_UPDATE != 0 {
		p.update(c, e)
	}
	e.hw.running = false
	e.hw.state = PERF_HES_STOPPED
	if !e.isSampling() || e.hw.interrupts == maxInterrupts {
		return
	}
	if e.hw.inHrtimer && p.k.KnobIs(cpuClockStopKnob.Name, "pre-eb3182ef0405") {
		sim.Crash("watchdog: Watchdog detected hard LOCKUP on cpu %d: hrtimer_cancel() in %s_event_stop() waits for "+
			"perf_swevent_hrtimer(), the callback it was called from (__perf_event_overflow(): event_limit reached)", c.ID, strings.TrimPrefix(p.name, "perf_"))
	}
	e.hw.periodLeft = int64(e.hw.expires - c.Now()) // hrtimer_get_remaining(): <= 0 once it fired
	if tm := e.hw.timer; tm != nil {
		tm.Cancel() // hrtimer_try_to_cancel(): a no-op from the callback itself
	}
}

// arm sets the event's hrtimer to fire in d.
func (p *clockPMU) arm(c *cpu.CPU, e *Event, d sim.Duration) {
	e.hw.expires = c.Now() + sim.Time(d)
	p.timer(c, e).Arm(e.hw.expires + p.late(c, e))
}

// late is how late the interrupt of the expiry just set runs: a period
// (the next expiry's time, which hrtimer_forward_now() then skips) for the
// cost profile's HrtimerLatePerMillion of them, else on time. The hrtimer's
// expiry (e.hw.expires) stays where it was set: only its interrupt is late.
func (p *clockPMU) late(c *cpu.CPU, e *Event) sim.Duration {
	e.hw.armed++
	if p.k.S.Cfg.Cost.HrtimerLate(c.ID, e.id<<32^e.hw.armed) {
		return sim.Duration(max(10000, e.hw.samplePeriod))
	}
	return 0
}

// forwardNow moves the expiry by whole periods to the first one after now
// and re-arms: a callback that ran late (irqs off, or its own cost) keeps
// the timer on its grid of periods, it does not restart the period from now.
// kernel/time/hrtimer.c: hrtimer_forward_now() -> hrtimer_forward()
func (p *clockPMU) forwardNow(c *cpu.CPU, e *Event, d sim.Duration) {
	exp, now := e.hw.expires+sim.Time(d), c.Now()
	if exp <= now {
		exp += (now-exp)/sim.Time(d)*sim.Time(d) + sim.Time(d)
	}
	e.hw.expires = exp
	p.timer(c, e).Arm(exp + p.late(c, e))
}

// update is cpu_clock_event_update(): count += now - prev.
func (p *clockPMU) update(c *cpu.CPU, e *Event) {
	now := c.Now()
	e.count += int64(now - e.hw.startTime)
	e.hw.startTime = now
}

func (p *clockPMU) Read(c *cpu.CPU, e *Event) {
	if e.hw.running {
		p.update(c, e)
	}
}

// timer returns the event's hrtimer on c.
func (p *clockPMU) timer(c *cpu.CPU, e *Event) *cpu.Timer {
	if tm := e.hw.timer; tm != nil && tm.CPU() == c {
		return tm
	}
	if e.hw.timer != nil {
		p.accessOldTimer(c, e.hw.timer)
		e.hw.timer.Cancel()
	}
	e.hw.timer = c.NewHRTimer(cpu.Interrupt{Name: "perf_swevent_hrtimer", Fn: func(c *cpu.CPU) { p.hrtimer(c, e) }})
	return e.hw.timer
}

// hrtimer is the hrtimer callback: update the count, sample the interrupted
// context, re-arm unless the overflow asked to stop.
// kernel/events/core.c: perf_swevent_hrtimer()
func (p *clockPMU) hrtimer(c *cpu.CPU, e *Event) {
	if p.k.M.FootprintListening() {
		accessHrtimerState(c, e) // footprint_overflow.go
	}
	if e.state != StateActive || e.oncpu != c.ID || !e.hw.running {
		return // HRTIMER_NORESTART: the event left this CPU or is stopped
	}
	if d := p.k.S.Cfg.Cost.HrtimerSample; d > 0 {
		c.Spend(d) // irq entry, hrtimer_interrupt(), perf_swevent_hrtimer() (cost.Profile.HrtimerSample)
	}
	if p.k.M.FootprintListening() {
		p.k.accessHrtimerEntry(c, e) // footprint_overflow.go
	}
	e.hw.inHrtimer = true
	defer func() { e.hw.inHrtimer = false }()
	p.update(c, e)
	r := p.k.interruptedRegs(c)
	if !(e.Attr.ExcludeIdle && r.task == nil) && !(e.Attr.ExcludeUser && r.user) && !(e.Attr.ExcludeKernel && !r.user) {
		data := perfSampleData{period: e.hw.lastPeriod}
		ret := p.k.eventOverflow(c, e, true, &data, &r)
		if p.k.M.FootprintListening() {
			p.k.accessHrtimerRearm(c, e) // footprint_overflow.go
		}
		if ret != 0 {
			return
		}
	}
	if e.hw.running { // hrtimer_forward_now(hrtimer, max(10000, sample_period))
		p.forwardNow(c, e, sim.Duration(max(10000, e.hw.samplePeriod)))
	}
}

// cpuClockStopKnob is how cpu_clock_event_stop()/task_clock_event_stop() stop
// the hrtimer.
var cpuClockStopKnob = sim.KnobSpec{
	Name:   "cpu-clock-stop",
	Values: []string{"today", "pre-eb3182ef0405"},
	Help: "cpu-clock/task-clock pmu->stop: today PERF_HES_STOPPED and hrtimer_try_to_cancel(), the callback returning HRTIMER_NORESTART " +
		"when it sees STOPPED; before: hrtimer_cancel(), which from the event's own hrtimer callback (an event_limit set by " +
		"PERF_EVENT_IOC_REFRESH running out in __perf_event_overflow(), which stops the event since v6.17) waits for itself: a hard lockup",
	Source:  "eb3182ef0405 perf/core: Fix system hang caused by cpu-clock usage (v6.18)",
	Package: "pmu",
}

func init() { KnobSpecs = append(KnobSpecs, cpuClockStopKnob) }
