package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
	"perfsim/unwind"
)

// deferredCallchainsKnob is the output of the deferred user callchain: today
// a PERF_RECORD_CALLCHAIN_DEFERRED without a period; the RFC wrote a second
// PERF_RECORD_SAMPLE carrying the period again.
var deferredCallchainsKnob = sim.KnobSpec{
	Name:   "deferred-callchain-output",
	Values: []string{"record", "rfc-sample"},
	Help: "the deferred user callchain: today PERF_RECORD_CALLCHAIN_DEFERRED {cookie, nr, ips} to every side-band event with defer_output " +
		"(perf_unwind_deferred_callback -> perf_iterate_sb); rfc-sample: the RFC's perf_pending_task_unwind() wrote a PERF_RECORD_SAMPLE per event " +
		"with perf_sample_data_init(&data, 0, event->hw.last_period), so the tool counts the period a second time",
	Source: "[PATCH RFC 04/10] perf: Introduce deferred user callchains (2023-11-08), Namhyung Kim's review \"It would double count the period for a sample. " +
		"I guess we want to set the period to 0.\"; merged as c69993ecdd4d (perf: Support deferred user unwind, v6.19)",
	Package: "pmu",
}

func init() {
	KnobSpecs = append(KnobSpecs, deferredCallchainsKnob)
	KnobSpecs = append(KnobSpecs, unwind.KnobSpecs...)
	RegisterStepPoints(unwind.StepPoints...)
	for _, o := range deferredObservables {
		RegisterObservable(o.name, o.help, o.get)
	}
}

// DeferredSample is the oracle's note of a sample that asked for a deferred
// user callchain (its PERF_CONTEXT_USER_DEFERRED and cookie).
type DeferredSample struct {
	Tid    int
	Time   uint64 // the sample's time (perf_clock)
	CPU    int
	Entry  uint64 // the task's entry context: returns to user before this one
	Cookie uint64
	Ret    int // unwind_deferred_request()'s 0 (queued) or 1 (pending or done)
	// AfterCallback: the callback of this entry had already run, so no record
	// follows (kernel-reference B16).
	AfterCallback bool
}

// DeferredReturn is the oracle's note of a return to user mode (or of the exit
// of a task): the user frames the task had in that entry.
type DeferredReturn struct {
	Tid     int
	Entry   uint64
	Cookie  uint64 // the cookie the entry had (0: none requested)
	UserIPs []uint64
	Exit    bool
	Time    uint64
}

// DeferredOutput is the oracle's note of a callback: what was written where.
type DeferredOutput struct {
	Tid     int
	Entry   uint64
	Cookie  uint64
	CPU     int
	Time    uint64
	IPs     []uint64
	Records int // PERF_RECORD_CALLCHAIN_DEFERRED written
	RFC     int // rfc-sample: PERF_RECORD_SAMPLEs written
}

// DeferredLog is everything the oracle noted about deferred callchains.
type DeferredLog struct {
	Samples []DeferredSample
	Returns []DeferredReturn
	Outputs []DeferredOutput
}

// deferredCallchains is perf's side of the deferred unwind (perf_unwind_work)
// and the infrastructure itself.
type deferredCallchains struct {
	d         *unwind.Deferred
	work      *unwind.Work
	rfcSample bool
	returns   map[*sched.Task]uint64
	called    map[*sched.Task]uint64
	requested map[*sched.Task][]*Event
	log       DeferredLog
	stats     struct{ samples, afterCallback, records, recordsLost, rfcSamples, migrated uint64 }
}

// perfUnwindDeferredInit builds the unwind infrastructure and registers
// perf's unwind work.
// kernel/events/core.c: perf_event_init() -> unwind_deferred_init(&perf_unwind_work, perf_unwind_deferred_callback)
func (k *Kernel) perfUnwindDeferredInit() {
	dc := &deferredCallchains{returns: map[*sched.Task]uint64{}, called: map[*sched.Task]uint64{},
		requested: map[*sched.Task][]*Event{}, rfcSample: k.KnobIs(deferredCallchainsKnob.Name, "rfc-sample")}
	k.defcc = dc
	cfg := unwind.DefaultConfig()
	for _, spec := range unwind.KnobSpecs {
		unwind.ApplyKnob(&cfg, spec.Name, k.Knob(spec.Name))
	}
	cfg.UserIP = func(f string) uint64 { return k.fakeIP(f, false) }
	// exit_signals() sets PF_EXITING first thing in do_exit(), before
	// perf_event_exit_task(): unwind_deferred_request() fails from there on.
	k.S.ExitHooks = append([]sched.TaskExitHook{deferredExiting{k}}, k.S.ExitHooks...)
	k.S.ExitHooks = append(k.S.ExitHooks, deferredExitNote{k}) // before unwind's own
	dc.d = unwind.New(k.S, cfg)
	dc.d.OnReturn = k.deferredOnReturn
	dc.work, _ = dc.d.Init("perf_unwind_work", k.perfUnwindDeferredCallback)
}

