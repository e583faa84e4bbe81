package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// eventAux is the AUX part of struct perf_event and hw_perf_event.
type eventAux struct {
	event  *Event // event->aux_event: the group's AUX leader (perf_get_aux_event)
	paused bool   // hw.aux_paused: "cannot be a state flag because it can be updated asynchronously to state"
	hwUser any    // the AUX driver's per-event data
}

// AuxPaused reports event->hw.aux_paused.
func (e *Event) AuxPaused() bool { return e.aux.paused }

// Excludes are attr.exclude_user and attr.exclude_kernel (the AUX drivers'
// privilege filters).
func (e *Event) Excludes() (user, kernel bool) { return e.Attr.ExcludeUser, e.Attr.ExcludeKernel }

// AuxEvent returns event->aux_event (nil when the event has none).
func (e *Event) AuxEvent() *Event { return e.aux.event }

// HWState is hw_perf_event.state (PERF_HES_*), for drivers.
func (e *Event) HWState() int { return e.hw.state }

// SetHWState sets hw_perf_event.state.
func (e *Event) SetHWState(s int) { e.hw.state = s }

// DriverData is the driver's per-event data (what a driver keeps in hw_perf_event).
func (e *Event) DriverData() any { return e.aux.hwUser }

// SetDriverData sets the driver's per-event data.
func (e *Event) SetDriverData(v any) { e.aux.hwUser = v }

// PMU returns event->pmu.
func (e *Event) PMU() PMU { return e.pmu }

// Kernel returns the perf core the event belongs to.
func (e *Event) Kernel() *Kernel { return e.k }

// DriverBase is embedded by PMU drivers outside this package (pmu/pt,
// pmu/coresight): it carries what the core keeps per PMU.
type DriverBase struct{ pmuBase }

// AuxSnapshotter is implemented by a PMU with pmu->snapshot_aux (Intel PT):
// copy the newest size bytes of the AUX area into the sample's handle without
// changing the event's state, returning how many bytes it copied.
type AuxSnapshotter interface {
	SnapshotAuxOutput(c *cpu.CPU, e *Event, h *rb.Handle, size uint64) int64
}

// AuxDescriber is a PMU whose driver describes its AUX writes
// (rb.Buffer.AuxWriteSource) and reads no AUX pages in SetupAux: its AUX
// areas hold descriptions until something reads them as bytes (not part of
// the kernel: the simulator's way to not make trace bytes nobody reads).
type AuxDescriber interface {
	AuxDescribed() bool
}

// The rb.AuxEvent side of struct perf_event.

// DisableInatomic is perf_event_disable_inatomic(): disable from the irq_work.
// kernel/events/core.c: perf_event_disable_inatomic()
func (e *Event) DisableInatomic() { e.k.perfEventDisableInatomic(e) }

// AuxRecord writes PERF_RECORD_AUX into the event's data ring.
// kernel/events/core.c: perf_event_aux_event()
func (e *Event) AuxRecord(s rb.Stepper, head, size, flags uint64) {
	c := e.k.curCPU()
	if e.k.M.FootprintListening() && c != nil {
		accessAuxRecord(c, e) // footprint_aux.go
	}
	id := e.k.sidebandID(c, e)
	out := e.rb
	if e.k.aux.stats.auxRecords++; out != nil {
		// perf_output_begin(): is_write_backward(). Its caller,
		// perf_aux_output_end(), annotates its code after the record (rb/footprint_aux.go).
		_ = rb.PerfOutputSidebandAudited(s, out, e, &rb.Aux{Offset: head, Size: size, Flags: flags}, id, e.Attr.WriteBackward)
	}
	if flags&uapi.PERF_AUX_FLAG_TRUNCATED != 0 {
		e.k.aux.stats.auxTruncated++
	}
}

// ItraceStarted writes PERF_RECORD_ITRACE_START once per AUX event start in a
// task: the first pmu::start of the event (event->attach_state & PERF_ATTACH_ITRACE).
// An inherited event logs through its parent (the parent's flag, ring and
// sample_id; the pid and tid of the task running it), so a child logs until
// its parent itself has started (the flag it checks is the parent's).
// Its caller must annotate its own code after the record, to its next step
// point (the record's return into it is not marked).
// kernel/events/core.c: perf_event_itrace_started() / perf_log_itrace_start()
func (e *Event) ItraceStarted(c *cpu.CPU) {
	oe := e.OutputEvent()               // perf_log_itrace_start(): "if (event->parent) event = event->parent;"
	logged := e.k.aux.itraceStarted[oe] // oe->attach_state & PERF_ATTACH_ITRACE
	if e.k.M.FootprintListening() {
		accessItraceStarted(c, e, oe) // footprint_aux.go
	}
	e.k.setItraceStarted(e) // perf_event_itrace_started(event)
	if oe.rb == nil || e.hw.target == nil || logged {
		return
	}
	t := e.hw.target
	if cur := sched.TaskOf(c.Curr()); cur != nil && e.parent != nil {
		t = cur // perf_event_pid(event, current)
	}
	// The caller (intel_pt's pt_event_start() -> pt_config(), the only one)
	// annotates its code after the record (pmu/pt/footprint.go).
	_ = rb.PerfOutputSidebandAudited(c, oe.rb, oe, &rb.ItraceStart{Pid: uint32(t.PID), Tid: uint32(t.TID)}, e.k.sidebandID(c, oe), oe.Attr.WriteBackward)
}

