package pt

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/pmu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TypeIntelPT is the simulated pmu->type of intel_pt (perftool uses 8).
const TypeIntelPT = 8

// RTIT_STATUS bits the model keeps.
const (
	rtitStatusStopped = 1 << 5
	rtitStatusError   = 1 << 4
)

// ptCtx is struct pt, per CPU, with the model's hardware state.
type ptCtx struct {
	handle        rb.AuxHandle
	handleNMI     bool // pt->handle_nmi
	pauseAllowed  bool // pt->pause_allowed
	resumeAllowed bool // pt->resume_allowed

	traceEn bool // RTIT_CTL.TraceEn
	status  int  // RTIT_STATUS
	since   sim.Time
	user    bool   // the mode the CPU was in at since
	ip      uint64 // where the CPU executed at since (pmu: TaskIP)
	loop    bool   // ... in code a decoder can follow (an image maps it)
	timer   *cpu.Timer
	needPSB bool // TraceEn went 0 -> 1: the next trace starts with a PSB+
	// tap, when non-nil, collects the bytes the hardware writes (in output
	// order) while a snapshot copy races it (SnapshotAuxOutput).
	tap *[]byte
	// span is the room traceSpan builds the bytes of a stretch in (they
	// are copied where they go: the AUX area, the log, tap)
	span []byte

	// What RTIT_OUTPUT_BASE and RTIT_CTL were last loaded with
	// (pt_config_buffer(), pt_config()): the hardware writes there while
	// TraceEn is set, whether or not an AUX transaction is still open.
	hwBuf   *ptBuffer
	hwEvent *pmu.Event
	mm      *mm.MM // the address space of the task the CPU ran at since

	// What RTIT_ADDRn_A/B and RTIT_CTL.ADDRn_CFG hold (pt->filters,
	// pt_config_filters(); addr_filter.go).
	filters ptFilters
	cpu     int // its CPU, for its stable key (footprint.go)
}

// ptBuffer is struct pt_buffer, the driver's aux_priv.
type ptBuffer struct {
	buf      *rb.Buffer
	snapshot bool
	size     uint64
	region   uint64 // output region (ToPA entry) size
	head     uint64 // buf->head: offset read at the last pt_update_head
	dataSize uint64 // buf->data_size
	hwPos    uint64 // where the hardware writes next (free-running)
	wrapped  bool   // buf->wrapped (5b590160d2cf)
	stopPos  uint64 // STOP marker: the hardware stops here (free-running); 0 none
	intPos   uint64 // INT marker: PMI here; 0 none
	psbNext  uint64 // the hardware's next PSB+ is due at this output position
}

// PMU is the intel_pt PMU.
type PMU struct {
	pmu.DriverBase
	k      *pmu.Kernel
	caps   uint32
	rate   int64  // trace bytes per microsecond while tracing
	region uint64 // output region size in bytes
	cpus   []ptCtx

	addrRanges int                       // PT_CAP_num_address_ranges: pmu->nr_addr_filters
	filters    map[*pmu.Event]*ptFilters // each event's hw.addr_filters

	// Observations for outcomes and invariants (not driver state).
	Produced, Dropped   uint64 // trace bytes produced; bytes lost to a stopped buffer
	TraceAfterStop      uint64 // times TraceEn was left on after pt_event_stop
	CopiedWhileTracing  uint64 // snapshot copies made while the hardware wrote
	PMIs, PauseCalls    uint64
	ResumeCalls, Starts uint64
	AddBusy             uint64 // pt_event_add() calls that failed -EBUSY (pt->handle.event still set)
	// Buffers counts the struct pt_buffers alive (pt_buffer_setup_aux()
	// made them, pt_buffer_free_aux() not yet freed them).
	Buffers int64
	// Iterations counts the loop iterations the trace shows (a taken TNT
	// bit each, pmu.ImageLoopInsns instructions each).
	Iterations uint64
	// Filtered counts the trace bytes the IP filter kept the hardware from
	// writing (the CPU ran outside every FilterEn range); TraceStops the
	// times it entered a TraceStop range.
	Filtered, TraceStops uint64
	// FilterMissed counts the bytes of Filtered written while the CPU
	// executed code a "filter" of the event names (its file mapped there
	// now, or its kernel range): trace the user asked for and did not get.
	FilterMissed uint64
	// FilterLeaked counts the trace bytes written while the CPU executed
	// code none of the event's "filter" filters names: trace the user
	// filtered out. Neither counts during a SET_FILTER that has not
	// returned (the old filters may still be in the hardware).
	FilterLeaked uint64
}

// New builds the PMU on k: rate bytes/us, output regions of region bytes.
func New(k *pmu.Kernel, rate int64, region uint64, caps uint32) *PMU {
	return NewWithSkid(k, rate, region, caps, 0)
}

// NewWithSkid is New with a PMI skid: the ToPA PMI (an NMI) may be taken up
// to skid after the output reaches the INT or STOP marker (cpu.Interrupt.Skid;
// the chooser's "nmi-skid" decision). The hardware stops at STOP on time;
// only the interrupt is late. That is why the driver places INT a page before
// STOP (pt_buffer_reset_markers(): "in the worst case, wake up the consumer
// one page before hard stop").
func NewWithSkid(k *pmu.Kernel, rate int64, region uint64, caps uint32, skid sim.Duration) *PMU {
	p := &PMU{k: k, rate: rate, region: region, caps: caps, cpus: make([]ptCtx, len(k.M.CPUs)), addrRanges: 2, filters: map[*pmu.Event]*ptFilters{}}
	p.SetSoftwareContext() // pt_pmu.pmu.task_ctx_nr = perf_sw_context
	for i := range p.cpus {
		c := k.M.CPUs[i]
		p.cpus[i].timer = c.NewTimer(true, cpu.Interrupt{Name: "intel_pt_interrupt", Fn: p.interrupt, Skid: skid})
		p.cpus[i].cpu = i
		p.cpus[i].handle.Owner = &p.cpus[i]   // pt->handle: its writes name pt@cpuN (rb/footprint_aux.go)
		p.cpus[i].handle.CallerAudited = true // each perf_aux_output_end() here annotates or marks its return (footprint.go)
	}
	// The hardware filters by CPL as the CPU enters and leaves the kernel.
	if k.S != nil {
		k.S.ModeHooks = append(k.S.ModeHooks, modeHook{p})
	}
	return p
}

