package pmu

import (
	"perfsim/cpu"
	"perfsim/sim"
	"perfsim/uapi"
)

// hwPMU is the x86 core PMU ("cpu", type PERF_TYPE_RAW) reduced to what the
// core sees: a few general-purpose counters per CPU that advance with time
// while enabled, and raise an NMI when one of them overflows.
type hwPMU struct {
	pmuBase
	noAux
	k    *Kernel
	cpuc []cpuHwEvents
}

// cpuHwEvents is struct cpu_hw_events.
type cpuHwEvents struct {
	events  []*Event // events[idx]: the event on counter idx
	active  []bool   // active_mask
	pebs    []bool   // MSR_IA32_PEBS_ENABLE: precise events sample through the PEBS drain
	enabled bool     // the global enable (x86_pmu_enable/disable)
	// user: the CPU runs in user mode (CPL 3), as the counters' USR/OS bits
	// (attr exclude_user/exclude_kernel) see it; pmu_hw_mode.go keeps it.
	user bool
	nmi  cpu.Interrupt
	cpu  int // its CPU (FootprintKey)
}

func newHwPMU(k *Kernel) *hwPMU {
	p := &hwPMU{k: k, cpuc: make([]cpuHwEvents, len(k.M.CPUs))}
	n := k.Opts.HW.Counters
	if n <= 0 {
		n = 4
	}
	for i := range p.cpuc {
		p.cpuc[i] = cpuHwEvents{cpu: i, events: make([]*Event, n), active: make([]bool, n), pebs: make([]bool, n), enabled: true,
			nmi: cpu.Interrupt{Name: "PMI", Fn: func(c *cpu.CPU) { k.timedPMI(c, p.handleIRQ) }, Skid: k.Opts.HW.Skid}}
	}
	return p
}

func (p *hwPMU) Name() string { return "cpu" }
func (p *hwPMU) Type() uint32 { return uapi.PERF_TYPE_RAW }

// EventInit accepts cycles, instructions and ref-cycles (and raw events,
// counted like cycles) and sets up the period.
// arch/x86/events/core.c: x86_pmu_event_init() -> __x86_pmu_event_init()
func (p *hwPMU) EventInit(e *Event) error {
	a := &e.Attr
	switch a.Type {
	case uapi.PERF_TYPE_HARDWARE:
		switch a.Config & uapi.PERF_HW_EVENT_MASK {
		case uapi.PERF_COUNT_HW_CPU_CYCLES, uapi.PERF_COUNT_HW_REF_CPU_CYCLES:
			e.hw.rate = p.k.Opts.HW.CyclesPerNs
		case uapi.PERF_COUNT_HW_INSTRUCTIONS:
			e.hw.rate = p.k.Opts.HW.InstructionsPerNs
		default:
			if a.Config&uapi.PERF_HW_EVENT_MASK >= uapi.PERF_COUNT_HW_MAX {
				return uapi.EINVAL
			}
			return uapi.ENOENT // not mapped on this model CPU
		}
	case uapi.PERF_TYPE_RAW:
		e.hw.rate = p.k.Opts.HW.CyclesPerNs
	default:
		return uapi.ENOENT
	}
	if a.PreciseIP > p.k.Opts.HW.MaxPrecise {
		return uapi.EOPNOTSUPP
	}
	e.hw.idx = -1
	e.hw.config = a.Config
	if e.hw.rate <= 0 {
		e.hw.rate = 1
	}
	return nil
}

// raw is the counter value now.
func (p *hwPMU) raw(c *cpu.CPU, e *Event) int64 {
	if cc := &p.cpuc[c.ID]; !e.hw.running || !cc.enabled || !counts(e, cc.user) {
		return e.hw.raw
	}
	return e.hw.raw + int64(c.Now()-e.hw.startTime)*e.hw.rate
}

// freeze folds the elapsed ticks into hw.raw (the counter stops or restarts).
func (p *hwPMU) freeze(c *cpu.CPU, e *Event) {
	e.hw.raw = p.raw(c, e)
	e.hw.startTime = c.Now()
}

// update folds the counter's progress into event->count and period_left.
// arch/x86/events/core.c: x86_perf_event_update()
func (p *hwPMU) update(c *cpu.CPU, e *Event) int64 {
	n := p.raw(c, e)
	delta := n - e.hw.prevCount
	e.hw.prevCount = n
	e.count += delta
	e.hw.periodLeft -= delta
	return n
}

