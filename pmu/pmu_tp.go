package pmu

import (
	"encoding/binary"
	"sync"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/uapi"
)

// TracepointInfo is one tracepoint of the catalogue: what attr.config names
// (its id) and how big its trace record is (the PERF_SAMPLE_RAW payload).
type TracepointInfo struct {
	System, Name string
	ID           uint64
	RawSize      int // the u32 size word of PERF_SAMPLE_RAW: ALIGN(entry+4, 8)-4
	// NArgs is a syscalls:sys_enter_* event's argument count (its fields
	// after __syscall_nr: sys_data->nb_args).
	NArgs int
	// Fields are the format's fields after the common ones (for filters).
	Fields []TracepointField
}

// tpSlot is struct trace_event_call's perf side: the per-CPU list of events
// attached to the tracepoint (tp_event->perf_events) and its record buffer.
type tpSlot struct {
	info   TracepointInfo
	perCPU [][]*Event // hlist of events ACTIVE on each CPU
	rec    [][]byte   // per-CPU record buffer (perf_trace_buf_alloc()); recBuf makes it
	users  int        // events opened on it (perf_trace_event_init refcount)
}

// tpTable finds tracepoints by id and by syscall. The catalogue holds every
// tracepoint of the machine (about 1,500), so a slot is made the first time
// an event attaches to its tracepoint (byID), not for every one at boot:
// most runs touch a handful. What fires a tracepoint looks it up without
// making its slot (a tracepoint with no slot has no events): the syscall
// and sched tracepoints remember their catalogue index, and their slot once
// it is made (attach).
type tpTable struct {
	infos    []TracepointInfo
	idx      *tpIndex
	slots    map[int]*tpSlot // by catalogue index
	rawEnter tpRef
	rawExit  tpRef
	sys      map[string]*sysTPs // per syscall: syscalls:sys_enter_<name>/sys_exit_<name>
	named    []namedTP          // the tracepoints fired by name (fireSched), as asked
	nrCPUs   int
	// totalRefCount is trace_event_perf.c's total_ref_count: tracepoints
	// with a perf user (perf_trace_buf[] is allocated while it is not 0).
	totalRefCount int
	// A one-entry cache in front of sys: a task calls the same syscall at
	// enter and exit, and loops call it again.
	lastName string
	last     *sysTPs
}

// tpRef is a tracepoint of the catalogue (idx -1: not in it) and its slot,
// nil until an event attaches to it.
type tpRef struct {
	idx  int
	slot *tpSlot
}

type sysTPs struct {
	enter, exit tpRef
	nr          int64
}

// namedTP is a tracepoint looked up by its "system:name".
type namedTP struct {
	name string
	ref  tpRef
}

// tpIndex finds a catalogue entry by id and by system:name; one per
// catalogue, shared by every kernel built from it (it is never written after).
type tpIndex struct {
	byID   map[uint64]int
	byName map[string]int
}

var (
	tpIndexMu sync.Mutex
	tpIndexes = map[*TracepointInfo]*tpIndex{} // by the catalogue's first entry
)

// indexTracepoints returns the index of a catalogue, built once.
func indexTracepoints(infos []TracepointInfo) *tpIndex {
	if len(infos) == 0 {
		return &tpIndex{}
	}
	tpIndexMu.Lock()
	defer tpIndexMu.Unlock()
	if x := tpIndexes[&infos[0]]; x != nil && len(x.byID) == len(infos) {
		return x
	}
	x := &tpIndex{byID: make(map[uint64]int, len(infos)), byName: make(map[string]int, len(infos))}
	for i, in := range infos {
		x.byID[in.ID] = i
		x.byName[in.System+":"+in.Name] = i
	}
	tpIndexes[&infos[0]] = x
	return x
}

func (t *tpTable) init(infos []TracepointInfo, nrCPUs int) {
	t.infos, t.idx, t.slots, t.sys, t.nrCPUs = infos, indexTracepoints(infos), map[int]*tpSlot{}, map[string]*sysTPs{}, nrCPUs
	t.rawEnter = t.ref("raw_syscalls:sys_enter")
	t.rawExit = t.ref("raw_syscalls:sys_exit")
}