// Unwind returns the deferred unwind infrastructure of the machine.
func (k *Kernel) Unwind() *unwind.Deferred { return k.defcc.d }

// DeferredLog returns the oracle's notes on deferred callchains.
func (k *Kernel) DeferredLog() *DeferredLog { return &k.defcc.log }

// deferredRequest asks for the deferred user unwind for a sample and returns
// the cookie to store after PERF_CONTEXT_USER_DEFERRED, or 0 to unwind the user
// stack in place (the request failed).
// kernel/events/core.c: perf_callchain() -> unwind_deferred_request(&perf_unwind_work, &defer_cookie)
func (k *Kernel) deferredRequest(c *cpu.CPU, e *Event, r *regs) uint64 {
	dc := k.defcc
	t := r.task
	cookie, ret, err := dc.d.Request(c, t, dc.work)
	if err != nil {
		return 0
	}
	after := ret == 1 && dc.called[t] == uint64(cookie)
	dc.stats.samples++
	if after {
		dc.stats.afterCallback++
	}
	dc.log.Samples = append(dc.log.Samples, DeferredSample{Tid: t.TID, Time: uint64(k.now()), CPU: c.ID,
		Entry: dc.returns[t], Cookie: uint64(cookie), Ret: ret, AfterCallback: after})
	if dc.rfcSample {
		found := false
		for _, x := range dc.requested[t] {
			found = found || x == e
		}
		if !found {
			dc.requested[t] = append(dc.requested[t], e)
		}
	}
	return uint64(cookie)
}

// perfUnwindDeferredCallback runs in the task (task_work or do_exit) with
// the user stack: it sends a PERF_RECORD_CALLCHAIN_DEFERRED to every side-band
// event that wants it, on the CPU the task runs on now.
// kernel/events/core.c: perf_unwind_deferred_callback()
func (k *Kernel) perfUnwindDeferredCallback(c *cpu.CPU, t *sched.Task, trace []uint64, cookie uint64) {
	dc := k.defcc
	dc.called[t] = cookie
	out := DeferredOutput{Tid: t.TID, Entry: dc.returns[t], Cookie: cookie, CPU: c.ID, Time: uint64(k.now()),
		IPs: append([]uint64(nil), trace...)}
	if unwind.Cookie(cookie).CPU() != c.ID {
		dc.stats.migrated++
	}
	if dc.rfcSample {
		for _, e := range dc.requested[t] {
			if k.perfPendingTaskUnwindRFC(c, e, t, trace) {
				out.RFC++
			}
		}
		dc.requested[t] = nil
		dc.log.Outputs = append(dc.log.Outputs, out)
		return
	}
	rec := &rb.CallchainDeferred{Cookie: cookie, IPs: trace}
	k.perfIterateSb(c, t, func(e *Event) {
		if !e.Attr.DeferOutput {
			return
		}
		// perf_callchain_deferred_output()
		id := &rb.SampleID{Pid: uint32(t.PID), Tid: uint32(t.TID), Time: uint64(k.now()), ID: e.id, StreamID: e.id, CPU: uint32(c.ID)}
		if err := rb.PerfOutputSideband(c, e.rb, e, rec, id, e.Attr.WriteBackward); err != nil {
			dc.stats.recordsLost++
			return
		}
		dc.stats.records++
		out.Records++
	})
	dc.log.Outputs = append(dc.log.Outputs, out)
}

// perfPendingTaskUnwindRFC is the RFC's output of the deferred unwind: a
// whole PERF_RECORD_SAMPLE of the event, user callchain only, with the event's
// last period again.
// [PATCH RFC 04/10] kernel/events/core.c: perf_pending_task_unwind()
func (k *Kernel) perfPendingTaskUnwindRFC(c *cpu.CPU, e *Event, t *sched.Task, trace []uint64) bool {
	s := &rb.Sample{Type: e.Attr.SampleType & rb.SampleSupported, Misc: uapi.PERF_RECORD_MISC_USER, ID: e.id, StreamID: e.id,
		Pid: uint32(t.PID), Tid: uint32(t.TID), Time: uint64(k.now()), CPU: uint32(c.ID),
		Period: e.hw.lastPeriod} // perf_sample_data_init(&data, 0, event->hw.last_period)
	if len(trace) > 0 {
		s.IP = trace[0]
	}
	s.Callchain = append([]uint64{uapi.PERF_CONTEXT_USER}, trace...)
	if err := rb.PerfEventOutput(c, e.rb, e, s, e.Attr.WriteBackward); err != nil {
		return false
	}
	k.defcc.stats.rfcSamples++
	return true
}

