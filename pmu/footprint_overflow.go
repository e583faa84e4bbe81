package pmu

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// The footprint of the overflow path around the ring buffer's output
// (kernel/events/core.c: __perf_event_overflow(), __perf_event_output();
// arch/x86/events/core.c: x86_pmu_handle_irq(), perf_event_nmi_handler();
// core.c: perf_swevent_hrtimer(), perf_swevent_overflow()), from the
// record's end back to the context's next step point: the fragment that
// starts at "perf_output_put_handle:nest-zero" (or at the step before a
// begin that found no room) and returns through __perf_event_output()
// (rb.PerfEventOutputAudited: rb does not mark that return) into:
//
//   - the rest of __perf_event_output() (the model's sample counts) and of
//     __perf_event_overflow(): the fasync wakeup (event->pending_kill,
//     pending_wakeup, irq_work_queue(&event->pending_irq)); an aux_resume
//     event's perf_event_aux_pause() (annotated up to its first step
//     point: footprint_aux.go);
//   - its caller: the PMI's walk over the counters (x86_pmu_handle_irq():
//     active_mask, each counter's update and re-arm, the stop of one the
//     overflow asked to stop), perf_sample_event_took() after it; the
//     cpu-clock/task-clock hrtimer's re-arm (hrtimer_forward_now()); or
//     perf_swevent_overflow()'s loop back into perf_swevent_event(), and
//     from there into perf_tp_event()'s walk over the tracepoint's events
//     (each one's match, count and period annotated; a filter's match
//     marked), which returns into the syscall tracepoints' callers (sched's
//     entry and exit, annotated), or into do_perf_sw_event()'s walk of the
//     scheduler's software events (context switches, migrations: annotated
//     the same way), which returns into perf's context-switch hooks
//     (footprint_sched.go). perf_swevent_event()'s other callers (the sched
//     tracepoints' walk, the breakpoint's, the page faults') mark the
//     return (sweventReturnUnaudited).
//
// And from the PMI's entry ("enter:PMI", x86_pmu_handle_irq() under
// perf_event_nmi_handler()) and the cpu-clock/task-clock hrtimer's
// ("enter:perf_swevent_hrtimer", perf_swevent_hrtimer()) to the output's
// first step point (perf_output_get_handle:nest-inc), or through a sample
// refused (no buffer, paused) to the handler's return: the counters' walk,
// __perf_event_overflow()'s interrupt accounting (perf_throttled_seq,
// hwc->interrupts, max_samples_per_tick, the freq period), pending_kill
// and event_limit, an aux_pause event's perf_event_aux_pause() up to its
// first step point (footprint_aux.go), perf_prepare_sample()'s plain parts and its callchain
// (perf_callchain()), the model's oracle on the sample, event->rb. Marked
// where they begin: the throttle (perf_event_throttle_group()), a freq
// adjustment that restarts the counter, the event_limit running out
// (perf_event_disable_inatomic()), the sigtrap, a deferred user callchain
// (unwind_deferred_request()), and the sample parts PERF_SAMPLE_READ,
// CGROUP, BRANCH_STACK and AUX. The syscall tracepoints' perf_tp_event()
// (perf_syscall_enter()/exit(): accessTraceSyscall) and the scheduler's
// software events (do_perf_sw_event()) reach the same overflow, annotated
// up to it. The write audit (explore's TestWriteAuditOverflow) checks
// their writes; TestOverflowFootprints pins what they annotate.
func init() {
	cpu.DeclareComplete("enter:PMI", "enter:perf_swevent_hrtimer")
}

// statsKey is the model's observable counts (Kernel.stats): the run only
// adds to them (read at its end), so an add commutes with another.
type statsKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (statsKey) FootprintKey() string { return "perf_stats (observables)" }

// FootprintExtent is where the model keeps them (explore's write audit).
func (s statsKey) FootprintExtent() []any { return []any{&s.k.stats} }