// setItraceStarted sets PERF_ATTACH_ITRACE on e.
func (k *Kernel) setItraceStarted(e *Event) {
	if k.aux.itraceStarted == nil {
		k.aux.itraceStarted = map[*Event]bool{}
	}
	k.aux.itraceStarted[e] = true
}

// OutputEvent is the event whose ring an event's output goes to: an
// inherited event writes into its parent's.
// kernel/events/ring_buffer.c: perf_aux_output_begin(), __perf_output_begin() ("if (event->parent) event = event->parent")
func (e *Event) OutputEvent() *Event {
	if e.parent != nil {
		return e.parent
	}
	return e
}

// sidebandID is the sample_id data of a side-band record written now on c
// (perf_event_header__init_id()).
func (k *Kernel) sidebandID(c *cpu.CPU, e *Event) *rb.SampleID {
	id := &rb.SampleID{ID: e.leaderID(), StreamID: e.id, Time: uint64(k.now())}
	if c != nil {
		id.CPU = uint32(c.ID)
		r := k.interruptedRegs(c)
		if r.task != nil {
			id.Pid, id.Tid = uint32(r.task.PID), uint32(r.task.TID)
		}
	}
	return id
}

// leaderID is primary_event_id() for the sample_id: the original's id for
// an inherited event, else the event's own.
func (e *Event) leaderID() uint64 { return e.primaryEventID() }

// perfGetAuxEvent links an event that needs an AUX event to its group leader
// (event->aux_event). It reports false where the kernel returns 0 (then
// perf_event_open fails with -EINVAL).
// kernel/events/core.c: perf_get_aux_event()
func perfGetAuxEvent(e, leader *Event) bool {
	if leader == nil { // "Our group leader must be an aux event if we want to be an aux_output."
		return false
	}
	al := auxLeaderOf(leader)
	if CheckAuxEvent(&e.Attr, al) != nil {
		return false
	}
	// "Link aux_outputs to their aux event; this is undone in perf_group_detach()
	// by perf_put_aux_event(). When the group in torn down, the aux_output events
	// loose their link to the aux_event and can't schedule any more."
	e.aux.event = leader
	return true
}

// auxLeaderOf describes the leader for CheckAuxEvent.
func auxLeaderOf(leader *Event) *AuxLeader {
	_, snap := leader.pmu.(AuxSnapshotter)
	return &AuxLeader{
		Capabilities:   leader.pmu.Capabilities(),
		HasSnapshotAux: snap,
		AuxOutputMatch: leader.pmu.HasAux(), // perf_aux_output_match(): same PMU family; no aux_output_match() PMU here
		Dead:           leader.state <= StateDead,
	}
}

// perfEventAllocAux is the aux_start_paused part of perf_event_alloc() after
// the checks: hw.aux_paused starts as aux_start_paused on a PMU with
// PERF_PMU_CAP_AUX_PAUSE (CheckAllocPMU refused the others).
// kernel/events/core.c: perf_event_alloc()
func perfEventAllocAux(e *Event) {
	if e.Attr.AuxStartPaused {
		e.aux.paused = true
	}
}

// kernelAux is the core's AUX state that no kernel structure holds: counters
// for the observables and the invariants' bookkeeping.
type kernelAux struct {
	pauseRes      pauseResume
	itraceStarted map[*Event]bool
	stats         struct{ auxRecords, auxTruncated, auxWarn, auxSamples, auxSamplesEmpty uint64 }
	samples       []AuxSampleCheck // aux-sample-is-newest observations
	sampleWhy     auxSampleWhy     // aux_sample_observe.go
}

// pauseResume is the in-flight record of PERF_EF_PAUSE/RESUME callbacks, for the
// pmu-pause-resume-exclusive invariant (an observer, not the kernel).
type pauseResume struct {
	inFlight   map[*Event]int
	overlaps   uint64
	dropped    uint64 // requests that found rb->aux_in_pause_resume set (NMI loses)
	calls      uint64
	firstClash string
	lostResume uint64 // dropped RESUME requests that left tracing paused
}

