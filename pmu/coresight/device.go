package coresight

import (
	"fmt"
	"math/bits"

	"perfsim/rb"
	"perfsim/sim"
)

// Sink kinds of Config.Sink.
const (
	SinkETR  = "etr"  // one TMC-ETR shared by every CPU (N:1)
	SinkTRBE = "trbe" // a TRBE per CPU, writing into the AUX area
)

// Config is the CoreSight topology of a machine.
type Config struct {
	CPUs int
	// Sink is SinkETR or SinkTRBE.
	Sink string
	// SinkSize is the size of the ETR's etr_buf. alloc_etr_buf() tries the
	// AUX buffer's size first when it is larger than the sysfs buffer_size and
	// falls back to buffer_size, halving down to 1 MiB, when that allocation
	// fails; SinkSize is the size it ends up with (0: the AUX buffer's size).
	SinkSize int
	// Rate is how many trace bytes an ETM produces per second of traced
	// execution.
	Rate int64
	// Knobs are the driver's kernel knobs (today's upstream when zero).
	Knobs Knobs
}

// Event is what coresight-etm-perf.c reads and writes of struct perf_event.
type Event interface {
	rb.AuxEvent
	// CPU is event->cpu (-1 for a per-thread event).
	CPU() int
	// RB is event->rb (the output event's buffer).
	RB() *rb.Buffer
	// HWState / SetHWState are event->hw.state (PERF_HES_*).
	HWState() int
	SetHWState(s int)
	// CtxIsActive is event->ctx->is_active.
	CtxIsActive() int
	// OwnerPID is task_pid_nr(event->owner): the perf tool's pid, the ETR's
	// session key.
	OwnerPID() int
	// AuxPaused is READ_ONCE(event->hw.aux_paused).
	AuxPaused() bool
	// Excludes are attr.exclude_user and attr.exclude_kernel.
	Excludes() (user, kernel bool)
}

// PERF_HES_STOPPED (hw_perf_event.state).
const hesStopped = 0x01

// Host is what the driver needs from the machine: the clock, the step points
// of the CPU it runs on, and the TRBE's maintenance interrupt.
type Host interface {
	Now() sim.Time
	// Stepper returns the step point sink of CPU cpu (rb.NoSteps when none).
	Stepper(cpu int) rb.Stepper
	// ArmIRQ raises the per-CPU TRBE interrupt on cpu at time at (cancelling a
	// previous one for that CPU); a zero time cancels.
	ArmIRQ(cpu int, at sim.Time)
}

// Device is the CoreSight of one machine: the ETMs (csdev_src), the per-CPU
// etm_ctxt, the sinks, and the session-wide trace numbering.
type Device struct {
	cfg  Config
	host Host
	etm  []*ETM
	user []bool    // per CPU: it runs in user mode (ModeSwitch)
	ctxt []etmCtxt // DEFINE_PER_CPU(struct etm_ctxt, etm_ctxt)
	etr  *TMCETR
	trbe []*TRBE

	seq     uint64 // units emitted so far (Frame.Seq)
	periods int    // etm_event_start()s that began a period (Frame.Period)
	ledger  *Ledger
	// shadows are the Seq of the unit in each 16-byte slot of the AUX
	// areas, stored as the sinks write (commit.go)
	shadows map[*rb.Buffer]*auxShadow
	// commitHook, when set (tests), sees every commit auxOutputEnd logs
	commitHook func(Commit)
	// ShouldFail is should_fail() at an allocation of the driver's (fault
	// injection); nil fails nothing.
	ShouldFail func(site string) bool

	Stats Stats
	// Commits are the driver's non-empty perf_aux_output_end()s, in order.
	Commits []Commit
	// Warnings are the WARN_ON()s the driver hit, in order.
	Warnings []string
	// Spans are the periods of trace, in the order they began (timeline.go).
	Spans []Span
}

// Stats are the driver's counters.
type Stats struct {
	Periods     int    // periods started
	Emitted     uint64 // trace bytes the ETMs produced
	Lost        uint64 // trace bytes that never reached a buffer (sink full or wrapped)
	Updates     int    // update_buffer() calls
	UpdateBytes uint64 // bytes update_buffer() reported
	TRBEIRQs    int    // TRBE maintenance interrupts handled
	Recommitted uint64 // bytes of trace committed to an AUX buffer a second time
	EventData   int    // struct etm_event_data alive: etm_setup_aux() made, free_event_data() not yet freed
}