// accessStats annotates an add to one of the model's observable counts.
func (k *Kernel) accessStats(c *cpu.CPU, fn string) {
	c.AccessMarkedOnly(statsKey{k}, "stats", cpu.AtomicAdd, fn) // the model's count, not the kernel's: an add nothing in the run reads
}

// annotateOutputTail annotates __perf_event_output() after the record: the
// model's counts of samples written or refused (the event's and the
// kernel's; __perf_event_output() has neither).
func (k *Kernel) annotateOutputTail(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "the model's sample count", cpu.AtomicAdd, "__perf_event_output") // Event.Samples: an add nothing in the run reads
	k.accessStats(c, "__perf_event_output")
}

// annotateOverflowTail annotates __perf_event_overflow() after the
// overflow handler: the fasync wakeup. An aux_resume event's
// perf_event_aux_pause() after it annotates itself (footprint_aux.go).
func (k *Kernel) annotateOverflowTail(c *cpu.CPU, e *Event) {
	fe := e
	if e.parent != nil {
		fe = e.parent
	}
	c.AccessMarkedOnly(fe, "event->fasync", cpu.PlainRead, "__perf_event_overflow")      // core.c: __perf_event_overflow(): if (*perf_event_fasync(event) && ...
	c.AccessMarkedOnly(e, "event->pending_kill", cpu.PlainRead, "__perf_event_overflow") // core.c: __perf_event_overflow(): ... && event->pending_kill)
	if e.fasyncFile() != nil && e.pendingKill != 0 {
		c.AccessMarkedOnly(e, "event->pending_wakeup", cpu.PlainWrite, "__perf_event_overflow") // core.c: __perf_event_overflow(): event->pending_wakeup = 1
		c.AccessMarkedOnly(e, "event->pending_irq", cpu.MarkedWrite, "irq_work_queue")          // kernel/irq_work.c: irq_work_queue(): irq_work_claim(&event->pending_irq)
	}
}

// accessPMICounter annotates x86_pmu_handle_irq()'s look at counter idx of
// c: active_mask (test_bit(idx, cpuc->active_mask)), and for an active one
// x86_perf_event_update() (hwc->prev_count, event->count, period_left) and
// the re-arm (x86_perf_event_set_period(): period_left, last_period; the
// model's overflow timer), which read cpuc's enable state.
func (p *hwPMU) accessPMICounter(c *cpu.CPU, cc *cpuHwEvents, e *Event, active bool) {
	c.AccessMarkedOnly(cc, "cpuc->events", cpu.MarkedRead, "x86_pmu_handle_irq") // arch/x86/events/core.c: x86_pmu_handle_irq(): if (!test_bit(idx, cpuc->active_mask)) continue; event = cpuc->events[idx]
	if e == nil || !active {
		return
	}
	c.AccessMarkedOnly(cc, "cpuc->enabled", cpu.MarkedRead, "x86_pmu_handle_irq")           // the model's re-arm reads whether the CPU's counters count (cpuc->enabled, the mode)
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "x86_pmu_handle_irq") // arch/x86/events/core.c: x86_perf_event_update(): local64_try_cmpxchg(&hwc->prev_count, ...), local64_sub(delta, &hwc->period_left); x86_perf_event_set_period()
	c.AccessMarkedOnly(e, "event->count", cpu.MarkedWrite, "x86_pmu_handle_irq")            // arch/x86/events/core.c: x86_perf_event_update(): local64_add(delta, &event->count)
}

// accessInterruptedRegs annotates perf_instruction_pointer()'s and
// user_mode()'s look at the interrupted context: the task's user frame,
// which its own program changes (sched's entry code, unaudited) while it
// runs on this CPU.
func (k *Kernel) accessInterruptedRegs(c *cpu.CPU) {
	if t := sched.TaskOf(c.Curr()); t != nil {
		c.AccessMarkedOnly(t, "task_pt_regs(current)", cpu.PlainRead, "perf_instruction_pointer") // arch/x86/events/core.c: perf_instruction_pointer(): regs->ip
	}
}

