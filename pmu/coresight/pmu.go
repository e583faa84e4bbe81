package coresight

import (
	"fmt"
	"strconv"
	"strings"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TypeCSETM is the simulated pmu->type of cs_etm (perftool's
// TypeCSETM; a record test checks they agree).
const TypeCSETM = 9

// DefaultCaps are etm_pmu.capabilities in v6.17.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_perf_init()
const DefaultCaps = pmu.PERF_PMU_CAP_EXCLUSIVE | pmu.PERF_PMU_CAP_ITRACE | pmu.PERF_PMU_CAP_AUX_PAUSE

// PMU is etm_pmu, the cs_etm PMU, driving a Device on a pmu.Kernel. It has
// no snapshot_aux, so aux_sample_size on a cs_etm group is -EINVAL.
type PMU struct {
	pmu.DriverBase
	k    *pmu.Kernel
	dev  *Device
	caps uint32
	irq  []*cpu.Timer // the TRBE maintenance interrupt (a PPI) of each CPU
}

// NewPMU builds the CoreSight of k's machine (cfg.CPUs is the machine's) and
// its cs_etm PMU. The caller registers it (Kernel.RegisterPMU).
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_perf_init()
func NewPMU(k *pmu.Kernel, cfg Config) (*PMU, error) {
	p := &PMU{k: k, caps: DefaultCaps}
	cfg.CPUs = len(k.M.CPUs)
	d, err := New(cfg, pmuHost{p})
	if err != nil {
		return nil, err
	}
	p.dev = d
	d.ShouldFail = k.ShouldFail // fault injection: site etm_setup_aux
	p.SetSoftwareContext()      // etm_pmu.task_ctx_nr = perf_sw_context
	if k.S != nil {
		k.S.ModeHooks = append(k.S.ModeHooks, modeHook{d})
	}
	for _, c := range k.M.CPUs {
		p.irq = append(p.irq, c.NewTimer(false, cpu.Interrupt{Name: "arm_trbe_irq_handler",
			Fn: func(c *cpu.CPU) { p.dev.IRQ(c.ID) }}))
	}
	return p, nil
}

// Device returns the CoreSight model behind the PMU.
func (p *PMU) Device() *Device { return p.dev }

// pmuHost is the Device's Host on the simulated machine.
type pmuHost struct{ p *PMU }

// Now is the machine's time.
func (h pmuHost) Now() sim.Time { return h.p.k.M.Now() }

// CurrentPID is the pid of the task running on cpu (0: the idle task).
func (h pmuHost) CurrentPID(c int) int {
	k := h.p.k
	if k.S == nil || c < 0 || c >= len(k.M.CPUs) {
		return 0
	}
	if t := k.S.Current(k.M.CPUs[c]); t != nil {
		return t.PID
	}
	return 0
}

// CurrentIP is where the task running on cpu executes (the idle task: the
// kernel's idle loop).
func (h pmuHost) CurrentIP(c int, user bool) uint64 {
	k := h.p.k
	var t *sched.Task
	if k.S != nil && c >= 0 && c < len(k.M.CPUs) {
		t = k.S.Current(k.M.CPUs[c])
	}
	return k.TaskIP(t, user)
}

// Stepper is the CPU itself: its step points are the scheduler's.
func (h pmuHost) Stepper(c int) rb.Stepper {
	if c < 0 || c >= len(h.p.k.M.CPUs) {
		return rb.NoSteps{}
	}
	return h.p.k.M.CPUs[c]
}

// ArmIRQ arms (or, with a zero time, cancels) cpu's TRBE interrupt timer.
func (h pmuHost) ArmIRQ(c int, at sim.Time) {
	if c < 0 || c >= len(h.p.irq) {
		return
	}
	if at == 0 {
		h.p.irq[c].Cancel()
		return
	}
	h.p.irq[c].Arm(at)
}

// Name implements pmu.PMU (CORESIGHT_ETM_PMU_NAME).
func (p *PMU) Name() string { return "cs_etm" }

// Type implements pmu.PMU.
func (p *PMU) Type() uint32 { return TypeCSETM }

// Capabilities implements pmu.PMU.
func (p *PMU) Capabilities() uint32 { return p.caps }

// EventInit implements pmu.PMU.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_init()
func (p *PMU) EventInit(e *pmu.Event) error {
	if e.Attr.Type != TypeCSETM {
		return uapi.ENOENT
	}
	return nil
}

// HasAux implements pmu.PMU: etm_pmu.setup_aux is set.
func (p *PMU) HasAux() bool { return true }

// SetupAux implements pmu.PMU over the AUX pages rb_alloc_aux() just
// allocated in the event's buffer; nil from the driver is -ENOMEM.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_setup_aux()
func (p *PMU) SetupAux(e *pmu.Event, nrPages int, overwrite bool) (any, error) {
	// The sinks describe what they write (AuxDescribed): no pages here.
	ed := p.dev.SetupAux(e, nil, nrPages, overwrite)
	if ed == nil {
		return nil, uapi.ENOMEM
	}
	return ed, nil
}

// AuxDescribed implements pmu.AuxDescriber: the sinks store descriptions of
// their trace in the AUX area (frames.go), whose bytes are made when read.
func (p *PMU) AuxDescribed() bool { return true }

// FreeAux implements pmu.PMU.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_free_aux()
func (p *PMU) FreeAux(priv any) {
	if ed, ok := priv.(*EventData); ok {
		p.dev.FreeAux(ed)
	}
}

// SnapshotAux implements pmu.PMU: cs_etm has no snapshot_aux.
func (p *PMU) SnapshotAux(*cpu.CPU, *pmu.Event, int) int { return 0 }

// Add implements pmu.PMU.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_add()
func (p *PMU) Add(c *cpu.CPU, e *pmu.Event, flags int) error {
	c.Unaudited("etm_event_add") // perf's event_sched_in() is declared (pmu/footprint_sched.go); the driver's code is not annotated
	if err := p.dev.Add(c.ID, e, flags); err != nil {
		return uapi.EINVAL
	}
	return nil
}

// Del implements pmu.PMU.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_del()
func (p *PMU) Del(c *cpu.CPU, e *pmu.Event, flags int) {
	c.Unaudited("etm_event_del") // perf's event_sched_out() is declared (pmu/footprint_sched.go); the driver's code is not annotated
	p.dev.Del(c.ID, e)
}

// Start implements pmu.PMU.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_start()
func (p *PMU) Start(c *cpu.CPU, e *pmu.Event, flags int) { p.dev.Start(c.ID, e, flags) }

// Stop implements pmu.PMU.
// drivers/hwtracing/coresight/coresight-etm-perf.c: etm_event_stop()
func (p *PMU) Stop(c *cpu.CPU, e *pmu.Event, flags int) { p.dev.Stop(c.ID, e, flags) }

// StepPoints are the labels the driver passes to Step.
var StepPoints = []string{
	"arm_trbe_irq_handler:status-read",
	"arm_trbe_irq_handler:disabled",
}

// DefaultRate is the trace rate without rate=: 300 MiB of trace per second of
// traced execution (dd's tight loop, seed 004).
const DefaultRate = 300 << 20

func init() {
	pmu.RegisterDriver(pmu.Driver{
		Name: "cs_etm",
		Help: "Arm CoreSight ETM (coresight-etm-perf.c): per-CPU ETMs tracing at rate=BYTES_PER_SECOND into sink=etr " +
			"(one TMC-ETR of sink-size=SIZE, default the AUX buffer's size) or sink=trbe (a TRBE per CPU)",
		Attrs: map[string][]string{"sink": {SinkETR, SinkTRBE}, "sink-size": {pmu.ValueSize}, "rate": {pmu.ValueSize}},
		Caps:  []string{"aux-pause", "itrace", "exclusive"},
		Knobs: KnobSpecs, StepPoints: StepPoints,
		New: func(k *pmu.Kernel, attrs map[string]string) (pmu.PMU, error) {
			cfg := Config{Sink: attrs["sink"], Rate: DefaultRate,
				Knobs: Knobs{SnapshotSync: k.Knob(KnobSnapshotSync), PausePercpu: k.Knob(KnobPausePercpu)}}
			if v, ok := attrs["sink-size"]; ok {
				n, err := parseSize(v)
				if err != nil || n < rb.PageSize || n%FrameSize != 0 {
					return nil, fmt.Errorf("sink-size=%s: expected a size of at least 4K", v)
				}
				cfg.SinkSize = int(n)
			}
			if v, ok := attrs["rate"]; ok {
				n, err := parseSize(v)
				if err != nil || n == 0 {
					return nil, fmt.Errorf("rate=%s: expected trace bytes per second (300M)", v)
				}
				cfg.Rate = int64(n)
			}
			p, err := NewPMU(k, cfg)
			if err != nil {
				return nil, err
			}
			if v, ok := attrs["caps"]; ok {
				p.caps = 0
				for _, w := range strings.Split(v, ",") {
					p.caps |= capWords[w]
				}
			}
			return p, nil
		},
	})
}

var capWords = map[string]uint32{
	"aux-pause": pmu.PERF_PMU_CAP_AUX_PAUSE, "itrace": pmu.PERF_PMU_CAP_ITRACE, "exclusive": pmu.PERF_PMU_CAP_EXCLUSIVE,
}

// parseSize parses 4096, 4K, 1M, 2G (binary multiples).
func parseSize(v string) (uint64, error) {
	mult := uint64(1)
	s := strings.ReplaceAll(v, "_", "")
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mult, s = 1<<10, s[:n-1]
		case 'M', 'm':
			mult, s = 1<<20, s[:n-1]
		case 'G', 'g':
			mult, s = 1<<30, s[:n-1]
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("size %s too large", v)
	}
	return n * mult, nil
}

// Timeline draws the periods of trace per CPU under the machine's timeline
// (the runtime's --timeline asks every PMU that has one).
func (p *PMU) Timeline(end sim.Time, width int) string {
	return "cs_etm periods (etm_event_start .. etm_event_stop):\n" + p.dev.Timeline(end, width)
}

// modeHook tells the trace units when a CPU changes privilege level.
type modeHook struct{ d *Device }

// ModeSwitch implements sched.ModeHook.
// The trace units' footprint is not annotated: the switch is marked as
// code nobody audited (the syscall entry and exit fragments are declared
// complete: sched/footprint_entry.go).
func (h modeHook) ModeSwitch(t *sched.Task, user bool) {
	t.CPU().Unaudited("coresight ETM: the trace unit's mode switch")
	h.d.ModeSwitch(t.CPU().ID, user)
}

// UserStackChanged implements sched.StackHook.
func (h modeHook) UserStackChanged(t *sched.Task) {
	if c := t.CPU(); c != nil && t.User {
		h.d.StackChanged(c.ID)
	}
}
