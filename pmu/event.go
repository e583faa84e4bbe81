package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
)

// EventState is enum perf_event_state (include/linux/perf_event.h).
type EventState int8

// Event states, as today's kernel numbers them.
const (
	StateDead     EventState = -5
	StateRevoked  EventState = -4 // pmu gone, must not touch
	StateExit     EventState = -3 // task died, still inherit
	StateError    EventState = -2 // scheduling error, can enable
	StateOff      EventState = -1
	StateInactive EventState = 0
	StateActive   EventState = 1
)

func (s EventState) String() string {
	switch s {
	case StateDead:
		return "DEAD"
	case StateRevoked:
		return "REVOKED"
	case StateExit:
		return "EXIT"
	case StateError:
		return "ERROR"
	case StateOff:
		return "OFF"
	case StateInactive:
		return "INACTIVE"
	case StateActive:
		return "ACTIVE"
	}
	return "?"
}

// PERF_HES_* (hw_perf_event.state).
const (
	PERF_HES_STOPPED  = 0x01 // the counter is stopped
	PERF_HES_UPTODATE = 0x02 // event->count up-to-date
	PERF_HES_ARCH     = 0x04
)

// hwPerfEvent is struct hw_perf_event: what a PMU driver keeps per event.
type hwPerfEvent struct {
	state         int    // PERF_HES_*
	idx           int    // the counter the event sits on, -1 when none
	config        uint64 // the counter's event select
	samplePeriod  uint64
	lastPeriod    uint64
	periodLeft    int64 // local64_t period_left
	prevCount     int64 // local64_t prev_count: the raw counter at the last update
	interrupts    uint64
	interruptsSeq uint64
	freqTimeStamp sim.Time

	// The model's hardware counter: it advances at rate per ns while running.
	rate      int64
	running   bool
	startTime sim.Time
	raw       int64 // raw counter value at startTime
	timer     *cpu.Timer
	timerCPU  int
	inHrtimer bool     // the software clock's hrtimer callback is running for this event
	expires   sim.Time // when the software clock's hrtimer was last set to fire
	armed     uint64   // how many times that hrtimer was set: the cost model's late expiries are counted on it

	target *sched.Task // hw.target: the task of a per-task event
}

// Event is struct perf_event.
type Event struct {
	race cpu.Shadow // its annotated fields' cells, for the data-race oracle (cpu/race_shadow.go)
	k    *Kernel
	Attr Attr
	id   uint64
	pmu  PMU
	ctx  *Context

	pmuCtx *PMUContext // event->pmu_ctx (epc_life.go)

	cpu   int // event->cpu: -1 for any CPU
	oncpu int // event->oncpu: where it is ACTIVE, -1
	state EventState

	leader   *Event   // group_leader (itself for a leader)
	siblings []*Event // sibling_list, leader only
	// nrSiblings is group_leader->nr_siblings, kept apart from the list as
	// the kernel keeps it: perf_group_attach() and perf_group_detach()
	// change one, then the other, and an NMI on the CPU can land between.
	nrSiblings int
	// readSize is event->read_size, cached by perf_event__header_size() at
	// creation and at group attach/detach; a sample reserves it for its
	// PERF_SAMPLE_READ part whatever perf_output_read_group() then writes.
	readSize int

	count      int64 // local64_t count
	childCount int64 // atomic64_t child_count
	// inhAtRelease is, for an inherit original released (its fd closed)
	// once its children were gone, count + child_count and what the family
	// counted at that moment: what inherited-read-adds-up judges, since
	// nobody can read it after (inherit_observe.go).
	inhAtRelease                       *[2]int64
	totalTimeEnabled, totalTimeRunning sim.Duration
	tstamp                             sim.Time    // ctx time of the last state change
	cgrp                               *perfCgroup // event->cgrp: a cgroup event's cgroup (cgroup.go)

	hw hwPerfEvent

	rb               *rb.Buffer  // event->rb
	mmapCount        int         // event->mmap_count (refcountSaturated after a misuse)
	mmapMutex        sched.Mutex // event->mmap_mutex
	lostSamples      uint64      // event->lost_samples
	pendingWakeup    bool
	pendingDisable   bool
	pendingIrqQueued bool // irq_work pending (IRQ_WORK_PENDING)
	pendingKill      int
	file             perfFile           // the perf file's O_ASYNC state and owner (fasync.go)
	eventLimit       int64              // atomic_t event_limit (IOC_REFRESH)
	pollers          []*sched.WaitQueue // wait_queue_head_t waitq: one entry per poller
	pendingIrqFn     func(c *cpu.CPU)

	idHeaderSize int
	fileRefs     int // struct file refcount: the fd plus every mapping
	ownerTask    *sched.Task
	tp           *tpSlot          // for tracepoint events: the tracepoint it is attached to
	filter       *tpFilter        // event->filter: the ftrace filter PERF_EVENT_IOC_SET_FILTER set (tp_filter.go)
	af           eventAddrFilters // address range filters (addr_filter.go)

	// Samples counts samples written (observables).
	Samples uint64

	aux eventAux // event->aux_event, hw.aux_paused (aux_core.go)

	// Inheritance (inherit.go): event->parent (the original event an
	// inherited one was cloned from), event->child_list under
	// event->child_mutex, PERF_ATTACH_CHILD, and the times folded back from
	// exited children.
	parent                                       *Event
	childList                                    []*Event
	childMutex                                   sched.Mutex
	attachChild                                  bool
	childTotalTimeEnabled, childTotalTimeRunning sim.Duration
	life                                         eventLife // event->refcount and the RCU-deferred free (core_release.go)
	// attachCallchain is PERF_ATTACH_CALLCHAIN: the event holds the
	// callchain buffers (callchain_buffers.go) until __free_event().
	attachCallchain bool
}