// setPeriod programs the counter for the next overflow: -left.
// arch/x86/events/core.c: x86_perf_event_set_period()
func (p *hwPMU) setPeriod(c *cpu.CPU, e *Event) bool {
	hwc := &e.hw
	left, period := hwc.periodLeft, int64(hwc.samplePeriod)
	ret := false
	if period == 0 {
		return false
	}
	if left <= -period {
		left = period
		hwc.periodLeft = left
		hwc.lastPeriod = uint64(period)
		ret = true
	}
	if left <= 0 {
		left += period
		hwc.periodLeft = left
		hwc.lastPeriod = uint64(period)
		ret = true
	}
	hwc.prevCount = p.raw(c, e)
	p.arm(c, e)
	return ret
}

// arm sets the model's overflow timer: the counter reaches 0 after
// ceil(period_left / rate) ns of counting.
func (p *hwPMU) arm(c *cpu.CPU, e *Event) {
	if cc := &p.cpuc[c.ID]; !e.isSampling() || !e.hw.running || !cc.enabled || !counts(e, cc.user) {
		if e.hw.timer != nil {
			e.hw.timer.Cancel()
		}
		return
	}
	left := e.hw.periodLeft
	if left < 1 {
		left = 1
	}
	d := (left + e.hw.rate - 1) / e.hw.rate
	tm := e.hw.timer
	if tm == nil || tm.CPU() != c {
		if tm != nil {
			tm.Cancel()
		}
		tm = c.NewTimer(true, p.cpuc[c.ID].nmi)
		e.hw.timer = tm
	}
	tm.Arm(c.Now() + sim.Duration(d))
}

// Add puts the event on a free counter.
// arch/x86/events/core.c: x86_pmu_add() (+ the counter assignment of x86_schedule_events())
func (p *hwPMU) Add(c *cpu.CPU, e *Event, flags int) error {
	p.accessCounter(c, e, "x86_pmu_add")
	cc := &p.cpuc[c.ID]
	idx := -1
	for i, x := range cc.events {
		if x == nil {
			idx = i
			break
		}
	}
	if idx < 0 {
		return uapi.EAGAIN // no counter: the group cannot go on
	}
	cc.events[idx] = e
	e.hw.idx = idx
	e.hw.state = PERF_HES_UPTODATE | PERF_HES_STOPPED
	if flags&PERF_EF_START != 0 {
		p.Start(c, e, PERF_EF_RELOAD)
	}
	return nil
}

// Del stops the counter with an update and frees it.
// arch/x86/events/core.c: x86_pmu_del()
func (p *hwPMU) Del(c *cpu.CPU, e *Event, flags int) {
	p.accessCounter(c, e, "x86_pmu_del")
	p.Stop(c, e, PERF_EF_UPDATE)
	cc := &p.cpuc[c.ID]
	if e.hw.idx >= 0 && cc.events[e.hw.idx] == e {
		cc.events[e.hw.idx] = nil
	}
	e.hw.idx = -1
}

// Start (re)programs the period on RELOAD and enables the counter.
// arch/x86/events/core.c: x86_pmu_start()
func (p *hwPMU) Start(c *cpu.CPU, e *Event, flags int) {
	if e.hw.state&PERF_HES_STOPPED == 0 || e.hw.idx < 0 {
		return
	}
	e.hw.state = 0
	e.hw.raw = p.raw(c, e)
	e.hw.startTime = c.Now()
	e.hw.running = true
	cc := &p.cpuc[c.ID]
	cc.active[e.hw.idx] = true
	// intel_pmu_enable_event(): intel_pmu_pebs_enable() before the counter.
	cc.pebs[e.hw.idx] = e.Attr.PreciseIP > 0
	if flags&PERF_EF_RELOAD != 0 {
		p.setPeriod(c, e)
	} else {
		e.hw.prevCount = p.raw(c, e)
		p.arm(c, e)
	}
}

// Stop disables the counter, then clears active_mask (so a PMI that comes
// later ignores it), and on UPDATE folds it into the count.
// arch/x86/events/core.c: x86_pmu_stop(): `if (test_bit(hwc->idx,
// cpuc->active_mask)) { x86_pmu.disable(event); __clear_bit(hwc->idx,
// cpuc->active_mask); ...` (the order since 3966c3feca3f)
func (p *hwPMU) Stop(c *cpu.CPU, e *Event, flags int) {
	cc := &p.cpuc[c.ID]
	if e.hw.idx >= 0 && cc.active[e.hw.idx] && cc.events[e.hw.idx] == e {
		p.disableEvent(c, e) // x86_pmu.disable(event): intel_pmu_disable_event()
		cc.active[e.hw.idx] = false
		e.hw.state |= PERF_HES_STOPPED
	}
	if flags&PERF_EF_UPDATE != 0 && e.hw.state&PERF_HES_UPTODATE == 0 {
		p.update(c, e)
		e.hw.state |= PERF_HES_UPTODATE
	}
}

