package pmu

import (
	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// The breakpoint PMU (PERF_TYPE_BREAKPOINT): kernel/events/hw_breakpoint.c
// (slot accounting, the PMU) over arch/x86/kernel/hw_breakpoint.c (four debug
// registers, DR0-DR3, shared by data and instruction breakpoints).

// HW_BREAKPOINT_* (include/uapi/linux/hw_breakpoint.h).
const (
	HW_BREAKPOINT_EMPTY = 0
	HW_BREAKPOINT_R     = 1
	HW_BREAKPOINT_W     = 2
	HW_BREAKPOINT_RW    = HW_BREAKPOINT_R | HW_BREAKPOINT_W
	HW_BREAKPOINT_X     = 4
)

// hbpNum is HBP_NUM: x86's debug address registers.
const hbpNum = 4

// bpPMU is perf_breakpoint.
type bpPMU struct {
	pmuBase
	noAux
	k         *Kernel
	slots     [][hbpNum]*Event // per CPU: bp_per_reg[] (this_cpu_ptr(&bp_per_reg[i]))
	cpuPinned []int            // per CPU: bp_cpuinfo.cpu_pinned (TYPE_DATA)
	tasks     map[*sched.Task][]*Event
	reserved  map[*Event]bool
}

func newBpPMU(k *Kernel) *bpPMU {
	return &bpPMU{k: k, slots: make([][hbpNum]*Event, len(k.M.CPUs)), cpuPinned: make([]int, len(k.M.CPUs)),
		tasks: map[*sched.Task][]*Event{}, reserved: map[*Event]bool{}}
}

func (p *bpPMU) Name() string { return "breakpoint" }
func (p *bpPMU) Type() uint32 { return uapi.PERF_TYPE_BREAKPOINT }
func (p *bpPMU) nrCPUs() int  { return len(p.slots) }

// EventInit reserves a slot and checks the breakpoint.
// kernel/events/hw_breakpoint.c: hw_breakpoint_event_init() -> register_perf_hw_breakpoint()
func (p *bpPMU) EventInit(e *Event) error {
	if e.Attr.Type != uapi.PERF_TYPE_BREAKPOINT {
		return uapi.ENOENT
	}
	// "no branch sampling for breakpoint events"
	if e.Attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		return uapi.EOPNOTSUPP
	}
	if err := p.reserveBpSlot(e); err != nil {
		return err
	}
	if err := archBuildBpInfo(&e.Attr); err != nil {
		p.releaseBpSlot(e)
		return err
	}
	return nil
}

// archBuildBpInfo checks bp_type, bp_len and the alignment as x86 does.
// arch/x86/kernel/hw_breakpoint.c: arch_build_bp_info(), hw_breakpoint_arch_parse()
func archBuildBpInfo(a *Attr) error {
	addr, length := a.Config1, a.Config2 // bp_addr, bp_len
	switch a.BPType {
	case HW_BREAKPOINT_W, HW_BREAKPOINT_RW:
	case HW_BREAKPOINT_X:
		// "x86 inst breakpoints need to have a specific undefined len"
		if length == 8 { // sizeof(long)
			return nil
		}
		return uapi.EINVAL
	default:
		return uapi.EINVAL // HW_BREAKPOINT_R alone: x86 has no read-only breakpoints
	}
	switch length {
	case 1, 2, 4, 8:
	default:
		// An AMD range breakpoint needs X86_FEATURE_BPEXT.
		if length == 0 || length&(length-1) != 0 || addr&(length-1) != 0 {
			return uapi.EINVAL
		}
		return uapi.EOPNOTSUPP
	}
	if addr&(length-1) != 0 { // "Check that the low-order bits of the address are appropriate for the alignment implied by len."
		return uapi.EINVAL
	}
	return nil
}

// taskBpPinned is task_bp_pinned(): the slots bp's task pins on cpu.
func (p *bpPMU) taskBpPinned(cpu int, t *sched.Task) int {
	n := 0
	for _, b := range p.tasks[t] {
		if b.cpu < 0 || b.cpu == cpu {
			n++
		}
	}
	return n
}

// maxTaskBpPinned is max_task_bp_pinned(): the most slots one task pins on cpu.
func (p *bpPMU) maxTaskBpPinned(cpu int) int {
	m := 0
	for _, t := range p.k.S.Tasks { // tasks in creation order: deterministic
		if n := p.taskBpPinned(cpu, t); n > m {
			m = n
		}
	}
	return m
}

// reserveBpSlot checks that the breakpoint fits on every CPU it may run on,
// counting the CPU breakpoints and the most any task pins, then accounts it.
// kernel/events/hw_breakpoint.c: reserve_bp_slot() -> __reserve_bp_slot() -> max_bp_pinned_slots(), toggle_bp_slot()
func (p *bpPMU) reserveBpSlot(e *Event) error {
	if e.Attr.BPType == HW_BREAKPOINT_EMPTY {
		return uapi.EINVAL
	}
	const weight = 1 // hw_breakpoint_weight()
	maxPinned := 0
	for cpu := 0; cpu < p.nrCPUs(); cpu++ {
		if e.cpu >= 0 && cpu != e.cpu {
			continue // cpumask_of_bp()
		}
		nr := p.cpuPinned[cpu]
		if e.hw.target == nil {
			nr += p.maxTaskBpPinned(cpu)
		} else {
			nr += p.taskBpPinned(cpu, e.hw.target)
		}
		maxPinned = max(maxPinned, nr)
	}
	if maxPinned+weight > hbpNum {
		return uapi.ENOSPC
	}
	if e.hw.target == nil {
		p.cpuPinned[e.cpu] += weight
	} else {
		p.tasks[e.hw.target] = append(p.tasks[e.hw.target], e)
	}
	p.reserved[e] = true
	return nil
}