// ID is event->id.
func (e *Event) ID() uint64 { return e.id }

// State returns event->state.
func (e *Event) State() EventState { return e.state }

// OnCPU returns event->oncpu (-1 when not ACTIVE).
func (e *Event) OnCPU() int { return e.oncpu }

// CPU returns event->cpu (-1: any CPU).
func (e *Event) CPU() int { return e.cpu }

// Count returns the event's count as read() reports it (without updating it).
func (e *Event) Count() int64 { return e.count + e.childCount }

// LostSamples returns event->lost_samples.
func (e *Event) LostSamples() uint64 { return e.lostSamples }

// RB returns event->rb.
func (e *Event) RB() *rb.Buffer { return e.rb }

// Task returns the task of a per-task event, or nil.
func (e *Event) Task() *sched.Task { return e.hw.target }

// isLeader reports event->group_leader == event.
func (e *Event) isLeader() bool { return e.leader == e }

// isSampling is is_sampling_event().
func (e *Event) isSampling() bool { return e.Attr.SamplePeriod != 0 }

// The rb.Event interface: what ring_buffer.c reads of an event.

// SampleType implements rb.Event.
func (e *Event) SampleType() uint64 { return e.Attr.SampleType }

// SampleIDAll implements rb.Event.
func (e *Event) SampleIDAll() bool { return e.Attr.SampleIDAll }

// WakeupEvents implements rb.Event: 0 when attr.watermark is set.
func (e *Event) WakeupEvents() int {
	if e.Attr.Watermark {
		return 0
	}
	return int(e.Attr.WakeupEvents)
}

// LostSamplesInc implements rb.Event.
func (e *Event) LostSamplesInc() {
	if e.k.M.FootprintListening() {
		e.k.curCPU().AccessMarkedOnly(e, "event->lost_samples", cpu.AtomicAdd, "__perf_output_begin") // ring_buffer.c: __perf_output_begin(): atomic64_inc(&event->lost_samples)
	}
	e.lostSamples++
}

// Wakeup implements rb.Event: the event side of perf_output_wakeup():
// pending_wakeup = 1 and irq_work_queue(&event->pending_irq).
// kernel/events/ring_buffer.c: perf_output_wakeup()
func (e *Event) Wakeup() {
	if e.k.M.FootprintListening() {
		e.annotateOutputWakeup()
	}
	if e.fasyncFile() != nil && e.pendingKill == 0 {
		e.pendingKill = pollIn // "if (*perf_event_fasync(handle->event) && !handle->event->pending_kill)"
	}
	e.pendingWakeup = true
	e.k.stats.wakeups++
	e.irqWorkQueue()
}

// irqWorkQueue is irq_work_queue(&event->pending_irq): one pending entry per
// event, on the CPU that queues it.
func (e *Event) irqWorkQueue() {
	if e.pendingIrqQueued {
		return
	}
	c := e.k.curCPU()
	if c == nil {
		return
	}
	e.pendingIrqQueued = true
	c.IrqWorkQueue(e.pendingIrqFn)
}

// perfPendingIrq is the event's irq_work handler.
// kernel/events/core.c: perf_pending_irq()
func (e *Event) perfPendingIrq(c *cpu.CPU) {
	e.pendingIrqQueued = false
	e.checkLive("perf_pending_irq")
	if e.pendingWakeup {
		e.pendingWakeup = false
		e.k.perfEventWakeup(e)
	}
}

// perfEventWakeup wakes everyone polling the event's ring buffer, then
// sends the event's pending_kill to its fasync owner.
// kernel/events/core.c: perf_event_wakeup() -> ring_buffer_wakeup(), kill_fasync()
func (k *Kernel) perfEventWakeup(e *Event) { k.perfEventWakeupFrom(e, false) }

// perfEventWakeupFrom is perfEventWakeup; audited: its caller's code
// after it, up to the caller's next step point, is annotated (the exit of
// a dead context's event: footprint_exit.go), so the pollers are woken by
// sched's annotated try_to_wake_up(), whose step points go on into that
// code unmarked, and what follows the wake-ups annotates itself there.
func (k *Kernel) perfEventWakeupFrom(e *Event, audited bool) {
	if bs := k.bufs[e.rb]; e.rb != nil && bs != nil {
		for _, x := range bs.eventList {
			x.wakeUpAll(audited)
		}
	} else {
		e.wakeUpAll(audited)
	}
	if audited && k.M.FootprintListening() {
		if c := k.curCPU(); c != nil {
			k.accessKillFasync(c, e) // footprint_exit.go
		}
	}
	k.killFasync(e)
}

// wakeUpAll is wake_up_all(&event->waitq); audited: see perfEventWakeupFrom.
func (e *Event) wakeUpAll(audited bool) {
	e.accessWakeWaitq() // footprint_poll.go
	if len(e.pollers) == 0 {
		return
	}
	ps := e.pollers
	e.pollers = e.pollers[:0]
	for _, q := range ps {
		if audited {
			e.k.S.WakeUpAllAnnotated(q)
		} else {
			e.k.S.WakeUpAll(q)
		}
	}
}

var _ rb.Event = (*Event)(nil)