// Read is x86_pmu_read(): update the count.
func (p *hwPMU) Read(c *cpu.CPU, e *Event) {
	if e.state == StateActive && e.oncpu == c.ID {
		p.update(c, e)
	}
}

// PMUDisable freezes every counter of the CPU.
// arch/x86/events/core.c: x86_pmu_disable()
func (p *hwPMU) PMUDisable(c *cpu.CPU) {
	p.accessCounters(c, "x86_pmu_disable")
	cc := &p.cpuc[c.ID]
	for _, e := range cc.events {
		if e != nil && e.hw.running {
			p.freeze(c, e)
			if e.hw.timer != nil {
				e.hw.timer.Cancel()
			}
		}
	}
	cc.enabled = false
}

// PMUEnable lets them count again.
// arch/x86/events/core.c: x86_pmu_enable()
func (p *hwPMU) PMUEnable(c *cpu.CPU) {
	p.accessCounters(c, "x86_pmu_enable")
	cc := &p.cpuc[c.ID]
	cc.enabled = true
	for _, e := range cc.events {
		if e != nil && e.hw.running {
			e.hw.startTime = c.Now()
			p.arm(c, e)
		}
	}
}

// handleIRQ is the PMI: for every active counter that overflowed, re-arm the
// period and take the overflow; a counter stopped meanwhile (active_mask
// clear) is not looked at.
// arch/x86/events/core.c: x86_pmu_handle_irq()
func (p *hwPMU) handleIRQ(c *cpu.CPU) {
	k := p.k
	listening := k.M.FootprintListening()
	if listening {
		k.accessStats(c, "x86_pmu_handle_irq")
		k.accessInterruptedRegs(c) // footprint_overflow.go
	}
	k.stats.pmis++
	cc := &p.cpuc[c.ID]
	r := k.interruptedRegs(c)
	for idx, e := range cc.events {
		if listening {
			p.accessPMICounter(c, cc, e, cc.active[idx]) // footprint_overflow.go
		}
		if e == nil || !cc.active[idx] {
			continue
		}
		p.update(c, e)
		if e.hw.periodLeft > 0 {
			p.arm(c, e) // not this one (yet)
			continue
		}
		if !p.setPeriod(c, e) {
			continue
		}
		data := perfSampleData{period: e.hw.lastPeriod}
		// A precise event with its PEBS bit set is sampled by the PEBS drain,
		// which sets data->callchain; without the bit it takes this generic
		// path, where a __PERF_SAMPLE_CALLCHAIN_EARLY event (precise_ip with
		// PERF_SAMPLE_CALLCHAIN, since 6cbc304f2f36) has none.
		data.noCallchain = e.Attr.PreciseIP > 0 && !cc.pebs[idx]
		if k.perfEventOverflow(c, e, &data, &r) != 0 {
			if listening {
				p.accessCounter(c, e, "x86_pmu_stop") // x86_pmu_stop(event, 0): active_mask, the counter's disable
			}
			p.Stop(c, e, 0)
		}
	}
}

// perfEventOverflow is perf_event_overflow(): __perf_event_overflow with
// throttling.
// kernel/events/core.c: perf_event_overflow()
func (k *Kernel) perfEventOverflow(c *cpu.CPU, e *Event, data *perfSampleData, r *regs) int {
	return k.eventOverflow(c, e, true, data, r)
}

// PMI returns the hardware PMU's interrupt (x86_pmu_handle_irq) as a
// cpu.Interrupt, for forced interleavings ("nmi cpu0 at LABEL").
func (k *Kernel) PMI() cpu.Interrupt { return k.hwPMU.cpuc[0].nmi }

// HWCounterEvents returns the events sitting on CPU i's counters and whether
// each is in active_mask (for oracles).
func (k *Kernel) HWCounterEvents(i int) (events []*Event, active []bool) {
	cc := &k.hwPMU.cpuc[i]
	return cc.events, cc.active
}

// Events returns every event allocated so far.
func (k *Kernel) Events() []*Event { return k.events }

// TotalTimes returns the event's total_time_enabled and total_time_running
// as of its last update.
func (e *Event) TotalTimes() (enabled, running sim.Duration) {
	return e.totalTimeEnabled, e.totalTimeRunning
}