// perfIterateSb calls output for the side-band events that see what happens
// on c in the current task: the CPU's own events, then the task's, each if it
// is not off and may count on c.
// kernel/events/core.c: perf_iterate_sb() (task_ctx NULL) -> perf_iterate_sb_cpu(), perf_iterate_ctx()
func (k *Kernel) perfIterateSb(c *cpu.CPU, t *sched.Task, output func(e *Event)) {
	for _, e := range k.cpuCtx[c.ID].ctx.events {
		if e.state >= StateInactive && eventFilterMatch(e, c) {
			output(e)
		}
	}
	if t == nil {
		return
	}
	if ctx := k.taskCtx[t]; ctx != nil && !ctx.dead {
		for _, e := range ctx.events {
			if e.state >= StateInactive && eventFilterMatch(e, c) {
				output(e)
			}
		}
	}
}

// deferredOnReturn notes the user frames of the entry that ends.
// Nothing is noted until a deferred callchain was first asked for: the notes
// are for the oracle, and an ordinary workload must not pay for them.
func (k *Kernel) deferredOnReturn(t *sched.Task, cookie unwind.Cookie) {
	dc := k.defcc
	t.CPU().AccessMarkedOnly(deferredSamples, "samples", cpu.MarkedRead, "perf_callchain") // the oracle notes returns once a deferred callchain was asked for, on any CPU
	if dc.stats.samples == 0 {
		return
	}
	t.CPU().Unaudited("the deferred-callchain oracle's notes") // a return to user is noted (footprint_entry.go)
	dc.log.Returns = append(dc.log.Returns, DeferredReturn{Tid: t.TID, Entry: dc.returns[t], Cookie: uint64(cookie),
		UserIPs: k.userIPs(t), Time: uint64(k.now())})
	dc.returns[t]++
	if !dc.d.PendingOf(t) {
		dc.called[t] = 0
		dc.requested[t] = nil
	}
}

// userIPs are t's user frames as an unwind sees them, innermost first.
func (k *Kernel) userIPs(t *sched.Task) []uint64 {
	out := make([]uint64, 0, len(t.UserStack))
	for i := len(t.UserStack) - 1; i >= 0; i-- {
		out = append(out, k.fakeIP(t.UserStack[i], false))
	}
	return out
}

// deferredExiting marks the task PF_EXITING for the unwind infrastructure.
type deferredExiting struct{ k *Kernel }

// TaskExit implements sched.TaskExitHook: exit_signals().
func (x deferredExiting) TaskExit(t *sched.Task) { x.k.defcc.d.SetExiting(t) }

// deferredExitNote notes the user frames a task has when it exits (the last
// entry has no return to user).
type deferredExitNote struct{ k *Kernel }

// TaskExit implements sched.TaskExitHook.
func (n deferredExitNote) TaskExit(t *sched.Task) {
	dc := n.k.defcc
	if dc.stats.samples == 0 {
		return
	}
	dc.log.Returns = append(dc.log.Returns, DeferredReturn{Tid: t.TID, Entry: dc.returns[t],
		Cookie: uint64(dc.d.CookieOf(t)), UserIPs: n.k.userIPs(t), Exit: true, Time: uint64(n.k.now())})
}

var deferredObservables = []struct {
	name, help string
	get        func(k *Kernel) int64
}{
	{"deferred.samples", "samples whose callchain ends in PERF_CONTEXT_USER_DEFERRED and a cookie", func(k *Kernel) int64 { return int64(k.defcc.stats.samples) }},
	{"deferred.after_callback", "deferred samples taken after their entry's callback ran (no record follows them, B16)", func(k *Kernel) int64 { return int64(k.defcc.stats.afterCallback) }},
	{"deferred.records", "PERF_RECORD_CALLCHAIN_DEFERRED records written", func(k *Kernel) int64 { return int64(k.defcc.stats.records) }},
	{"deferred.records_lost", "PERF_RECORD_CALLCHAIN_DEFERRED records the ring buffer refused", func(k *Kernel) int64 { return int64(k.defcc.stats.recordsLost) }},
	{"deferred.rfc_samples", "deferred-callchain-output=rfc-sample: the RFC's second PERF_RECORD_SAMPLEs written", func(k *Kernel) int64 { return int64(k.defcc.stats.rfcSamples) }},
	{"deferred.migrated", "callbacks that ran on another CPU than the cookie's (the task moved before its task work ran)", func(k *Kernel) int64 { return int64(k.defcc.stats.migrated) }},
	{"unwind.requests", "unwind_deferred_request() calls", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Requests) }},
	{"unwind.queued", "requests that queued the task work", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Queued) }},
	{"unwind.errors", "requests that failed (-EINVAL: idle, exiting task)", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Errors) }},
	{"unwind.unwinds", "user stack walks (once per entry; the cache serves the rest)", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Unwinds) }},
	{"unwind.callbacks", "unwind callbacks called", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Callbacks) }},
	{"unwind.faults", "user stack reads that faulted and slept inside the unwind", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Faults) }},
	{"unwind.skipped_resets", "unwind_reset_info() skipped because an unwind was still pending", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.Skipped) }},
	{"unwind.exit_runs", "unwind_deferred_task_exit() that ran a pending unwind", func(k *Kernel) int64 { return int64(k.defcc.d.Stats.ExitRuns) }},
}