// modeHook tells the hardware model when the CPU changes mode, so the trace
// of the time before is produced under the mode it ran in (the CPL filter of
// RTIT_CTL.OS/USR: attr exclude_kernel/exclude_user).
type modeHook struct{ p *PMU }

// ModeSwitch implements sched.ModeHook.
func (h modeHook) ModeSwitch(t *sched.Task, user bool) { h.p.modeSwitch(t.CPU(), user) }

// UserStackChanged implements sched.StackHook: the trace so far is of the
// function the task ran in; from now on it is of the new one.
func (h modeHook) UserStackChanged(t *sched.Task) {
	if c := t.CPU(); c != nil && t.User {
		h.p.modeSwitch(c, true)
	}
}

// modeSwitch produces the trace up to now in the old mode, then records the
// new one.
func (p *PMU) modeSwitch(c *cpu.CPU, user bool) {
	p.accrue(c)
	p.cpus[c.ID].user = user
}

// DefaultCaps are pt_pmu.pmu.capabilities on a CPU with multiple-entry ToPA.
// arch/x86/events/intel/pt.c: pt_init()
const DefaultCaps = pmu.PERF_PMU_CAP_AUX_PREFER_LARGE | pmu.PERF_PMU_CAP_EXCLUSIVE | pmu.PERF_PMU_CAP_ITRACE | pmu.PERF_PMU_CAP_AUX_PAUSE

// Name implements pmu.PMU.
func (p *PMU) Name() string { return "intel_pt" }

// Type implements pmu.PMU.
func (p *PMU) Type() uint32 { return TypeIntelPT }

// Capabilities implements pmu.PMU.
func (p *PMU) Capabilities() uint32 { return p.caps }

// EventInit implements pmu.PMU.
// arch/x86/events/intel/pt.c: pt_event_init()
func (p *PMU) EventInit(e *pmu.Event) error {
	if e.Attr.Type != TypeIntelPT {
		return uapi.ENOENT
	}
	if p.addrRanges != 0 && p.k.M.FootprintListening() {
		p.accessAddrFiltersInit(e) // footprint_init.go
	}
	p.addrFiltersInit(e)
	return nil
}

// HasAux implements pmu.PMU: setup_aux is set.
func (p *PMU) HasAux() bool { return true }

// SetupAux implements pmu.PMU: a snapshot buffer for an overwrite mapping.
// Its two allocations may fail (fault injection: site pt_buffer_setup_aux):
// the struct pt_buffer (call 1: nothing made), then the ToPA tables (call
// 2: pt_buffer_init_topa() frees the tables it made and the driver the
// buffer); either returns NULL, and rb_alloc_aux() frees the AUX pages it
// allocated before (__rb_free_aux()). Single-range output, which needs no
// ToPA, is not modelled (doc.go).
// arch/x86/events/intel/pt.c: pt_buffer_setup_aux()
func (p *PMU) SetupAux(e *pmu.Event, nrPages int, overwrite bool) (any, error) {
	// "buf = kzalloc_node(sizeof(struct pt_buffer), GFP_KERNEL, node); if (!buf) return NULL;"
	failed := p.k.ShouldFail("pt_buffer_setup_aux")
	if !failed {
		// "ret = pt_buffer_init_topa(buf, cpu, nr_pages, GFP_KERNEL); if (ret) { kfree(buf); return NULL; }"
		failed = p.k.ShouldFail("pt_buffer_setup_aux")
	}
	if failed {
		return nil, uapi.ENOMEM
	}
	p.Buffers++
	size := uint64(nrPages) * rb.PageSize
	region := min(p.region, size)
	return &ptBuffer{buf: e.RB(), snapshot: overwrite, size: size, region: region}, nil
}

// FreeAux implements pmu.PMU: the ToPA tables and the struct pt_buffer go.
// arch/x86/events/intel/pt.c: pt_buffer_free_aux()
func (p *PMU) FreeAux(any) { p.Buffers-- }

// SnapshotAux implements pmu.PMU (the copy goes through SnapshotAuxOutput).
func (p *PMU) SnapshotAux(*cpu.CPU, *pmu.Event, int) int { return 0 }

// Add implements pmu.PMU.
// arch/x86/events/intel/pt.c: pt_event_add()
func (p *PMU) Add(c *cpu.CPU, e *pmu.Event, flags int) error {
	pt := &p.cpus[c.ID]
	fp := p.k.M.FootprintListening()
	if fp {
		accessAdd(c, pt) // footprint_addel.go: pt->handle.event
	}
	if pt.handle.Event != nil {
		p.AddBusy++
		return uapi.EBUSY
	}
	if flags&pmu.PERF_EF_START != 0 {
		p.start(c, e, 0, true)
		if fp {
			accessAddStarted(c, e) // footprint_addel.go: hwc->state
		}
		if e.HWState() == pmu.PERF_HES_STOPPED {
			return uapi.EINVAL
		}
	} else {
		if fp {
			accessHWStateWrite(c, e, "pt_event_add") // footprint_addel.go: hwc->state = PERF_HES_STOPPED
		}
		e.SetHWState(pmu.PERF_HES_STOPPED)
	}
	return nil
}

// Del implements pmu.PMU.
// arch/x86/events/intel/pt.c: pt_event_del()
func (p *PMU) Del(c *cpu.CPU, e *pmu.Event, flags int) {
	p.stop(c, e, pmu.PERF_EF_UPDATE, true) // pt.c: pt_event_del(): pt_event_stop(event, PERF_EF_UPDATE)
}

func (p *PMU) knob(name string) string { return p.k.Knob(name) }

// Start implements pmu.PMU.
// arch/x86/events/intel/pt.c: pt_event_start()
func (p *PMU) Start(c *cpu.CPU, e *pmu.Event, mode int) { p.start(c, e, mode, false) }