// New builds the CoreSight of a machine.
func New(cfg Config, host Host) (*Device, error) {
	if cfg.CPUs <= 0 || cfg.CPUs > 255 {
		return nil, fmt.Errorf("coresight: %d CPUs: expected 1 to 255", cfg.CPUs)
	}
	switch cfg.Sink {
	case "":
		cfg.Sink = SinkETR
	case SinkETR, SinkTRBE:
	default:
		return nil, fmt.Errorf("coresight: sink=%s: expected %s or %s", cfg.Sink, SinkETR, SinkTRBE)
	}
	if cfg.Rate <= 0 {
		return nil, fmt.Errorf("coresight: rate=%d: expected a positive trace rate (bytes/s)", cfg.Rate)
	}
	if cfg.Rate > maxRate {
		return nil, fmt.Errorf("coresight: rate=%d: at most %d bytes/s (a timestamp per 16 bytes, on a 1 GHz counter)", cfg.Rate, int64(maxRate))
	}
	if cfg.SinkSize < 0 || cfg.SinkSize%FrameSize != 0 {
		return nil, fmt.Errorf("coresight: sink-size=%d: expected a multiple of %d", cfg.SinkSize, FrameSize)
	}
	if err := cfg.Knobs.check(); err != nil {
		return nil, err
	}
	d := &Device{cfg: cfg, host: host, ctxt: make([]etmCtxt, cfg.CPUs), user: make([]bool, cfg.CPUs),
		ledger: newLedger(cfg.CPUs, cfg.Sink == SinkTRBE)}
	for i := 0; i < cfg.CPUs; i++ {
		d.etm = append(d.etm, &ETM{d: d, cpu: i})
	}
	if cfg.Sink == SinkETR {
		d.etr = &TMCETR{d: d, pid: -1, idr: map[int]*etrBuf{}}
	} else {
		for i := 0; i < cfg.CPUs; i++ {
			d.trbe = append(d.trbe, &TRBE{d: d, cpu: i})
		}
	}
	return d, nil
}

// maxRate keeps every unit's timestamp distinct: at most one 16-byte unit
// per two nanoseconds of the 1 GHz counter.
const maxRate = FrameSize * 1e9 / 2

// Ledger returns the record of what the ETMs emitted.
func (d *Device) Ledger() *Ledger { return d.ledger }

// pidHost is a Host that knows which task runs on a CPU.
type pidHost interface {
	// CurrentPID is task_pid_nr(current) on cpu: what contextidr_thread_switch()
	// wrote into CONTEXTIDR_EL1, the context id the ETM traces.
	CurrentPID(cpu int) int
}

func (d *Device) pidOf(cpu int) int {
	if h, ok := d.host.(pidHost); ok {
		return h.CurrentPID(cpu)
	}
	return 0
}

// ipHost is a Host that knows where the task running on a CPU executes.
type ipHost interface {
	// CurrentIP is the address of the function of the synthetic images
	// (pmu.Kernel.TaskIP) the task on cpu runs in, in user mode or the
	// kernel: the loop the trace unit traces (LoopCode).
	CurrentIP(cpu int, user bool) uint64
}

// place records where cpu's task executes from now on: the address of the
// trace the ETM produces until its next flush.
func (e *ETM) place() {
	if h, ok := e.d.host.(ipHost); ok {
		e.addr, e.hasAddr = h.CurrentIP(e.cpu, e.d.user[e.cpu]), true
	}
}

// Config returns the device's configuration.
func (d *Device) Config() Config { return d.cfg }

// warn records a WARN_ON() that fired.
func (d *Device) warn(format string, args ...any) {
	d.Warnings = append(d.Warnings, fmt.Sprintf(format, args...))
}

// sinkOf is coresight_get_sink(path) for cpu's path.
func (d *Device) sinkOf(cpu int) sink {
	if d.etr != nil {
		return d.etr
	}
	return d.trbe[cpu]
}

// ETM is one CPU's trace source (an ETMv4/ETE, coresight-etm4x-core.c) as
// perf drives it: enabled by etm_event_start(), paused and resumed by AUX
// pause, disabled by etm_event_stop(). While enabled and not paused it
// produces Rate bytes of trace per second into its path's sink.
type ETM struct {
	d       *Device
	cpu     int
	enabled bool     // etm4_enable_perf() .. etm4_disable_perf()
	paused  bool     // drvdata->paused
	since   sim.Time // trace produced up to here
	frac    uint64   // remainder of bytes*1e9 not yet a frame
	period  int
	index   uint32 // next unit index in the period
	cfg     etmConfig
	// the mode, task and address of the previous run of the period: a change
	// makes the next run start with an address and context
	lastUser bool
	lastPID  int
	lastAddr uint64
	// addr is where the task executes since e.since (place(); hasAddr false:
	// a host that does not say, SpanAddr)
	addr    uint64
	hasAddr bool
	// The exception levels filtered out (TRCVICTLR.EXLEVEL_*, from
	// attr.exclude_user/exclude_kernel: etm4_parse_event_config()).
	exclUser, exclKernel bool
}

// Enabled reports that the ETM is tracing (enabled and not paused).
func (e *ETM) Enabled() bool { return e.enabled && !e.paused }