// slot returns catalogue entry i's slot, made on first use.
func (t *tpTable) slot(i int) *tpSlot {
	if s := t.slots[i]; s != nil {
		return s
	}
	s := &tpSlot{info: t.infos[i], perCPU: make([][]*Event, t.nrCPUs)}
	t.slots[i] = s
	t.attach(i, s)
	return s
}

// attach gives the references to catalogue entry i its new slot s.
func (t *tpTable) attach(i int, s *tpSlot) {
	for _, r := range []*tpRef{&t.rawEnter, &t.rawExit} {
		if r.idx == i {
			r.slot = s
		}
	}
	for _, x := range t.sys {
		if x.enter.idx == i {
			x.enter.slot = s
		}
		if x.exit.idx == i {
			x.exit.slot = s
		}
	}
	for j := range t.named {
		if t.named[j].ref.idx == i {
			t.named[j].ref.slot = s
		}
	}
}

// ref returns the reference to a tracepoint by its "system:name", with its
// slot if it has one (idx -1 when the catalogue has no such tracepoint).
func (t *tpTable) ref(name string) tpRef {
	i, ok := t.idx.byName[name]
	if !ok {
		return tpRef{idx: -1}
	}
	return tpRef{idx: i, slot: t.slots[i]}
}

// recBuf is CPU c's record buffer, made the first time the tracepoint fires
// with events attached (every syscall of a run looks its tracepoints up; few
// have events): the CPUs' buffers are one allocation.
func (s *tpSlot) recBuf(c int) []byte {
	if s.rec == nil {
		n := s.info.RawSize
		buf := make([]byte, n*len(s.perCPU))
		s.rec = make([][]byte, len(s.perCPU))
		for i := range s.rec {
			s.rec[i] = buf[i*n : (i+1)*n : (i+1)*n]
		}
	}
	return s.rec[c]
}

// byID returns a tracepoint's slot, made on first use, or nil when the
// catalogue has no such tracepoint.
func (t *tpTable) byID(id uint64) *tpSlot {
	if i, ok := t.idx.byID[id]; ok {
		return t.slot(i)
	}
	return nil
}

// attached returns the slot of the tracepoint "system:name", nil when no
// event ever attached to it (or the catalogue has no such tracepoint). The
// callers pass string constants: the same name is the same bytes, and a
// test of the pointer finds it without hashing.
func (t *tpTable) attached(name string) *tpSlot {
	for i := range t.named {
		if n := &t.named[i]; sameBytes(n.name, name) {
			return n.ref.slot
		}
	}
	for i := range t.named {
		if n := &t.named[i]; n.name == name {
			return n.ref.slot
		}
	}
	r := t.ref(name)
	t.named = append(t.named, namedTP{name: name, ref: r})
	return r.slot
}

// syscall returns the syscalls:* tracepoints of a syscall (cached).
func (t *tpTable) syscall(name string) *sysTPs {
	if t.last != nil && name == t.lastName {
		return t.last
	}
	if s, ok := t.sys[name]; ok {
		t.lastName, t.last = name, s
		return s
	}
	s := &sysTPs{nr: -1, enter: tpRef{idx: -1}, exit: tpRef{idx: -1}}
	// The events are named after the entry point (uname: sys_enter_newuname).
	if sc, ok := uapi.LookupSyscall(name); ok {
		s.nr = int64(sc.Nr)
		if tn := sc.TraceName(); tn != "" {
			s.enter, s.exit = t.ref("syscalls:sys_enter_"+tn), t.ref("syscalls:sys_exit_"+tn)
		}
	}
	t.sys[name] = s
	return s
}

// Tracepoint returns the catalogue entry with this id.
func (k *Kernel) Tracepoint(id uint64) (TracepointInfo, bool) {
	if i, ok := k.tp.idx.byID[id]; ok {
		return k.tp.infos[i], true
	}
	return TracepointInfo{}, false
}

// tpPMU is perf_tracepoint: PERF_TYPE_TRACEPOINT events, fired from the
// tracepoints in task context.
type tpPMU struct {
	pmuBase
	noAux
	k *Kernel
}

func newTpPMU(k *Kernel) *tpPMU { return &tpPMU{pmuBase: pmuBase{isSoftware: true}, k: k} }