// start is pt_event_start(); fromAdd: its caller is pt_event_add() (whose
// code after the call footprint_addel.go annotates), not perf's pmu->start
// callers, whose code after the call nobody annotated (marked).
func (p *PMU) start(c *cpu.CPU, e *pmu.Event, mode int, fromAdd bool) {
	pt := &p.cpus[c.ID]
	if mode&pmu.PERF_EF_RESUME != 0 {
		p.ResumeCalls++
		fp := p.k.M.FootprintListening()
		if p.knob("pt-pause-resume") == "pre-08c7454ceb94" {
			if fp {
				c.Unaudited("pt_event_start (pt-pause-resume=pre-08c7454ceb94)") // the old RESUME: event->hw.state read, not annotated
			}
			if e.HWState() == 0 {
				c.Step("pt_event_start:hw-state-read")
				p.configStart(c, e)
			}
			return
		}
		if fp {
			c.AccessMarkedOnly(pt, "pt->resume_allowed", cpu.MarkedRead, "pt_event_start") // pt.c: pt_event_start(): if (READ_ONCE(pt->resume_allowed))
		}
		if pt.resumeAllowed {
			c.Step("pt_event_start:resume-allowed")
			c.Access(pt, "MSR_IA32_RTIT_STATUS", cpu.PlainRead, "pt_event_start") // pt.c: pt_event_start(): rdmsrq(MSR_IA32_RTIT_STATUS, status)
			status := pt.status
			c.Step("pt_event_start:status-read")
			c.Access(pt, "pt->resume_allowed", cpu.MarkedRead, "pt_event_start") // pt.c: pt_event_start(): ... && READ_ONCE(pt->resume_allowed)
			// "a PMI might have just cleared these, so resume_allowed must be checked again"
			if status&(rtitStatusError|rtitStatusStopped) == 0 && !pt.traceEn && pt.resumeAllowed {
				p.configStart(c, e)
			}
		}
		return
	}
	p.Starts++
	p.accrue(c) // what the hardware wrote since the last look (TraceEn may have been left on)
	if p.k.M.FootprintListening() {
		accessStartBegin(c, e) // footprint_addel.go: output_event->rb, up to perf_aux_output_begin()'s own
	}
	priv := rb.AuxOutputBegin(c, &pt.handle, e.OutputEvent().RB(), e)
	if priv == nil {
		startFailed(c, e, fromAdd) // footprint_addel.go: fail_stop
		e.SetHWState(pmu.PERF_HES_STOPPED)
		return
	}
	buf := priv.(*ptBuffer)
	fp := p.k.M.FootprintListening()
	if fp {
		accessTxnStart(c, pt, buf, e, true) // footprint.go: up to pt_config()'s resume-allowed step, or the record
	}
	p.resetOffsets(buf, pt.handle.Head)
	if !buf.snapshot && !p.resetMarkers(pt, buf) {
		_ = rb.AuxOutputEnd(c, &pt.handle, 0)
		startFailed(c, e, fromAdd) // footprint_addel.go: fail_end_stop
		e.SetHWState(pmu.PERF_HES_STOPPED)
		return
	}
	e.SetHWState(0)
	pt.hwBuf, pt.hwEvent = buf, e // pt_config_buffer(buf)
	e.ItraceStarted(c)
	p.config(c, e)
	if !fromAdd && p.k.M.FootprintListening() {
		c.Unaudited("pt_event_start's caller") // pt.c: pt_event_start() returns into pmu->start's caller (not pt_event_add()), nobody annotated
	}
}

// config is pt_config(): allow resume, allow the NMI, start, allow pause, in
// that order (08c7454ceb94).
// arch/x86/events/intel/pt.c: pt_config()
func (p *PMU) config(c *cpu.CPU, e *pmu.Event) {
	pt := &p.cpus[c.ID]
	old := p.knob("pt-pause-resume") == "pre-08c7454ceb94"
	if p.k.M.FootprintListening() {
		p.accessConfig(c, e, old) // footprint.go: up to the resume-allowed step
	}
	p.configFilters(c, e) // reg = pt_config_filters(event)
	if !old {
		pt.resumeAllowed = true
	}
	c.Step("pt_config:resume-allowed")
	c.Access(pt, "pt->handle_nmi", cpu.MarkedWrite, "pt_config") // pt.c: pt_config(): WRITE_ONCE(pt->handle_nmi, 1)
	pt.handleNMI = true
	c.Step("pt_config:handle-nmi")
	p.configStart(c, e)
	c.Step("pt_config:started")
	if !old && p.k.M.FootprintListening() {
		c.AccessMarkedOnly(pt, "pt->pause_allowed", cpu.MarkedWrite, "pt_config") // pt.c: pt_config(): WRITE_ONCE(pt->pause_allowed, 1)
	}
	if !old {
		pt.pauseAllowed = true
	}
}

// configStart is pt_config_start(): TraceEn unless the event is paused.
// arch/x86/events/intel/pt.c: pt_config_start()
func (p *PMU) configStart(c *cpu.CPU, e *pmu.Event) {
	c.Access(e, "event->hw.aux_paused", cpu.MarkedRead, "pt_config_start") // pt.c: pt_config_start(): if (READ_ONCE(event->hw.aux_paused))
	if e.AuxPaused() {
		return
	}
	pt := &p.cpus[c.ID]
	p.accrue(c)
	c.Access(pt, "RTIT_CTL", cpu.PlainRMW, "pt_config_start") // pt.c: pt_config_start(): wrmsrq(MSR_IA32_RTIT_CTL, ctl) (and the model's TraceEn, PSB+ due)
	if !pt.traceEn && pt.hwBuf != nil {
		pt.hwBuf.buf.AuxHWEnable(pt.hwBuf.hwPos) // aux-write-in-transaction
	}
	if !pt.traceEn {
		pt.needPSB = true
	}
	pt.traceEn = true
	p.armPMI(c)
}

// configStop is pt_config_stop(): clear TraceEn (the hardware flushes).
// arch/x86/events/intel/pt.c: pt_config_stop()
func (p *PMU) configStop(c *cpu.CPU) {
	pt := &p.cpus[c.ID]
	p.accrue(c)
	c.Access(pt, "RTIT_CTL", cpu.PlainRMW, "pt_config_stop") // pt.c: pt_config_stop(): ctl &= ~RTIT_CTL_TRACEEN; wrmsrq(MSR_IA32_RTIT_CTL, ctl)
	pt.traceEn = false
	pt.timer.Cancel()
}

// Stop implements pmu.PMU.
// arch/x86/events/intel/pt.c: pt_event_stop()
func (p *PMU) Stop(c *cpu.CPU, e *pmu.Event, mode int) { p.stop(c, e, mode, false) }

