package pmu

import (
	"perfsim/cpu"
	"perfsim/uapi"
)

// Flags of pmu::add/del/start/stop (include/linux/perf_event.h).
const (
	PERF_EF_START  = 0x01 // start the counter when adding
	PERF_EF_RELOAD = 0x02 // reload the counter when starting
	PERF_EF_UPDATE = 0x04 // update the counter when stopping
	PERF_EF_PAUSE  = 0x08 // AUX area event, pause tracing
	PERF_EF_RESUME = 0x10 // AUX area event, resume tracing
)

// PMU is struct pmu: the driver interface the core schedules events through.
// Every method runs on the CPU the event is (to be) ACTIVE on, with irqs off.
type PMU interface {
	// Name is pmu->name as /sys/bus/event_source/devices shows it.
	Name() string
	// Type is pmu->type, the attr.type that selects it.
	Type() uint32
	// Capabilities is pmu->capabilities (PERF_PMU_CAP_*).
	Capabilities() uint32
	// EventInit is pmu->event_init(): ENOENT when the event is not this PMU's,
	// another errno when it is but is invalid.
	EventInit(e *Event) error
	// Add puts the event on the hardware (PERF_EF_START: and starts it); an
	// error means no room (the group cannot go on).
	Add(c *cpu.CPU, e *Event, flags int) error
	// Del takes the event off the hardware, updating its count.
	Del(c *cpu.CPU, e *Event, flags int)
	// Start starts counting (PERF_EF_RELOAD: reprogram the period).
	Start(c *cpu.CPU, e *Event, flags int)
	// Stop stops counting (PERF_EF_UPDATE: fold the counter into event->count).
	Stop(c *cpu.CPU, e *Event, flags int)
	// Read updates event->count from the hardware.
	Read(c *cpu.CPU, e *Event)
	// PMUDisable / PMUEnable are pmu->pmu_disable / pmu_enable, called by
	// perf_pmu_disable/enable on the 0 <-> 1 transitions of pmu_disable_count.
	PMUDisable(c *cpu.CPU)
	PMUEnable(c *cpu.CPU)

	// The AUX area hooks (unused until the AUX issue): pmu->setup_aux,
	// free_aux, snapshot_aux. HasAux reports setup_aux != NULL.
	HasAux() bool
	SetupAux(e *Event, nrPages int, overwrite bool) (any, error)
	FreeAux(priv any)
	SnapshotAux(c *cpu.CPU, e *Event, size int) int

	base() *pmuBase
}

// pmuBase holds what the core keeps per PMU.
type pmuBase struct {
	index int // slot in Kernel.pmus and pmu_disable_count
	// isSoftware: is_software_event() — software events may join any group.
	isSoftware bool
}

func (b *pmuBase) base() *pmuBase { return b }

// The defaults every PMU gets unless it has its own, as perf_pmu_register()
// fills in perf_pmu_nop_void for a missing pmu_enable/pmu_disable.
// kernel/events/core.c: perf_pmu_register()

// Capabilities implements PMU: none.
func (*pmuBase) Capabilities() uint32 { return 0 }

// Read implements PMU for a PMU whose count is kept by the core (software,
// tracepoint) or that counts nothing (AUX tracers: pt_event_read() is empty).
func (*pmuBase) Read(*cpu.CPU, *Event) {}

// PMUDisable implements PMU: perf_pmu_nop_void.
func (*pmuBase) PMUDisable(*cpu.CPU) {}

// PMUEnable implements PMU: perf_pmu_nop_void.
func (*pmuBase) PMUEnable(*cpu.CPU) {}

// noAux implements the AUX hooks of a PMU without an AUX area.
type noAux struct{}

func (noAux) HasAux() bool                            { return false }
func (noAux) SetupAux(*Event, int, bool) (any, error) { return nil, uapi.EOPNOTSUPP }
func (noAux) FreeAux(any)                             {}
func (noAux) SnapshotAux(*cpu.CPU, *Event, int) int   { return 0 }

// perfPMUDisable disables the PMU on c, nesting: pmu_disable_count.
// kernel/events/core.c: perf_pmu_disable()
func (k *Kernel) perfPMUDisable(c *cpu.CPU, p PMU) {
	k.accessPMUDisable(c, "perf_pmu_disable")
	n := &k.pmuDisable.Get(c)[p.base().index]
	*n++
	if *n == 1 {
		p.PMUDisable(c)
	}
}

// perfPMUEnable re-enables the PMU when the outermost disable ends.
// kernel/events/core.c: perf_pmu_enable()
func (k *Kernel) perfPMUEnable(c *cpu.CPU, p PMU) {
	k.accessPMUDisable(c, "perf_pmu_enable")
	n := &k.pmuDisable.Get(c)[p.base().index]
	*n--
	if *n < 0 {
		panicCrash("perf_pmu_enable: pmu_disable_count of %s below zero on cpu%d", p.Name(), c.ID)
	}
	if *n == 0 {
		p.PMUEnable(c)
	}
}

// PMUDisableCount returns pmu_disable_count of the named PMU on CPU i.
func (k *Kernel) PMUDisableCount(name string, i int) int {
	for _, p := range k.pmus {
		if p.Name() == name {
			return k.pmuDisable.At(i)[p.base().index]
		}
	}
	return 0
}

// PMUs returns the registered PMUs.
func (k *Kernel) PMUs() []PMU { return k.pmus }