// __perf_event_aux_pause: PMU stop/start only when aux_paused changes.
// kernel/events/core.c: __perf_event_aux_pause()
func (k *Kernel) __perfEventAuxPause(c *cpu.CPU, e *Event, pause bool) {
	fp := k.M.FootprintListening()
	if fp {
		accessAuxPaused(c, e, cpu.PlainRead) // footprint_aux.go
	}
	if pause {
		if !e.aux.paused {
			if fp {
				accessAuxPaused(c, e, cpu.PlainWrite)
			}
			e.aux.paused = true
			k.pauseResumeCall(c, e, PERF_EF_PAUSE)
		}
	} else if e.aux.paused {
		if fp {
			accessAuxPaused(c, e, cpu.PlainWrite)
		}
		e.aux.paused = false
		k.pauseResumeCall(c, e, PERF_EF_RESUME)
	}
}

// pauseResumeCall is event->pmu->stop(event, PERF_EF_PAUSE) or
// ->start(event, PERF_EF_RESUME), bracketed for the invariant.
func (k *Kernel) pauseResumeCall(c *cpu.CPU, e *Event, flag int) {
	pr := &k.aux.pauseRes
	if pr.inFlight == nil {
		pr.inFlight = map[*Event]int{}
	}
	pr.calls++
	if pr.inFlight[e] > 0 {
		pr.overlaps++
		if pr.firstClash == "" {
			what := "PERF_EF_RESUME"
			if flag == PERF_EF_PAUSE {
				what = "PERF_EF_PAUSE"
			}
			pr.firstClash = what + " entered on cpu" + itoa(c.ID) + " while another pause/resume of event " +
				itoa(int(e.id)) + " was in flight (" + c.Context().String() + " context)"
		}
	}
	pr.inFlight[e]++
	if k.M.FootprintListening() {
		auxPauseCallbackUnaudited(c, e, flag) // footprint_aux.go
	}
	// The pmu-pause-resume-exclusive invariant (rb/aux_invariants.go) judges these.
	e.rb.Trace(rb.TraceEvent{Kind: rb.TraceAuxCallbackEnter, Pos: e.id, Size: c.ID, Value: uint64(flag)})
	if flag == PERF_EF_PAUSE {
		e.pmu.Stop(c, e, PERF_EF_PAUSE)
	} else {
		e.pmu.Start(c, e, PERF_EF_RESUME)
	}
	e.rb.Trace(rb.TraceEvent{Kind: rb.TraceAuxCallbackExit, Pos: e.id, Size: c.ID, Value: uint64(flag)})
	pr.inFlight[e]--
}

// perfEventAuxPause pauses or resumes AUX tracing of the AUX event e from an
// overflow: with irqs off, rb->aux_in_pause_resume guards against an NMI on this
// CPU: the NMI that finds it set loses (its request is dropped). With the knob
// aux-pause-guard=off the guard is absent (the series before V5).
// kernel/events/core.c: perf_event_aux_pause()
func (k *Kernel) perfEventAuxPause(c *cpu.CPU, e *Event, pause bool) {
	if e == nil { // WARN_ON_ONCE(!event)
		k.aux.stats.auxWarn++
		return
	}
	fp := k.M.FootprintListening()
	if fp {
		accessAuxPauseGet(c, e) // footprint_aux.go
	}
	buf := e.rb
	if !k.rbGet(buf, "perf_event_aux_pause") { // ring_buffer_get(event)
		return
	}
	flags := c.LocalIrqSave() // scoped_guard (irqsave)
	c.Step("perf_event_aux_pause:irqs-off")
	guardOff := k.KnobIs("aux-pause-guard", "off")
	if fp && !guardOff {
		accessAuxInPauseResume(c, buf, cpu.MarkedRead) // footprint_aux.go
	}
	if guardOff {
		c.Unaudited("perf_event_aux_pause (aux-pause-guard=off)") // the series before V5: the callback, then the caller's return, with no step point between
		k.__perfEventAuxPause(c, e, pause)
	} else if buf.AuxInPauseResume() != 0 {
		// "Guard against self-recursion here. Another event could trip this
		// same from NMI context."
		k.aux.pauseRes.dropped++
		if fp {
			accessAuxPaused(c, e, cpu.PlainRead) // the model's count of lost resumes reads it
		}
		if !pause && e.aux.paused {
			k.aux.pauseRes.lostResume++
		}
	} else {
		if fp {
			accessAuxInPauseResume(c, buf, cpu.MarkedWrite)
		}
		buf.SetAuxInPauseResume(1)
		c.Step("perf_event_aux_pause:guard-set")
		k.__perfEventAuxPause(c, e, pause)
		c.Step("perf_event_aux_pause:callback-done")
		if fp {
			accessAuxInPauseResume(c, buf, cpu.MarkedWrite)
		}
		buf.SetAuxInPauseResume(0)
	}
	c.LocalIrqRestore(flags)
	if fp {
		k.accessRBPut(buf) // footprint_setup.go
	}
	k.ringBufferPut(buf)
}