// stop is pt_event_stop(); fromDel: its caller is pt_event_del(), which
// returns at once into event_sched_out()'s del step, not perf's pmu->stop
// callers, whose code after the call nobody annotated (marked).
func (p *PMU) stop(c *cpu.CPU, e *pmu.Event, mode int, fromDel bool) {
	pt := &p.cpus[c.ID]
	if mode&pmu.PERF_EF_PAUSE != 0 {
		p.PauseCalls++
		old := p.knob("pt-pause-resume") == "pre-08c7454ceb94"
		if !old && p.k.M.FootprintListening() {
			c.AccessMarkedOnly(pt, "pt->pause_allowed", cpu.MarkedRead, "pt_event_stop") // pt.c: pt_event_stop(): if (READ_ONCE(pt->pause_allowed))
		}
		if old || pt.pauseAllowed {
			p.configStop(c) // annotated: RTIT_CTL, the hardware's output (the old ordering's unconditional stop too)
		}
		return
	}
	// "Protect against the PMI racing with disabling wrmsr"
	fp := p.k.M.FootprintListening()
	if fp {
		c.AccessMarkedOnly(pt, "pt->handle_nmi", cpu.MarkedWrite, "pt_event_stop") // pt.c: pt_event_stop(): WRITE_ONCE(pt->handle_nmi, 0)
	}
	pt.handleNMI = false
	c.Step("pt_event_stop:handle-nmi-cleared")
	if p.knob("pt-pause-resume") != "pre-08c7454ceb94" {
		c.Access(pt, "pt->pause_allowed", cpu.MarkedWrite, "pt_event_stop")  // pt.c: pt_event_stop(): WRITE_ONCE(pt->pause_allowed, 0)
		c.Access(pt, "pt->resume_allowed", cpu.MarkedWrite, "pt_event_stop") // pt.c: pt_event_stop(): WRITE_ONCE(pt->resume_allowed, 0)
		pt.pauseAllowed = false
		pt.resumeAllowed = false
	}
	p.configStop(c)
	c.Step("pt_event_stop:config-stopped")
	defer p.checkStopped(c)
	if fp {
		accessStopState(c, e) // footprint_addel.go: event->hw.state read, and written unless stopped
	}
	if e.HWState() == pmu.PERF_HES_STOPPED {
		stopReturn(c, fp, fromDel)
		return
	}
	e.SetHWState(pmu.PERF_HES_STOPPED)
	if mode&pmu.PERF_EF_UPDATE == 0 {
		stopReturn(c, fp, fromDel)
		return
	}
	priv := rb.GetAux(&pt.handle)
	if fp {
		p.accessStopHead(c, pt, priv != nil) // footprint_addel.go: perf_get_aux(), pt_handle_status(), pt_update_head()
	}
	if priv == nil {
		stopReturn(c, fp, fromDel)
		return
	}
	buf := priv.(*ptBuffer)
	p.handleStatus(pt, buf)
	p.updateHead(buf)
	if buf.snapshot {
		if fp {
			c.Unaudited("pt_event_stop (snapshot)") // pt.c: pt_event_stop(): if (buf->snapshot) pt->handle.head = local_xchg(&buf->data_size, ...): not annotated
		}
		pt.handle.Head = buf.dataSize
		buf.dataSize = buf.size
	}
	size := buf.dataSize
	buf.dataSize = 0
	_ = rb.AuxOutputEnd(c, &pt.handle, size)
	stopReturn(c, fp, fromDel)
}

// checkStopped observes that pt_event_stop() left the hardware off.
func (p *PMU) checkStopped(c *cpu.CPU) {
	if p.cpus[c.ID].traceEn {
		p.TraceAfterStop++
	}
}

// resetOffsets is pt_buffer_reset_offsets(): the hardware continues at head.
func (p *PMU) resetOffsets(buf *ptBuffer, head uint64) {
	if buf.snapshot {
		head &= buf.size - 1
	}
	buf.hwPos = head
	buf.head = head & (buf.size - 1)
	buf.dataSize = 0
}

// resetMarkers is pt_buffer_reset_markers(): STOP (with INT) where the free
// space ends, INT at the wakeup point or one page before STOP, both counted in
// pages as the driver does. A transaction that cannot reach the end of the
// current output region fails TRUNCATED. Today the page count drops the carry
// of head's and the size's in-page offsets; knob pt-reset-markers=proposed
// counts the pages from head's page to the one holding the room's end.
// arch/x86/events/intel/pt.c: pt_buffer_reset_markers()
func (p *PMU) resetMarkers(pt *ptCtx, buf *ptBuffer) bool {
	return resetMarkers(pt, buf, p.knob("pt-reset-markers") == "proposed")
}

// resetMarkers is pt_buffer_reset_markers() as today's code (proposed false)
// or the proposed fix (docs/upstream/pt-reset-markers-carry.md) counts pages.
// arch/x86/events/intel/pt.c: pt_buffer_reset_markers()
func resetMarkers(pt *ptCtx, buf *ptBuffer, proposed bool) bool {
	h := &pt.handle
	off := buf.hwPos % buf.region // buf->output_off
	// "can't stop in the middle of an output region"
	if off+h.Size+1 < buf.region {
		rb.AuxOutputFlag(h, uapi.PERF_AUX_FLAG_TRUNCATED)
		return false
	}
	var npages uint64
	if proposed {
		// npages = (offset_in_page(head) + handle->size + 1) >> PAGE_SHIFT;
		npages = (h.Head%rb.PageSize + h.Size + 1) / rb.PageSize
	} else {
		// "how many pages till the STOP marker"
		npages = h.Size / rb.PageSize
		// "if it's on a page boundary, fill up one more page"
		if (h.Head+h.Size+1)%rb.PageSize == 0 {
			npages++
		}
	}
	stopPage := h.Head/rb.PageSize + npages
	buf.stopPos = buf.markerAt(stopPage)
	// "in the worst case, wake up the consumer one page before hard stop"
	intPage := min(h.Head/rb.PageSize+npages-1, h.Wakeup/rb.PageSize)
	buf.intPos = buf.markerAt(intPage)
	if buf.intPos >= buf.stopPos {
		buf.intPos = 0 // the STOP entry raises the PMI
	}
	return true
}

// markerAt is where the output reaches a marker placed for page pg (a
// free-running page number): pt_topa_prev_entry() puts it on the entry before
// the one holding pg, so at the start of pg's output region; a marker at or
// behind the hardware's position is reached a lap later.
func (buf *ptBuffer) markerAt(pg uint64) uint64 {
	at := pg * rb.PageSize / buf.region * buf.region
	for at <= buf.hwPos {
		at += buf.size
	}
	return at
}