// tookKey is perf_sample_event_took()'s machine-wide state: the allowance
// perf_sample_allowed_ns, max_samples_per_tick once lowered, and the
// sysctl kernel.perf_event_max_sample_rate it lowers (and the model's count
// of the reports).
type tookKey struct{ k *Kernel }

// FootprintKey implements cpu.FootprintKeyer.
func (tookKey) FootprintKey() string { return "perf_sample_allowed_ns" }

// FootprintExtent implements the write audit's extent.
func (t tookKey) FootprintExtent() []any {
	return []any{&t.k.took.allowedNs, &t.k.took.maxPerTick, &t.k.took.lowered, &t.k.Opts.Sysctl.MaxSampleRate}
}

// runningKey is CPU N's running_sample_length (a this_cpu variable).
type runningKey struct {
	k   *Kernel
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (r runningKey) FootprintKey() string { return "running_sample_length@cpu" + strconv.Itoa(r.cpu) }

// FootprintExtent implements the write audit's extent.
func (r runningKey) FootprintExtent() []any { return []any{&r.k.took.running[r.cpu]} }

// accessSampleTook annotates perf_sample_event_took() on c: the read of
// the allowance, then (if on) this CPU's running length, and the lowering.
func (k *Kernel) accessSampleTook(c *cpu.CPU, d int64) {
	c.AccessMarkedOnly(tookKey{k}, "perf_sample_allowed_ns", cpu.MarkedRead, "perf_sample_event_took") // core.c: perf_sample_event_took(): u64 max_len = READ_ONCE(perf_sample_allowed_ns)
	t := &k.took
	if t.allowedNs == 0 || k.cpuTimeMaxPercent() == 100 || d <= 0 {
		return
	}
	c.AccessMarkedOnly(runningKey{k, c.ID}, "running_sample_length", cpu.MarkedWrite, "perf_sample_event_took") // core.c: perf_sample_event_took(): __this_cpu_write(running_sample_length, running_len)
	running := t.running[c.ID]
	running -= running / nrAccumulatedSamples
	running += uint64(d)
	if running/nrAccumulatedSamples > t.allowedNs {
		c.AccessMarkedOnly(tookKey{k}, "perf_sample_allowed_ns", cpu.MarkedWrite, "perf_sample_event_took") // core.c: perf_sample_event_took(): WRITE_ONCE(perf_sample_allowed_ns, avg_len); WRITE_ONCE(max_samples_per_tick, max); sysctl_perf_event_sample_rate = max * HZ
	}
}

// accessHrtimerRearm annotates perf_swevent_hrtimer() after the overflow:
// the stop test and hrtimer_forward_now() (the event's hrtimer state).
func (k *Kernel) accessHrtimerRearm(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "perf_swevent_hrtimer") // core.c: perf_swevent_hrtimer(): hrtimer_forward_now(hrtimer, ns_to_ktime(period)); the model's expiry and re-arm
}

// sweventReturnUnaudited marks perf_swevent_event()'s return, after an
// overflow, into a caller whose code after it nobody annotated
// (the sched tracepoints' walk, the breakpoint's, the page faults').
func sweventReturnUnaudited(c *cpu.CPU) { c.Unaudited("perf_swevent_overflow's caller") }

// accessTpMatch annotates perf_tp_event_match() for one event of the
// tracepoint's list on c: its state, and the filter of the event (or its
// parent); a filter's match (filter_match_preds(): the record, current)
// is marked.
func (k *Kernel) accessTpMatch(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedRead, "perf_tp_event_match") // core.c: perf_tp_event_match(): if (event->hw.state & PERF_HES_STOPPED)
	fe := e
	if e.parent != nil {
		fe = e.parent
	}
	c.AccessMarkedOnly(fe, "event->filter", cpu.MarkedRead, "perf_tp_filter_match") // core.c: perf_tp_filter_match(): if (likely(!event->filter) || ...
	if fe.filter != nil {
		c.Unaudited("filter_match_preds") // core.c: perf_tp_filter_match(): filter_match_preds(event->filter, record)
	}
}