// framesUntil is how many frames the ETM produces from e.since to now.
func (e *ETM) framesUntil(now sim.Time) uint64 {
	if now <= e.since {
		return 0
	}
	hi, lo := bits.Mul64(uint64(now-e.since), uint64(e.d.cfg.Rate))
	lo, c := bits.Add64(lo, e.frac, 0)
	hi += c
	const div = uint64(FrameSize) * 1e9
	q, r := bits.Div64(hi%div, lo, div) // hi < div for any sane run
	e.frac = r
	return q
}

// flush produces the trace of [since, now) into the sink: what
// tmc_flush_and_stop() / trbe_drain_and_disable_local() drain.
func (e *ETM) flush() {
	e.produce()
	e.place()
}

// produce is flush's trace: the units of [since, now) at the run's address.
func (e *ETM) produce() {
	now := e.d.host.Now()
	user := e.d.user[e.cpu]
	if !e.Enabled() || (user && e.exclUser) || (!user && e.exclKernel) {
		e.since = now
		return
	}
	n := e.framesUntil(now)
	since := e.since
	e.since = now
	if n == 0 {
		return
	}
	pid := e.d.pidOf(e.cpu)
	addr := e.addr
	if !e.hasAddr {
		addr = SpanAddr(user, pid)
	}
	src := &unitSrc{cpu: e.cpu, index: e.index, seq: e.d.seq, n: n, since: uint64(since), until: uint64(now),
		addr: addr, pid: pid, user: user, cfg: e.cfg,
		ctxFirst: e.index > 0 && (user != e.lastUser || pid != e.lastPID || addr != e.lastAddr)}
	e.lastUser, e.lastPID, e.lastAddr = user, pid, addr
	e.d.ledger.add(e.cpu, ledgerRun{period: e.period, index: e.index, seq: e.d.seq, n: n, since: src.since, until: src.until})
	e.index += uint32(n)
	e.d.seq += n
	e.d.Stats.Emitted += n * FrameSize
	kept := e.d.sinkOf(e.cpu).hwWrite(src)
	e.d.Stats.Lost += (n - kept) * FrameSize
}

// enable is etm4_enable_perf(): program and start the trace unit unless the
// event is paused (drvdata->paused = READ_ONCE(event->hw.aux_paused)).
// drivers/hwtracing/coresight/coresight-etm4x-core.c: etm4_enable_perf()
func (e *ETM) enable(period int, paused, exclUser, exclKernel bool, cfg etmConfig) {
	e.enabled, e.paused = true, paused
	e.cfg = cfg
	e.exclUser, e.exclKernel = exclUser, exclKernel
	e.since, e.frac = e.d.host.Now(), 0
	e.period, e.index = period, 0
	e.place()
	e.d.spanStart(e.cpu, period)
}

// disable is etm4_disable_perf() (via coresight_disable_source()): the trace
// unit stops and its pending trace drains into the sink.
// drivers/hwtracing/coresight/coresight-etm4x-core.c: etm4_disable_perf()
func (e *ETM) disable() {
	e.flush()
	e.enabled = false
	e.d.spanEnd(e.cpu)
}

// pause is etm4_pause_perf() (coresight_pause_source()).
// drivers/hwtracing/coresight/coresight-etm4x-core.c: etm4_pause_perf()
func (e *ETM) pause() {
	e.flush()
	e.paused = true
}

// resume is etm4_resume_perf() (coresight_resume_source()).
// drivers/hwtracing/coresight/coresight-etm4x-core.c: etm4_resume_perf()
func (e *ETM) resume() {
	e.flush()
	e.paused = false
}

// sink is struct coresight_ops_sink plus what the model's hardware does.
type sink interface {
	// percpu is coresight_is_percpu_sink().
	percpu() bool
	// enable / disable are sink_ops->enable(CS_MODE_PERF, handle), ->disable().
	enable(cpu int, h *rb.AuxHandle, cfg any, ev Event) error
	disable(cpu int) error
	// allocBuffer / freeBuffer are ->alloc_buffer / ->free_buffer.
	allocBuffer(ev Event, aux []byte, nrPages int, overwrite bool) (any, error)
	freeBuffer(cfg any)
	// updateBuffer is ->update_buffer().
	updateBuffer(cpu int, h *rb.AuxHandle, cfg any, ev Event) uint64
	// hwWrite is the hardware taking the src.n units of trace of src.cpu's
	// ETM; it returns how many it stored.
	hwWrite(src *unitSrc) uint64
}

// ModeSwitch tells the device that cpu enters user mode (user) or the kernel:
// the trace of the time before is produced under the old mode, which the
// ETM's exception level filter keeps or drops.
func (d *Device) ModeSwitch(cpu int, user bool) {
	if cpu < 0 || cpu >= len(d.user) || d.user[cpu] == user {
		return
	}
	d.etm[cpu].flush()
	d.user[cpu] = user
	d.etm[cpu].place()
}

// StackChanged tells the device that the task on cpu now runs in another
// user function: the trace before is of the function it ran in.
func (d *Device) StackChanged(cpu int) {
	if cpu < 0 || cpu >= len(d.user) || !d.user[cpu] {
		return
	}
	d.etm[cpu].flush()
}