// accrue lets the hardware write the trace of the time since the last look:
// rate bytes per microsecond while TraceEn and the CPU was in a traced mode,
// up to the STOP marker (then STATUS.STOPPED and the PMI).
func (p *PMU) accrue(c *cpu.CPU) {
	pt := &p.cpus[c.ID]
	// The hardware, not kernel code (KCSAN never sees it: data_race, so
	// neither does the data-race oracle, and only a footprint listener
	// hears it): the CPU's RTIT state, the task it traces and where it runs.
	fp := p.k.M.FootprintListening()
	if fp {
		c.AccessMarkedOnly(pt, "RTIT_STATUS, the trace position", cpu.DataRaceWrite, "intel_pt") // the PT hardware (Intel SDM 33.2.7): packets since the last look
		if th := c.Curr(); th != nil {
			c.AccessMarkedOnly(th, "the task's mode and stacks", cpu.DataRaceRead, "intel_pt") // the IP and mode it traces
			if t := sched.TaskOf(th); t != nil && t.MM != nil {
				c.AccessMarkedOnly(t.MM, "mm->mmap", cpu.DataRaceRead, "intel_pt") // which VMA the IP lies in
			}
		}
	}
	now := c.Now()
	since, wasUser, ip, loop, wasMM := pt.since, pt.user, pt.ip, pt.loop, pt.mm
	pt.since = now
	pt.user = c.Curr() != nil && c.Curr().User
	pt.ip, pt.loop = p.taskIP(c, pt.user)
	pt.mm = nil
	if t := sched.TaskOf(c.Curr()); t != nil {
		pt.mm = t.MM
	}
	// The hardware writes where RTIT_OUTPUT_BASE points, as RTIT_CTL says,
	// whether or not the driver still has an AUX transaction open there.
	e, buf := pt.hwEvent, pt.hwBuf
	if !pt.traceEn || e == nil || buf == nil || now <= since {
		return
	}
	if (wasUser && e.Attr.ExcludeUser) || (!wasUser && e.Attr.ExcludeKernel) {
		return
	}
	if pt.status&rtitStatusStopped != 0 { // TraceStop (or the ToPA STOP) hit: no packets
		return
	}
	if fp {
		c.AccessMarkedOnly(buf, "pt_buffer (the hardware's output position)", cpu.DataRaceWrite, "intel_pt") // the PT hardware writes the ToPA
		c.AccessMarkedOnly(e, "event->addr_filters", cpu.DataRaceRead, "intel_pt")                           // the filters the pt.filter-* observables judge by
		if wasMM != nil {
			c.AccessMarkedOnly(wasMM, "mm->mmap", cpu.DataRaceRead, "intel_pt") // ... in the address space the IP was in
		}
	}
	n := uint64(int64(now-since)*p.rate/1000) / PacketSize * PacketSize
	if traced, stop := pt.ipFilter(ip); stop {
		// The IP entered a TraceStop range: RTIT_STATUS.Stopped, no more
		// packets until the driver clears it (pt_handle_status()).
		pt.status |= rtitStatusStopped
		p.TraceStops++
		return
	} else if !traced {
		p.Filtered += n // outside every FilterEn range: PacketEn is 0
		if filterNames(e, wasMM, ip) && !e.AddrFilterSetting() {
			p.FilterMissed += n
		}
		return
	}
	if hasFilterFilter(e) && !filterNames(e, wasMM, ip) && !e.AddrFilterSetting() {
		p.FilterLeaked += n // PacketEn where no "filter" names the code
	}
	if !buf.snapshot && buf.stopPos != 0 && buf.hwPos+n >= buf.stopPos {
		p.Dropped += buf.hwPos + n - buf.stopPos
		n = buf.stopPos - buf.hwPos
		pt.status |= rtitStatusStopped
		pt.traceEn = false
	}
	if n > 0 {
		out := p.traceSpan(pt, buf, e, n, since, now, ip, loop)
		c.Access(buf.buf, "rb->aux_pages", cpu.DataRaceWrite, "intel_pt") // the PT hardware writes the AUX pages
		buf.buf.AuxWrite(buf.hwPos, out)
		if pt.tap != nil {
			*pt.tap = append(*pt.tap, out...)
		}
		buf.hwPos += n
		p.Produced += n
	}
}

// traceSpan is the n bytes of Intel PT packets the hardware writes for the
// time since the last look, traced in one mode (AppendTraceSpan): a PSB+
// when tracing was just enabled or a PSB period of output has passed
// (psb_period in the config: 2^(11+psb_period) bytes, also inside the
// span), TSC, MODE.Exec, TIP.PGE at the task's address in that mode, timing
// packets with the time they were written (two laps of the buffer never
// hold the same bytes), FUP and TIP.PGD at the end. A stretch too short for
// that is timing packets only. The bytes are the CPU's room (ptCtx.span),
// valid until its next traceSpan.
func (p *PMU) traceSpan(pt *ptCtx, buf *ptBuffer, e *pmu.Event, n uint64, since, now sim.Time, ip uint64, loop bool) []byte {
	psbPeriod := uint64(1) << (11 + e.Attr.Config>>24&0xf)
	base := buf.hwPos
	tscAt := func(off int) uint64 {
		return (uint64(since) + uint64(int64(now-since)*int64(off)/int64(n))) * TSCPerNs
	}
	psbAt := func(off int) bool {
		if base+uint64(off) < buf.psbNext {
			return false
		}
		buf.psbNext = base + uint64(off) + psbPeriod
		return true
	}
	psb := pt.needPSB || base >= buf.psbNext
	if uint64(TraceSpanLen(psb)) > n { // no room for a span: timing only
		if pt.needPSB {
			if n < psbPlusLen {
				return pt.keepSpan(AppendTiming(pt.span[:0], int(n), tscAt, nil)) // the PSB+ still due
			}
			pt.needPSB, buf.psbNext = false, base // the PSB+ first
		}
		return pt.keepSpan(AppendTiming(pt.span[:0], int(n), tscAt, psbAt))
	}
	if psb {
		pt.needPSB = false
		buf.psbNext = base + psbPeriod
	}
	if uint64(cap(pt.span)) < n {
		pt.span = make([]byte, 0, n)
	}
	out, iters := AppendLoopSpan(pt.span[:0], int(n), tscAt(0), ip, psb, loop, tscAt, psbAt)
	p.Iterations += uint64(iters)
	return pt.keepSpan(out)
}