func (p *tpPMU) Name() string { return "tracepoint" }
func (p *tpPMU) Type() uint32 { return uapi.PERF_TYPE_TRACEPOINT }

// EventInit looks the tracepoint up by id.
// kernel/events/core.c: perf_tp_event_init() -> perf_trace_init()
func (p *tpPMU) EventInit(e *Event) error {
	if e.Attr.Type != uapi.PERF_TYPE_TRACEPOINT {
		return uapi.ENOENT
	}
	if e.Attr.SampleType&uapi.PERF_SAMPLE_BRANCH_STACK != 0 {
		return uapi.EOPNOTSUPP // no branch sampling for tracepoint events
	}
	i, ok := p.k.tp.idx.byID[e.Attr.Config]
	if !ok {
		return uapi.ENOENT
	}
	p.k.accessTpEventInit(i) // footprint_tp_init.go
	s := p.k.tp.slot(i)
	if err := p.k.perfTraceInit(s); err != nil {
		return err // "err = perf_trace_init(event); if (err) return err;": no event->destroy
	}
	e.tp = s
	return nil
}

// Add links the event into the tracepoint's list for this CPU.
// kernel/trace/trace_event_perf.c: perf_trace_add()
func (p *tpPMU) Add(c *cpu.CPU, e *Event, flags int) error {
	p.k.accessEventHW(c, e, "perf_trace_add")
	if flags&PERF_EF_START == 0 {
		e.hw.state = PERF_HES_STOPPED
	} else {
		e.hw.state = 0
	}
	l := &e.tp.perCPU[c.ID]
	p.k.accessTpHlist(c, e.tp, cpu.MarkedWrite, "perf_trace_add")
	*l = append(*l, e)
	return nil
}

// Del unlinks it.
// kernel/trace/trace_event_perf.c: perf_trace_del()
func (p *tpPMU) Del(c *cpu.CPU, e *Event, flags int) {
	l := &e.tp.perCPU[c.ID]
	p.k.accessTpHlist(c, e.tp, cpu.MarkedWrite, "perf_trace_del")
	*l = remove(*l, e)
}

// Start and Stop only flip PERF_HES_STOPPED, which perf_tp_event_match() reads.
// kernel/events/core.c: perf_swevent_start(), perf_swevent_stop()
func (p *tpPMU) Start(c *cpu.CPU, e *Event, flags int) { e.hw.state = 0 }
func (p *tpPMU) Stop(c *cpu.CPU, e *Event, flags int)  { e.hw.state = PERF_HES_STOPPED }

// SysEnter implements sched.SyscallHook: trace_sys_enter() fires
// raw_syscalls:sys_enter, then syscalls:sys_enter_<name>.
// kernel/trace/trace_syscalls.c: perf_syscall_enter(); include/trace/events/syscalls.h
func (k *Kernel) SysEnter(t *sched.Task, name string) {
	sc := k.tp.syscall(name)
	k.accessSyscallTPs(t, k.tp.rawEnter, sc.enter, "perf_syscall_enter")
	if s := k.tp.rawEnter.slot; s != nil {
		k.perfTraceSyscall(t, s, sc, true, false)
	}
	if s := sc.enter.slot; s != nil {
		k.perfTraceSyscall(t, s, sc, true, true)
	}
}

// SysExit implements sched.SyscallHook: raw_syscalls:sys_exit, then
// syscalls:sys_exit_<name>.
func (k *Kernel) SysExit(t *sched.Task, name string) {
	sc := k.tp.syscall(name)
	k.accessSyscallTPs(t, k.tp.rawExit, sc.exit, "perf_syscall_exit")
	if s := k.tp.rawExit.slot; s != nil {
		k.perfTraceSyscall(t, s, sc, false, false)
	}
	if s := sc.exit.slot; s != nil {
		k.perfTraceSyscall(t, s, sc, false, true)
	}
}