// auxOverflowPause is the start of __perf_event_overflow() after the interrupt
// accounting: an aux_pause event pauses its AUX event.
// kernel/events/core.c: __perf_event_overflow()
func (k *Kernel) auxOverflowPause(c *cpu.CPU, e *Event) {
	if e.Attr.AuxPause {
		k.perfEventAuxPause(c, e.aux.event, true)
	}
}

// auxOverflowResume is the end of __perf_event_overflow() (label out:): an
// aux_resume event resumes its AUX event after its own sample is written.
// kernel/events/core.c: __perf_event_overflow()
func (k *Kernel) auxOverflowResume(c *cpu.CPU, e *Event) {
	if e.Attr.AuxResume {
		k.perfEventAuxPause(c, e.aux.event, false)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// auxKnobs are the core's AUX knobs (registered with the driver registry).
var auxKnobs = []sim.KnobSpec{{
	Name:   "aux-pause-guard",
	Values: []string{"on", "off"},
	Help: "perf_event_aux_pause(): on: `if (READ_ONCE(rb->aux_in_pause_resume)) break; WRITE_ONCE(rb->aux_in_pause_resume, 1); ...` under irqsave, " +
		"so an NMI overflow landing inside another pause/resume drops its request; off: no guard (the series before V5), " +
		"so an NMI's PERF_EF_PAUSE/RESUME runs inside the interrupted one's callback",
	Source:  "18d92bb57c39 perf/core: Add aux_pause, aux_resume, aux_start_paused (V5: \"Guard against NMI, NMI loses here\")",
	Package: "pmu",
}}

var auxStepPoints = []string{
	"perf_event_aux_pause:irqs-off",
	"perf_event_aux_pause:guard-set",
	"perf_event_aux_pause:callback-done",
	"perf_pmu_snapshot_aux:in-sampling",
	"perf_mmap_close:aux_mmap_count-zero",
}

func init() {
	RegisterDriver(Driver{
		Name:       "aux-core",
		Help:       "the core's AUX area support (aux_pause/aux_resume, AUX sampling); always present",
		Builtin:    true,
		Knobs:      auxKnobs,
		StepPoints: auxStepPoints,
	})
	RegisterObservable("aux.pause_resume.calls", "PERF_EF_PAUSE/RESUME callbacks made", func(k *Kernel) int64 { return int64(k.aux.pauseRes.calls) })
	RegisterObservable("aux.pause_resume.overlaps", "PERF_EF_PAUSE/RESUME callbacks entered while another was in flight on the same event",
		func(k *Kernel) int64 { return int64(k.aux.pauseRes.overlaps) })
	RegisterObservable("aux.pause_resume.dropped", "pause/resume requests dropped by the rb->aux_in_pause_resume guard (NMI loses)",
		func(k *Kernel) int64 { return int64(k.aux.pauseRes.dropped) })
	RegisterObservable("aux.resume.lost", "dropped resume requests that left tracing paused",
		func(k *Kernel) int64 { return int64(k.aux.pauseRes.lostResume) })
	RegisterBoolObservable("aux.paused", "some AUX event has hw.aux_paused set", func(k *Kernel) bool {
		for _, e := range k.events {
			if e.aux.paused {
				return true
			}
		}
		return false
	})
	RegisterObservable("aux.records", "PERF_RECORD_AUX records posted", func(k *Kernel) int64 { return int64(k.aux.stats.auxRecords) })
	RegisterObservable("aux.truncated", "PERF_RECORD_AUX records with PERF_AUX_FLAG_TRUNCATED", func(k *Kernel) int64 { return int64(k.aux.stats.auxTruncated) })
	RegisterObservable("aux.warn", "WARN_ON_ONCEs of the AUX paths", func(k *Kernel) int64 { return int64(k.aux.stats.auxWarn) })
	RegisterObservable("aux.samples", "samples carrying PERF_SAMPLE_AUX data", func(k *Kernel) int64 { return int64(k.aux.stats.auxSamples) })
	RegisterObservable("aux.samples.empty", "PERF_SAMPLE_AUX samples with aux_size 0", func(k *Kernel) int64 { return int64(k.aux.stats.auxSamplesEmpty) })
}

// PauseResumeViolation returns the first PERF_EF_PAUSE/RESUME overlap seen, or "".
func (k *Kernel) PauseResumeViolation() string { return k.aux.pauseRes.firstClash }

// SetSoftwareContext marks a driver's PMU as task_ctx_nr = perf_sw_context (Intel
// PT): hardware events of another PMU may join a group it leads
// (in_software_context(group_leader) in sys_perf_event_open()).
func (b *DriverBase) SetSoftwareContext() { b.isSoftware = true }