// keepSpan keeps the room of out (traceSpan's result) for the next stretch;
// out is valid until then.
func (pt *ptCtx) keepSpan(out []byte) []byte {
	pt.span = out[:0]
	return out
}

// armPMI arms the timer that raises the PT PMI when the output reaches the INT
// or STOP marker.
func (p *PMU) armPMI(c *cpu.CPU) {
	pt := &p.cpus[c.ID]
	buf, _ := rb.GetAux(&pt.handle).(*ptBuffer)
	if buf == nil || buf.snapshot || p.rate <= 0 {
		return
	}
	target := buf.stopPos
	if buf.intPos != 0 && buf.intPos > buf.hwPos {
		target = buf.intPos
	}
	if target <= buf.hwPos {
		return
	}
	d := sim.Duration((int64(target-buf.hwPos)*1000 + p.rate - 1) / p.rate)
	pt.timer.Arm(c.Now() + sim.Time(d))
}

// interrupt is the PT PMI.
// arch/x86/events/intel/pt.c: intel_pt_interrupt()
func (p *PMU) interrupt(c *cpu.CPU) {
	pt := &p.cpus[c.ID]
	p.PMIs++
	p.accrue(c) // the hardware reached the marker that raised this PMI
	fp := p.k.M.FootprintListening()
	if fp {
		p.accessInterruptEntry(c, pt) // footprint.go: handle_nmi, handle.event
	}
	// "There may be a dangling PT bit in the interrupt status register after PT
	// has been disabled by pt_event_stop()."
	if !pt.handleNMI {
		return
	}
	e, _ := pt.handle.Event.(*pmu.Event)
	if e == nil {
		return
	}
	p.configStop(c)
	priv := rb.GetAux(&pt.handle)
	if fp {
		p.accessPMIHead(c, pt, priv != nil) // footprint.go: pt_read_offset(), pt_handle_status(), pt_update_head()
	}
	if priv == nil {
		return
	}
	buf := priv.(*ptBuffer)
	p.handleStatus(pt, buf)
	p.updateHead(buf)
	size := buf.dataSize
	buf.dataSize = 0
	_ = rb.AuxOutputEnd(c, &pt.handle, size)
	c.Step("intel_pt_interrupt:output-end")
	if fp {
		accessRestartBegin(c, e) // footprint.go: hw.state, output_event->rb
	}
	if e.HWState() == 0 {
		if rb.AuxOutputBegin(c, &pt.handle, e.OutputEvent().RB(), e) == nil {
			if fp {
				accessRestartFailed(c, pt, e) // footprint.go
			}
			e.SetHWState(pmu.PERF_HES_STOPPED)
			pt.resumeAllowed = false
			return
		}
		if fp {
			accessTxnStart(c, pt, buf, e, false) // footprint.go: to pt_config_start() (annotated) and the handler's return, or the record
		}
		p.resetOffsets(buf, pt.handle.Head)
		if !p.resetMarkers(pt, buf) {
			_ = rb.AuxOutputEnd(c, &pt.handle, 0)
			if fp {
				c.AccessMarkedOnly(pt, "pt->resume_allowed", cpu.MarkedWrite, "intel_pt_interrupt") // pt.c: intel_pt_interrupt(): WRITE_ONCE(pt->resume_allowed, 0), then the handler's return
			}
			pt.resumeAllowed = false
			return
		}
		pt.hwBuf, pt.hwEvent = buf, e // pt_config_buffer(buf)
		p.configStart(c, e)
	}
}

// handleStatus is pt_handle_status(): STOPPED at the end of a region truncates
// the transaction and advances; advancing past the last region sets wrapped.
// arch/x86/events/intel/pt.c: pt_handle_status()
func (p *PMU) handleStatus(pt *ptCtx, buf *ptBuffer) {
	if pt.status&rtitStatusStopped != 0 {
		pt.status &^= rtitStatusStopped
		if buf.hwPos%buf.region == 0 {
			rb.AuxOutputFlag(&pt.handle, uapi.PERF_AUX_FLAG_TRUNCATED)
			// pt_buffer_advance(): the next region is the first one again
			if buf.hwPos&(buf.size-1) == 0 {
				buf.wrapped = true
			}
		}
	}
}

// updateHead is pt_update_head(): how much the hardware wrote since the last
// look. In full-trace mode a base not past the old head means a wrap; before
// 5b590160d2cf (knob pt-wrapped) a whole-buffer wrap (base == old) counted 0.
// arch/x86/events/intel/pt.c: pt_update_head()
func (p *PMU) updateHead(buf *ptBuffer) {
	wrapped := buf.wrapped
	buf.wrapped = false
	base := buf.hwPos & (buf.size - 1)
	if buf.snapshot {
		buf.dataSize = base
		return
	}
	old := buf.head
	buf.head = base
	if base < old || (base == old && wrapped && p.knob("pt-wrapped") != "pre-5b590160d2cf") {
		base += buf.size
	}
	buf.dataSize += base - old
}

// SnapshotAuxOutput implements pmu.AuxSnapshotter: stop the trace, copy the
// newest size bytes, restart if tracing was on. Before d92792a4b26e (knob
// pt-snapshot-stop) the stop was skipped when handle_nmi was clear, so a sample
// inside pt_event_stop's window copied while the hardware still wrote.
// arch/x86/events/intel/pt.c: pt_event_snapshot_aux()
func (p *PMU) SnapshotAuxOutput(c *cpu.CPU, e *pmu.Event, h *rb.Handle, size uint64) int64 {
	pt := &p.cpus[c.ID]
	buf, _ := rb.GetAux(&pt.handle).(*ptBuffer)
	if buf == nil || !buf.snapshot { // WARN_ON_ONCE(!buf) / (!buf->snapshot)
		return 0
	}
	old := p.knob("pt-snapshot-stop") == "pre-d92792a4b26e"
	if old {
		if pt.handleNMI {
			pt.pauseAllowed, pt.resumeAllowed = false, false
			p.configStop(c)
		} else {
			p.accrue(c)
		}
	} else {
		// "Prevent pause/resume from attempting to start/stop tracing"
		pt.pauseAllowed, pt.resumeAllowed = false, false
		p.configStop(c)
	}
	p.updateHead(buf)
	to := buf.dataSize
	from := uint64(0)
	if to < size {
		from = buf.size
	}
	from += to - size
	want := buf.buf.AuxCopyOut(buf.hwPos-size, int(size))
	tracing := pt.traceEn
	// For the aux-sample-is-newest invariant: the copy of the newest size bytes starts now.
	buf.buf.Trace(rb.TraceEvent{Kind: rb.TraceAuxSampleBegin, Size: int(size), Value: buf.size})
	var n int
	if tracing {
		// The copy takes time and the hardware, left on, writes meanwhile
		// from where pt_read_offset() found it (to), on round the ToPA ring.
		p.CopiedWhileTracing++
		n = p.racingCopy(c, pt, buf, h, from, size, want)
	} else {
		half := from + size/2
		n1, _ := rb.OutputCopyAux(c, &pt.handle, h, from, half)
		n2, _ := rb.OutputCopyAux(c, &pt.handle, h, half, to)
		n = n1 + n2
	}
	if pt.handleNMI {
		pt.resumeAllowed = true
		p.configStart(c, e)
		pt.pauseAllowed = true
	}
	ret := int64(n)
	chk := pmu.AuxSampleCheck{CPU: c.ID, Size: size, Copied: ret, Want: want}
	if tracing {
		chk.Got = buf.buf.AuxCopyOut(buf.hwPos-size, int(size)) // what the area holds now differs from what was copied
		chk.Sampler = "copied while the hardware was writing"
	} else {
		chk.Got = want
	}
	p.k.RecordAuxSample(chk)
	return ret
}