// perfTraceSyscall builds the trace record of a syscall tracepoint in the
// per-CPU buffer and hands it to perf_tp_event(). Nothing is done when no
// event is ACTIVE on this CPU for it (the hlist is empty).
// kernel/trace/trace_syscalls.c: perf_syscall_enter()/exit(); perf_trace_##call
func (k *Kernel) perfTraceSyscall(t *sched.Task, s *tpSlot, sc *sysTPs, enter, perSyscall bool) {
	c := t.CPU()
	k.accessTpHlist(c, s, cpu.MarkedRead, perfSyscallFn(enter))
	if len(s.perCPU[c.ID]) == 0 {
		return
	}
	if k.M.FootprintListening() {
		k.accessTraceSyscall(c, t, s) // footprint_overflow.go: the record, then perf_tp_event()'s walk (annotated)
	}
	rec := s.recBuf(c.ID)
	le := binary.LittleEndian
	// struct trace_entry: common_type, common_flags, common_preempt_count, common_pid
	le.PutUint16(rec[0:], uint16(s.info.ID))
	rec[2], rec[3] = 0, 1
	le.PutUint32(rec[4:], uint32(t.TID))
	nr := sc.nr
	var r regs
	if perSyscall {
		// perf_syscall_*: int __syscall_nr at 8, then the nb_args args
		// (syscall_get_arguments()) or the ret (syscall_get_return_value())
		// at 16; the regs are the task's user regs (task_pt_regs).
		le.PutUint32(rec[8:], uint32(nr))
		le.PutUint32(rec[12:], 0)
		if enter {
			for i := 0; i < s.info.NArgs && i < len(t.Sys.Args); i++ {
				le.PutUint64(rec[16+8*i:], t.Sys.Args[i])
			}
		} else {
			le.PutUint64(rec[16:], uint64(t.Sys.Ret))
		}
		r = regs{ip: k.userIP(t), user: true, task: t}
	} else {
		// raw_syscalls: long id at 8, then args[6] or ret; perf_trace_##call
		// takes the caller's kernel regs (perf_fetch_caller_regs()).
		// include/trace/events/syscalls.h: TRACE_EVENT_SYSCALL(sys_enter), (sys_exit)
		le.PutUint64(rec[8:], uint64(nr))
		if enter {
			for i, a := range t.Sys.Args {
				le.PutUint64(rec[16+8*i:], a)
			}
		} else {
			le.PutUint64(rec[16:], uint64(t.Sys.Ret))
		}
		ip := k.ipSysEnter
		if !enter {
			ip = k.ipSysExit
		}
		r = regs{ip: ip, task: t}
	}
	k.perfTpEvent(c, s, rec, &r)
}

// userIP is the user-mode IP of a task: the innermost frame of its user stack.
func (k *Kernel) userIP(t *sched.Task) uint64 {
	if n := len(t.UserStack); n > 0 {
		return k.fakeIP(t.UserStack[n-1], false)
	}
	return k.ipUserMain
}

// perfTpEvent delivers a trace record to every matching event on this CPU.
// kernel/events/core.c: perf_tp_event()
func (k *Kernel) perfTpEvent(c *cpu.CPU, s *tpSlot, rec []byte, r *regs) {
	data := perfSampleData{raw: rec}
	l := s.perCPU[c.ID]
	if len(l) > 0 {
		// The tracepoint fires with events attached (cost.Profile): perf_syscall_enter()/exit()
		// for syscalls:*, a TRACE_EVENT's perf_trace_##call for the rest.
		d := k.S.Cfg.Cost.TraceEvent
		if s.info.System == "syscalls" {
			d = k.S.Cfg.Cost.SyscallTracepoint
		}
		if d > 0 {
			c.Spend(d)
		}
	}
	listening := k.M.FootprintListening()
	for i := 0; i < len(l); i++ {
		e := l[i]
		if listening {
			k.accessTpMatch(c, e) // footprint_overflow.go
		}
		// perf_tp_event_match(): a stopped event or excluded mode sees nothing.
		if e.hw.state&PERF_HES_STOPPED != 0 {
			continue
		}
		if e.Attr.ExcludeKernel && !r.user || e.Attr.ExcludeUser && r.user {
			continue
		}
		if !e.perfTpFilterMatch(c, rec) {
			continue
		}
		// perf_swevent_event()'s code after an overflow, and this walk's,
		// are annotated (footprint_overflow.go).
		k.perfSweventEventAt(c, e, 1, &data, r)
		if listening {
			k.accessTpHlist(c, s, cpu.MarkedRead, "perf_tp_event") // core.c: perf_tp_event(): hlist_for_each_entry_rcu(event, head, hlist_entry)
		}
		l = s.perCPU[c.ID] // the overflow may have changed the list
	}
}