// accessSweventEvent annotates perf_swevent_event() up to
// perf_swevent_overflow()'s overflow: the count, and for a sample (regs
// given) the state test and the period (data->period from last_period,
// period_left, perf_swevent_set_period()).
func (k *Kernel) accessSweventEvent(c *cpu.CPU, e *Event, regs bool) {
	c.AccessMarkedOnly(e, "event->count", cpu.AtomicAdd, "perf_swevent_event") // core.c: perf_swevent_event(): local64_add(nr, &event->count)
	if !regs || !e.isSampling() {
		return
	}
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "perf_swevent_event")             // core.c: perf_swevent_event(): if (event->state != PERF_EVENT_STATE_ACTIVE) return
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "perf_swevent_event") // core.c: perf_swevent_event(): local64_add_negative(nr, &hwc->period_left); perf_swevent_set_period()
}

// tickSeqKey is CPU N's perf_throttled_seq as the model keeps it (a memo of
// the tick period now, written where it is read).
type tickSeqKey struct {
	k   *Kernel
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (t tickSeqKey) FootprintKey() string { return "perf_throttled_seq@cpu" + strconv.Itoa(t.cpu) }

// FootprintExtent implements the write audit's extent.
func (t tickSeqKey) FootprintExtent() []any { return []any{t.k.tickSeq.At(t.cpu)} }

// accessAccountInterrupt annotates __perf_event_account_interrupt(): the
// event's interrupt count against this CPU's perf_throttled_seq, the
// max_samples_per_tick a throttling overflow compares it with, and in freq
// mode the period's adjustment (freq_time_stamp, sample_period). The
// throttle itself and an adjustment that restarts the counter are marked
// where they begin.
func (k *Kernel) accessAccountInterrupt(c *cpu.CPU, e *Event, throttle bool) {
	c.AccessMarkedOnly(tickSeqKey{k, c.ID}, "perf_throttled_seq", cpu.MarkedWrite, "__perf_event_account_interrupt") // core.c: __perf_event_account_interrupt(): seq = __this_cpu_read(perf_throttled_seq) (the model's memo of it is written here)
	c.AccessMarkedOnly(e, "event->hw.interrupts", cpu.PlainWrite, "__perf_event_account_interrupt")                  // core.c: __perf_event_account_interrupt(): hwc->interrupts_seq = seq; hwc->interrupts = 1 (or hwc->interrupts++)
	if throttle {
		c.AccessMarkedOnly(tookKey{k}, "max_samples_per_tick", cpu.MarkedRead, "__perf_event_account_interrupt") // core.c: __perf_event_account_interrupt(): if (unlikely(throttle && hwc->interrupts > max_samples_per_tick))
	}
	if e.Attr.Freq {
		c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "__perf_event_account_interrupt") // core.c: __perf_event_account_interrupt(): hwc->freq_time_stamp = now; perf_adjust_period(): hwc->sample_period
	}
}

// accessEventLimit annotates __perf_event_overflow()'s pending_kill and
// event_limit (PERF_EVENT_IOC_REFRESH's atomic_add() on another CPU): the
// limit running out is marked where it begins.
func (k *Kernel) accessEventLimit(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->event_limit", cpu.MarkedRead, "__perf_event_overflow")  // core.c: __perf_event_overflow(): int events = atomic_read(&event->event_limit)
	c.AccessMarkedOnly(e, "event->pending_kill", cpu.PlainWrite, "__perf_event_overflow") // core.c: __perf_event_overflow(): event->pending_kill = POLL_IN
	if e.eventLimit != 0 {
		c.AccessMarkedOnly(e, "event->event_limit", cpu.MarkedWrite, "__perf_event_overflow") // core.c: __perf_event_overflow(): atomic_dec_and_test(&event->event_limit)
	}
}