// copyBytesPerUs is how fast perf_output_copy_aux()'s memcpy reads the AUX
// area in the model: 2 bytes per ns (a 4 KiB sample takes 2.048us).
const copyBytesPerUs = 2000

// racingCopy is perf_output_copy_aux() from an AUX area the hardware still
// writes (pt-snapshot-stop=pre-d92792a4b26e): the memcpy reads the sample
// front to back, from (the oldest byte) to to (where the hardware's output
// pointer was), at copyBytesPerUs, while the hardware writes at its rate from
// to onwards, round the ring, over the oldest bytes first. Each byte of the
// sample is the version its slot held when the copy read it: byte k (read
// k/copyBytesPerUs after the copy began) is the hardware's output byte j
// (written (j+1)/rate after it began) of the same slot, the newest such, or
// the byte from before the copy. Where the hardware is slower than the copy
// the copy stays ahead of it and reads only older bytes; where it is faster it
// overtakes the copy and each slot shows the lap it was on when read.
// kernel/events/ring_buffer.c: perf_output_copy_aux()
func (p *PMU) racingCopy(c *cpu.CPU, pt *ptCtx, buf *ptBuffer, h *rb.Handle, from, size uint64, before []byte) int {
	var out []byte
	pt.tap = &out
	c.Spend(sim.Duration(size*1000/copyBytesPerUs) * sim.Nanosecond)
	p.accrue(c)
	pt.tap = nil
	got := append([]byte(nil), before...)
	lap := buf.size
	for k := range got {
		for j := uint64(k) + lap - size; j < uint64(len(out)) && int64(j+1)*copyBytesPerUs <= p.rate*int64(k); j += lap {
			got[k] = out[j]
		}
	}
	// The copy goes a page at a time as perf_output_copy_aux() does; with
	// no room it stops (-EFAULT) and the pages copied count.
	n, _ := rb.CopyAuxPages(c, h, from, uint64(len(got)), func(k, m uint64) []byte { return got[k : k+m] })
	return n
}

// Knobs are the driver's knobs.
var Knobs = []sim.KnobSpec{{
	Name:   "pt-pause-resume",
	Values: []string{"today", "pre-08c7454ceb94"},
	Help: "pt_event_start/stop PERF_EF_RESUME/PAUSE: today resume_allowed/pause_allowed are set around pt_config_start() and cleared first in pt_event_stop(), " +
		"with resume_allowed re-checked after reading RTIT_STATUS; before: PAUSE always pt_config_stop()s and RESUME pt_config_start()s when hw.state == 0, " +
		"so a RESUME landing in pt_event_stop() after the stop re-enables tracing",
	Source:  "08c7454ceb94 perf/x86/intel/pt: Add support for pause / resume (V13/V14 ordering of resume_allowed, pause_allowed, handle_nmi)",
	Package: "pmu/pt",
}, {
	Name:   "pt-snapshot-stop",
	Values: []string{"today", "pre-d92792a4b26e"},
	Help: "pt_event_snapshot_aux(): today always pt_config_stop() before copying; before: only if handle_nmi, so a sampling NMI in pt_event_stop()'s window " +
		"(handle_nmi cleared, trace still on) copies the buffer while the hardware writes it",
	Source:  "d92792a4b26e perf/x86/intel/pt: Fix sampling synchronization (Fixes 25e8920b301c)",
	Package: "pmu/pt",
}, {
	Name:   "pt-wrapped",
	Values: []string{"today", "pre-5b590160d2cf"},
	Help: "pt_update_head(): today `if (base < old || (base == old && wrapped)) base += size`; before: `if (base < old)`, so a buffer that fills " +
		"from empty to full before the head is read reports size 0 (PERF_RECORD_AUX TRUNCATED with size 0)",
	Source:  "5b590160d2cf perf/x86/intel/pt: Fix buffer full but size is 0 case",
	Package: "pmu/pt",
}, {
	Name:   "pt-reset-markers",
	Values: []string{"today", "proposed"},
	Help: "pt_buffer_reset_markers(): today `npages = handle->size >> PAGE_SHIFT; if (!offset_in_page(head + handle->size + 1)) npages++;`, which drops the carry " +
		"of head's and the size's in-page offsets: when the room perf_aux_output_begin() found is under a page and crosses a page boundary, STOP lands on the " +
		"ToPA entry before the one being written, a lap away, and the hardware overwrites trace the reader has not read; proposed: " +
		"`npages = (offset_in_page(head) + handle->size + 1) >> PAGE_SHIFT;`, the pages from head's to the one holding the room's end",
	Source:  "proposed: docs/upstream/pt-reset-markers-carry.md (the page count as in pt.c since the driver was merged, v4.1; read at linux-next 2026954a57ed, v6.19-rc)",
	Package: "pmu/pt",
}}

var stepPoints = []string{
	"intel_pt_interrupt:output-end",
	"pt_config:handle-nmi",
	"pt_config:resume-allowed",
	"pt_config:started",
	"pt_event_start:hw-state-read",
	"pt_event_start:resume-allowed",
	"pt_event_start:status-read",
	"pt_event_stop:config-stopped",
	"pt_event_stop:handle-nmi-cleared",
}