// perfSweventEvent adds nr to the count and, for a sampling event, overflows
// each time (PERF_SAMPLE_PERIOD or period 1) or when period_left runs out.
// kernel/events/core.c: perf_swevent_event()
func (k *Kernel) perfSweventEvent(c *cpu.CPU, e *Event, nr uint64, data *perfSampleData, r *regs) {
	if k.perfSweventEventAt(c, e, nr, data, r) && k.M.FootprintListening() {
		sweventReturnUnaudited(c) // footprint_overflow.go
	}
}

// perfSweventEventAt is perf_swevent_event() for a caller that annotates
// its own code after it (perf_tp_event()'s walk): it reports whether it
// reached __perf_event_overflow(), whose return into perf_swevent_event()'s
// caller the other callers mark.
// kernel/events/core.c: perf_swevent_event()
func (k *Kernel) perfSweventEventAt(c *cpu.CPU, e *Event, nr uint64, data *perfSampleData, r *regs) bool {
	if k.M.FootprintListening() {
		k.accessSweventEvent(c, e, r != nil) // footprint_overflow.go
	}
	e.count += int64(nr)
	if r == nil || !e.isSampling() {
		return false
	}
	if k.sweventSamplesInactive() {
		return k.perfSweventSample(c, e, nr, data, r) // before 64a6eb7e1051: no guard, no state test (knob_swevent_active.go)
	}
	// Serialize against event_function_call() IPIs: guard(irqsave)() and an
	// event that is not ACTIVE any more takes no sample.
	flags := c.LocalIrqSave()
	overflowed := false
	if e.state == StateActive {
		overflowed = k.perfSweventSample(c, e, nr, data, r)
	}
	c.LocalIrqRestore(flags)
	return overflowed
}

// perfSweventSample is perf_swevent_event()'s overflow part: one sample per
// period elapsed.
// kernel/events/core.c: perf_swevent_event()
func (k *Kernel) perfSweventSample(c *cpu.CPU, e *Event, nr uint64, data *perfSampleData, r *regs) bool {
	var overflow uint64
	if e.Attr.SampleType&uapi.PERF_SAMPLE_PERIOD != 0 && !e.Attr.Freq {
		data.period = nr
		overflow = 1
	} else if data.period = e.hw.lastPeriod; nr == 1 && e.hw.samplePeriod == 1 && !e.Attr.Freq {
		overflow = 1
	} else if e.hw.periodLeft += int64(nr); e.hw.periodLeft < 0 {
		return false
	}
	return k.perfSweventOverflow(c, e, overflow, data, r)
}

// perfSweventSetPeriod computes how many periods elapsed and rewinds
// period_left (which counts up from -period to 0 for software events).
// kernel/events/core.c: perf_swevent_set_period()
func perfSweventSetPeriod(e *Event) uint64 {
	hwc := &e.hw
	period := hwc.lastPeriod
	hwc.lastPeriod = hwc.samplePeriod
	val := hwc.periodLeft
	if val < 0 || period == 0 {
		return 0
	}
	nr := (period + uint64(val)) / period
	hwc.periodLeft = val - int64(nr*period)
	return nr
}

// perfSweventOverflow emits one overflow per elapsed period, the later ones
// throttled. It reports whether it reached __perf_event_overflow().
// kernel/events/core.c: perf_swevent_overflow()
func (k *Kernel) perfSweventOverflow(c *cpu.CPU, e *Event, overflow uint64, data *perfSampleData, r *regs) bool {
	if overflow == 0 {
		overflow = perfSweventSetPeriod(e)
	}
	if k.M.FootprintListening() {
		c.AccessMarkedOnly(e, "event->hw.interrupts", cpu.MarkedRead, "perf_swevent_overflow") // core.c: perf_swevent_overflow(): if (hwc->interrupts == MAX_INTERRUPTS) return
	}
	if e.hw.interrupts == maxInterrupts || overflow == 0 {
		return false
	}
	throttle := false
	for ; overflow > 0; overflow-- {
		if k.eventOverflow(c, e, throttle, data, r) != 0 {
			break
		}
		throttle = true
	}
	return true
}