// scratchKey is CPU N's struct perf_sample_data and callchain buffers, one
// per recursion context (the model's sampleScratch): only N's contexts
// touch them.
type scratchKey struct {
	k   *Kernel
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (s scratchKey) FootprintKey() string { return "perf_sample_data@cpu" + strconv.Itoa(s.cpu) }

// FootprintExtent implements the write audit's extent.
func (s scratchKey) FootprintExtent() []any { return []any{s.k.scratch.At(s.cpu)} }

// accessPrepareSample annotates perf_prepare_sample() for e on c: the
// sample it fills from the attr, the regs (read by the caller), the time
// and the CPU; CALLCHAIN is annotated by accessCallchain, PERF_SAMPLE_READ
// (perf_output_read(): the event's or its group's counts) by
// accessOutputRead (footprint_output_read.go). The parts that read more
// are marked: CGROUP (current's css), BRANCH_STACK
// (the LBR: the task's user frames), AUX (perf_prepare_sample_aux(): the AUX
// event's PMU).
func (k *Kernel) accessPrepareSample(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(scratchKey{k, c.ID}, "perf_sample_data", cpu.MarkedWrite, "perf_prepare_sample") // core.c: perf_prepare_sample(): the caller's on-stack struct perf_sample_data (this CPU's, this context's)
	st := e.Attr.SampleType
	if st&uapi.PERF_SAMPLE_READ != 0 {
		k.accessOutputRead(c, e) // core.c: perf_prepare_sample(): PERF_SAMPLE_READ: perf_output_read()
	}
	switch {
	case st&uapi.PERF_SAMPLE_CGROUP != 0:
		c.Unaudited("perf_prepare_sample: cgroup") // core.c: perf_prepare_sample(): PERF_SAMPLE_CGROUP
	case st&uapi.PERF_SAMPLE_BRANCH_STACK != 0:
		c.Unaudited("perf_sample_save_brstack") // the model's LBR call stack: the task's user frames
	case st&uapi.PERF_SAMPLE_AUX != 0:
		c.Unaudited("perf_prepare_sample_aux") // core.c: perf_prepare_sample(): PERF_SAMPLE_AUX
	}
}

// accessOnOutput annotates what the model's oracle on every sample
// (Kernel.OnOutput: the runner's "a sample is written only for an event
// ACTIVE on the writing CPU") reads of the event.
func accessOnOutput(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "OnOutput (the model's oracle)") // the oracle: e.State() == ACTIVE
	c.AccessMarkedOnly(e, "event->oncpu", cpu.MarkedRead, "OnOutput (the model's oracle)") // the oracle: e.OnCPU() == c
}

// accessHrtimerState annotates perf_swevent_hrtimer()'s first test: the
// model's (the kernel's hrtimer_cancel() and PERF_HES_STOPPED): the event's
// state and CPU, and whether its counter runs.
func accessHrtimerState(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->state", cpu.MarkedRead, "perf_swevent_hrtimer")            // core.c: perf_swevent_hrtimer(): if (event->state != PERF_EVENT_STATE_ACTIVE || event->hw.state & PERF_HES_STOPPED) return HRTIMER_NORESTART
	c.AccessMarkedOnly(e, "event->oncpu", cpu.MarkedRead, "perf_swevent_hrtimer")            // the model's test that the event is still on this CPU
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedRead, "perf_swevent_hrtimer") // core.c: perf_swevent_hrtimer(): event->hw.state & PERF_HES_STOPPED
}

// accessHrtimerEntry annotates perf_swevent_hrtimer() up to the overflow:
// event->pmu->read() (cpu_clock_event_update(): prev_count, count) and the
// interrupted regs (get_irq_regs()).
func (k *Kernel) accessHrtimerEntry(c *cpu.CPU, e *Event) {
	c.AccessMarkedOnly(e, "event->hw (the counter)", cpu.MarkedWrite, "cpu_clock_event_update") // core.c: cpu_clock_event_update(): local64_xchg(&event->hw.prev_count, now)
	c.AccessMarkedOnly(e, "event->count", cpu.MarkedWrite, "cpu_clock_event_update")            // core.c: cpu_clock_event_update(): local64_add(now - prev, &event->count)
	k.accessInterruptedRegs(c)
}