func init() {
	pmu.RegisterDriver(pmu.Driver{
		Name:  "intel_pt",
		Help:  "Intel PT (arch/x86/events/intel/pt.c): AUX area trace at rate=BYTES_PER_US into output regions of region=SIZE; PMI at INT/STOP markers, up to skid=DURATION late",
		Attrs: map[string][]string{"rate": {pmu.ValueInt}, "region": {pmu.ValueSize}, "skid": {pmu.ValueDuration}, "addr-ranges": {pmu.ValueInt}},
		Caps:  []string{"aux-pause", "itrace", "exclusive", "aux-prefer-large", "aux-no-sg"},
		Knobs: Knobs, StepPoints: stepPoints,
		New: func(k *pmu.Kernel, attrs map[string]string) (pmu.PMU, error) {
			rate, region := int64(1000), uint64(4096)
			if v, ok := attrs["rate"]; ok {
				n, err := pmu.ParseAttrInt(v)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("rate=%s: expected bytes per microsecond", v)
				}
				rate = n
			}
			if v, ok := attrs["region"]; ok {
				n, err := parseSize(v)
				if err != nil || n < rb.PageSize || n&(n-1) != 0 {
					return nil, fmt.Errorf("region=%s: expected a power-of-two size of at least 4K", v)
				}
				region = n
			}
			var skid sim.Duration
			if v, ok := attrs["skid"]; ok {
				d, err := pmu.ParseAttrDuration(v)
				if err != nil {
					return nil, fmt.Errorf("skid=%s: %w", v, err)
				}
				skid = d
			}
			caps := uint32(DefaultCaps)
			if v, ok := attrs["caps"]; ok {
				caps = 0
				for _, w := range splitComma(v) {
					caps |= capWords[w]
				}
			}
			p := NewWithSkid(k, rate, region, caps, skid)
			if v, ok := attrs["addr-ranges"]; ok {
				n, err := pmu.ParseAttrInt(v)
				if err != nil || n < 0 || n > 4 { // EAX[2:0]; four RTIT_ADDRn pairs
					return nil, fmt.Errorf("addr-ranges=%s: expected 0 to 4 (CPUID.(EAX=14H,ECX=1):EAX[2:0], PT_CAP_num_address_ranges)", v)
				}
				p.addrRanges = int(n)
			}
			return p, nil
		},
	})
}

// ptOf returns k's intel_pt PMU, or nil.
func ptOf(k *pmu.Kernel) *PMU {
	for _, p := range k.PMUs() {
		if pt, ok := p.(*PMU); ok {
			return pt
		}
	}
	return nil
}

// The driver's kernel observables (0 without an intel_pt PMU).
func init() {
	stat := func(name, help string, get func(p *PMU) int64) {
		pmu.RegisterObservable(name, help, func(k *pmu.Kernel) int64 {
			if p := ptOf(k); p != nil {
				return get(p)
			}
			return 0
		})
	}
	stat("pt.produced", "trace bytes the Intel PT hardware wrote into AUX areas", func(p *PMU) int64 { return int64(p.Produced) })
	stat("pt.iterations", "loop iterations of the synthetic images' code the Intel PT trace shows (a TNT bit and a TIP each; pmu.ImageLoopInsns instructions)",
		func(p *PMU) int64 { return int64(p.Iterations) })
	stat("pt.filtered", "trace bytes Intel PT's IP filter kept the hardware from writing (the CPU ran outside every FilterEn address range)",
		func(p *PMU) int64 { return int64(p.Filtered) })
	stat("pt.filter-missed", "trace bytes Intel PT's IP filter suppressed although the CPU ran code one of the event's \"filter\" address filters names (its file's region as the task maps it now, or its kernel range)",
		func(p *PMU) int64 { return int64(p.FilterMissed) })
	stat("pt.filter-leaked", "trace bytes Intel PT wrote while the CPU ran code none of the event's \"filter\" address filters names (outside a PERF_EVENT_IOC_SET_FILTER still in progress): stale ranges in the hardware",
		func(p *PMU) int64 { return int64(p.FilterLeaked) })
	stat("pt.trace-stops", "times the CPU entered an Intel PT TraceStop address range (RTIT_STATUS.Stopped)",
		func(p *PMU) int64 { return int64(p.TraceStops) })
	stat("pt.buffers", "struct pt_buffers alive now (pt_buffer_setup_aux() made, pt_buffer_free_aux() not yet freed): an AUX area's driver buffer",
		func(p *PMU) int64 { return p.Buffers })
	stat("pt.add-ebusy", "pt_event_add() calls that failed -EBUSY: pt->handle.event still set (a transaction left open)",
		func(p *PMU) int64 { return int64(p.AddBusy) })
}

var capWords = map[string]uint32{
	"aux-pause": pmu.PERF_PMU_CAP_AUX_PAUSE, "itrace": pmu.PERF_PMU_CAP_ITRACE, "exclusive": pmu.PERF_PMU_CAP_EXCLUSIVE,
	"aux-prefer-large": pmu.PERF_PMU_CAP_AUX_PREFER_LARGE, "aux-no-sg": pmu.PERF_PMU_CAP_AUX_NO_SG,
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

func parseSize(v string) (uint64, error) {
	mult := uint64(1)
	if n := len(v); n > 0 {
		switch v[n-1] {
		case 'K', 'k':
			mult, v = 1024, v[:n-1]
		case 'M', 'm':
			mult, v = 1<<20, v[:n-1]
		}
	}
	n, err := pmu.ParseAttrInt(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", v)
	}
	return uint64(n) * mult, nil
}

// taskIP is where the CPU executes in the mode (pmu: TaskIP) and whether a
// decoder can follow the code there: kernel text always (perftool writes
// the kernel's image), user text when the task's address space maps an
// image's text page there (an exec'd file).
func (p *PMU) taskIP(c *cpu.CPU, user bool) (uint64, bool) {
	t := sched.TaskOf(c.Curr())
	ip := p.k.TaskIP(t, user)
	if !user {
		return ip, true
	}
	if t == nil || t.MM == nil {
		return ip, false
	}
	v := t.MM.Find(ip)
	return ip, v != nil && v.File != nil && v.Start == pmu.UserText && v.Flags&mm.VM_EXEC != 0
}