// releaseBpSlot undoes reserveBpSlot.
// kernel/events/hw_breakpoint.c: release_bp_slot()
func (p *bpPMU) releaseBpSlot(e *Event) {
	if !p.reserved[e] {
		return
	}
	delete(p.reserved, e)
	if e.hw.target == nil {
		p.cpuPinned[e.cpu]--
	} else {
		p.tasks[e.hw.target] = remove(p.tasks[e.hw.target], e)
	}
}

// Destroy is bp->destroy.
// kernel/events/hw_breakpoint.c: bp_perf_event_destroy()
func (p *bpPMU) Destroy(e *Event) { p.releaseBpSlot(e) }

// Add installs the breakpoint in a free debug register of this CPU.
// kernel/events/hw_breakpoint.c: hw_breakpoint_add() -> arch/x86: arch_install_hw_breakpoint()
func (p *bpPMU) Add(c *cpu.CPU, e *Event, flags int) error {
	p.accessSlots(c, e, "arch_install_hw_breakpoint")
	if flags&PERF_EF_START == 0 {
		e.hw.state = PERF_HES_STOPPED
	} else {
		e.hw.state = 0
	}
	if e.isSampling() {
		e.hw.lastPeriod = e.hw.samplePeriod
		perfSweventSetPeriod(e)
	}
	for i := range p.slots[c.ID] {
		if p.slots[c.ID][i] == nil {
			p.slots[c.ID][i] = e
			return nil
		}
	}
	// WARN_ONCE(i == HBP_NUM, "Can't find any breakpoint slot")
	return uapi.EBUSY
}

// Del frees its debug register.
// arch/x86/kernel/hw_breakpoint.c: arch_uninstall_hw_breakpoint()
func (p *bpPMU) Del(c *cpu.CPU, e *Event, flags int) {
	p.accessSlots(c, e, "arch_uninstall_hw_breakpoint")
	for i := range p.slots[c.ID] {
		if p.slots[c.ID][i] == e {
			p.slots[c.ID][i] = nil
		}
	}
}

func (p *bpPMU) Start(c *cpu.CPU, e *Event, flags int) { e.hw.state = 0 }
func (p *bpPMU) Stop(c *cpu.CPU, e *Event, flags int)  { e.hw.state = PERF_HES_STOPPED }

// TouchUser is a user access by t of [addr, addr+length) (kind: HW_BREAKPOINT_R,
// _W or _X): every breakpoint installed on t's CPU that it hits raises a debug
// exception, whose handler counts the breakpoint event (and samples it, which
// for attr.sigtrap queues the SIGTRAP); the return to user runs the task work.
// arch/x86/kernel/hw_breakpoint.c: hw_breakpoint_handler() -> kernel/events/core.c: perf_bp_event()
func (k *Kernel) TouchUser(t *sched.Task, addr, length uint64, kind uint32) {
	c := t.CPU()
	if c == nil {
		return
	}
	var hit []*Event
	for _, e := range k.bpPMU.slots[c.ID] {
		if e == nil || e.hw.state&PERF_HES_STOPPED != 0 || e.Attr.BPType&kind == 0 {
			continue
		}
		bpAddr, bpLen := e.Attr.Config1, e.Attr.Config2
		if e.Attr.BPType == HW_BREAKPOINT_X {
			bpLen = 1
		}
		if addr < bpAddr+bpLen && bpAddr < addr+length {
			hit = append(hit, e)
		}
	}
	if len(hit) == 0 {
		return
	}
	k.bpStats.exceptions++
	f := c.LocalIrqSave() // exc_debug_user(): the #DB handler runs with irqs off
	c.Step("hw_breakpoint_handler")
	r := k.interruptedRegs(c)
	for _, e := range hit {
		if e.hw.state&PERF_HES_STOPPED != 0 {
			continue
		}
		k.bpStats.hits++
		data := perfSampleData{addr: addr}
		k.perfSweventEvent(c, e, 1, &data, &r)
	}
	c.LocalIrqRestore(f)
	k.S.IrqExitToUser(&t.Thread) // irqentry_exit_to_user_mode(): task work, signals
}

// bpStats are the breakpoint PMU's counters.
type bpStats struct{ exceptions, hits uint64 }

func init() {
	RegisterObservable("bp.exceptions", "debug exceptions (#DB) a breakpoint event raised (touch)",
		func(k *Kernel) int64 { return int64(k.bpStats.exceptions) })
	RegisterObservable("bp.hits", "breakpoint events counted by hw_breakpoint_handler() -> perf_bp_event()",
		func(k *Kernel) int64 { return int64(k.bpStats.hits) })
	RegisterObservable("bp.slots-used", "breakpoint slots reserved now (CPU and task breakpoints, kernel/events/hw_breakpoint.c)",
		func(k *Kernel) int64 { return int64(len(k.bpPMU.reserved)) })
	RegisterStepHelp(map[string]string{
		"hw_breakpoint_handler": "arch/x86/kernel/hw_breakpoint.c: hw_breakpoint_handler(): the #DB exception of a user access that hit a breakpoint, irqs off, before perf_bp_event()",
	})
}