// traceBufKey is CPU N's perf_trace_buf, where a tracepoint's record is
// built before perf_tp_event(): only N's code writes and reads its row (the
// model makes every CPU's rows of a tracepoint at its first use).
type traceBufKey struct {
	s   *tpSlot
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer. The model keeps a row per
// tracepoint: named by the tracepoint too, so that one key names one object.
func (b traceBufKey) FootprintKey() string {
	return tpKey{&b.s.info}.FootprintKey() + "/perf_trace_buf@cpu" + strconv.Itoa(b.cpu)
}

// FootprintExtent implements the write audit's extent: the rows.
func (b traceBufKey) FootprintExtent() []any { return []any{&b.s.rec} }

// accessTraceSyscall annotates perf_syscall_enter()/exit() (and the
// raw_syscalls' perf_trace_##call) once an event is attached on c: the
// record built in this CPU's perf_trace_buf from current's syscall regs
// (the nr, the args or the return value, the user IP), then
// perf_trace_buf_submit() -> perf_tp_event(), whose walk over the events
// is annotated (accessTpMatch, accessSweventEvent, the overflow).
func (k *Kernel) accessTraceSyscall(c *cpu.CPU, t *sched.Task, s *tpSlot) {
	c.AccessMarkedOnly(t, "task_pt_regs(current)", cpu.PlainRead, "perf_syscall_enter")                 // kernel/trace/trace_syscalls.c: perf_syscall_enter(): syscall_get_arguments(current, regs, args); perf_syscall_exit(): syscall_get_return_value()
	c.AccessMarkedOnly(traceBufKey{s, c.ID}, "perf_trace_buf", cpu.MarkedWrite, "perf_trace_buf_alloc") // kernel/trace/trace_event_perf.c: perf_trace_buf_alloc(): this CPU's buffer for this context
}

// callchainEntries is callchain.c's callchain_cpus_entries, the per-CPU
// entries get_callchain_buffers() allocates at an event's open.
var callchainEntries any = cpu.KeyName("callchain_cpus_entries")

// accessCallchain annotates perf_callchain() for e's sample on c:
// event->ctx->task (the cross-task test), the entries' pointer, and
// current's stacks, which the unwinders walk (the names' fake addresses are
// annotated by fakeIP); the entry it fills is this CPU's (scratchKey). A
// deferred user callchain (unwind_deferred_request()) is marked.
func (k *Kernel) accessCallchain(c *cpu.CPU, e *Event, r *regs) {
	c.AccessMarkedOnly(e, "event->ctx", cpu.MarkedRead, "perf_callchain") // core.c: perf_callchain(): bool crosstask = event->ctx->task && event->ctx->task != current
	if e.ctx != nil {
		c.AccessMarkedOnly(e.ctx, "ctx->task", cpu.MarkedRead, "perf_callchain") // core.c: perf_callchain(): event->ctx->task
	}
	c.AccessMarkedOnly(callchainEntries, "callchain_cpus_entries", cpu.MarkedRead, "get_callchain_entry") // callchain.c: get_callchain_entry(): entries = rcu_dereference(callchain_cpus_entries)
	if r.task != nil {
		c.AccessMarkedOnly(r.task, "task_pt_regs(current)", cpu.PlainRead, "get_perf_callchain") // callchain.c: get_perf_callchain(): perf_callchain_kernel(regs), perf_callchain_user(task_pt_regs(current)): the stacks
	}
	if e.Attr.DeferCallchain {
		c.Unaudited("unwind_deferred_request") // callchain.c: get_perf_callchain(): defer_user: the deferred unwind's request (callchain_deferred.go)
	}
}
