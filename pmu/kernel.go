package pmu

import (
	"perfsim/cpu"
	"perfsim/rb"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// Kernel is perf's core (kernel/events/core.c) on one simulated machine: the
// PMUs, the per-CPU and per-task contexts, the events and their fds, and the
// syscalls user space reaches them through.
type Kernel struct {
	S    *sched.Sched
	M    *cpu.Machine
	Opts Options

	pmus   []PMU // registered PMUs, in perf_pmu_register() order
	hwPMU  *hwPMU
	swPMU  *swPMU
	tpPMU  *tpPMU
	cpuCtx []perfCPUContext // DEFINE_PER_CPU(struct perf_cpu_context, perf_cpu_context)

	// pmu_disable_count, one per PMU per CPU (struct perf_cpu_pmu_context).
	pmuDisable *cpu.PerCPU[[8]int]

	taskCtx map[*sched.Task]*Context // task->perf_event_ctxp
	lastCPU map[*sched.Task]int      // where a task last ran, for cpu-migrations
	bufs    map[*rb.Buffer]*bufState // struct perf_buffer fields rb does not hold
	nextID  uint64                   // atomic64_t perf_event_id
	events  []*Event                 // every event ever allocated (observables)

	// OnOutput, when set, is called with every sample just before it is written
	// to a ring buffer: an oracle hook for tests, not part of the kernel.
	OnOutput func(e *Event, c *cpu.CPU, s *rb.Sample)

	stats                                         stats
	mmapStats                                     mmapStats
	mm                                            mmState // each task's mm and mmap_lock (mmap_lock.go)
	scratch                                       *cpu.PerCPU[sampleScratch]
	tickSeq                                       *cpu.PerCPU[tickSeq]
	unthrottle                                    []*cpu.Timer
	nrSwitchEvents                                int                   // nr_switch_events
	nrMmapEvents                                  int                   // nr_mmap_events
	nrCgroupEvents                                int                   // nr_cgroup_events
	afStats                                       afStats               // address filters (addr_filter.go)
	mux                                           [][maxPMUs]muxHrtimer // per CPU, per PMU: the mux hrtimer (rotate.go)
	cpuClock, taskClock                           *clockPMU
	ipSysEnter, ipSysExit, ipSchedule, ipUserMain uint64
	mlockedPages                                  int64
	// pinnedVM is each mm's pinned_vm (pinnedSum adds them up) and
	// pinnedMin the lowest any reached (knob mmap-pinned-mm).
	pinnedVM  map[*mmStruct]int64
	pinnedMin int64
	// accountViolations are the mlock-accounting oracle's reports made as
	// the run went (mlock_account.go).
	accountViolations []AccountViolation
	ips               [2]map[string]ipPlaced // fake addresses of named frames: user text, kernel text (fakeIP)
	ipCache           [ipCacheSize]ipCached  // in front of ips, by the name's bytes (fakeIP)
	images            images                 // where fakeIP placed them (image.go)
	tp                tpTable
	knobs             knobMemo // Knob and KnobIs, resolved once per name (drivers.go)

	rbTrace rbTraceState        // ring buffer logs for the invariants (rbtrace.go)
	aux     kernelAux           // AUX area bookkeeping (aux_core.go)
	took    sampleTook          // perf_sample_event_took() (throttle_took.go)
	defcc   *deferredCallchains // unwind_deferred and perf's deferred callchains (callchain_deferred.go)
	inh     inheritState        // fork, exit and context-swap bookkeeping and oracle (inherit_observe.go)

	callchain callchainBuffers // nr_callchain_events and callchain_cpus_entries (callchain_buffers.go)

	ctxMutexes map[*Context]*sched.Mutex // ctx->mutex of each context (core_release.go)
	sigStats   sigStats                  // attr.sigtrap (sigtrap.go)
	bpPMU      *bpPMU                    // PERF_TYPE_BREAKPOINT (pmu_bp.go)
	bpStats    bpStats
	glob       perfGlobal // pmus_lock, event_mutex, hotplug counters (core_hotplug.go)
	lt         lifetime   // the object-lifetime oracle (lifetime.go)
	ctxs       []*Context // every task context allocated (ctx_life.go)
	ctxStats   ctxStats
	freedTasks map[*sched.Task]*taskFreed // tasks a failed fork freed (ctx_life.go)
	epcs       []*PMUContext              // every perf_event_pmu_context made (epc_life.go)
	cpcEpc     map[[2]int]*PMUContext     // the epc embedded in each perf_cpu_pmu_context, by (cpu, pmu index)
	epcStats   epcStats
	taskRefs   map[*sched.Task]*taskLife // the task_struct references perf holds (epc_life.go)
	taskOrder  []*sched.Task
	// The task taskLifeOf last found (epc_life.go).
	lastTask     *sched.Task
	lastTaskLife *taskLife
	cgs          cgroupState             // perf's cgroup controller and the cgroup-time-adds-up ledger (cgroup.go)
	keySeq       keySeq                  // the numbers in the stable keys of buffers and csds (footprint_key.go)
	race         *cpu.RaceDetector       // the data-race oracle, nil when off (datarace.go)
	raceHook     func(DataRaceViolation) // its report
	// ctxLockClasses is ctx->lock's lockdep class cache (context_lock.go).
	ctxLockClasses sched.ClassCache
}

// Options configures the perf core of a machine.
type Options struct {
	Knobs  Knobs  // kernel knobs of this layer
	Sysctl Sysctl // kernel.perf_event_* sysctls and caller credentials
	HW     HWSpec // the hardware counter PMU
	// Tracepoints is the tracepoint catalogue (ids and RAW sizes). The pmu
	// package cannot import perftool (which imports pmu), so the caller
	// passes it; see TracepointsFrom and perftool.KernelTracepoints.
	Tracepoints []TracepointInfo
	// MuxInterval is perf_event_mux_interval_ms, the period of the hrtimer
	// that rotates flexible groups when they do not all fit (0: one tick,
	// PERF_CPU_HRTIMER).
	MuxInterval sim.Duration
}

// HWSpec describes the hardware counter PMU (x86 core PMU, simplified).
type HWSpec struct {
	// CyclesPerNs and InstructionsPerNs are how fast the counters advance while
	// an event is ACTIVE on a CPU (3 = 3 GHz).
	CyclesPerNs       int64
	InstructionsPerNs int64
	// Counters is the number of general-purpose counters per CPU.
	Counters int
	// MaxPrecise is x86_pmu_max_precise().
	MaxPrecise uint8
	// Skid is the PMI's skid: the most its NMI may be taken after the counter
	// overflows (cpu.Interrupt.Skid; "pmu cpu skid=200ns"). 0: at once.
	Skid sim.Duration
}

// DefaultHWSpec is a 3 GHz CPU retiring 2 instructions per ns with 4 counters.
func DefaultHWSpec() HWSpec {
	return HWSpec{CyclesPerNs: 3, InstructionsPerNs: 2, Counters: 4, MaxPrecise: 3}
}

// DefaultOptions returns today's defaults for a machine of nrCPUs CPUs, root.
func DefaultOptions(nrCPUs int) Options {
	sys := DefaultSysctl(nrCPUs)
	sys.PerfmonCapable = true
	return Options{Sysctl: sys, HW: DefaultHWSpec()}
}

// Prot is the mmap protection user space asks for.
type Prot uint8

// mmap protections: a mapping without ProtWrite is read-only, which makes the
// ring buffer an overwrite (backward-readable) one.
const (
	ProtRead  Prot = 1
	ProtWrite Prot = 2
)

// Mapping is what user space sees of an mmap of a perf fd: the ring buffer's
// user page and data bytes (rb.Buffer.User and Data).
type Mapping struct {
	RB     *rb.Buffer
	FD     int
	Aux    bool
	Pgoff  uint64
	Length uint64
	Prot   Prot

	ev    *Event
	task  *sched.Task
	mm    *mmStruct // vma->vm_mm: the mm it was made in (task's until an exec)
	unmap bool
	vmas  []vmaPiece // what is left of it after partial munmaps (mmap_split.go); nil: all of it
}

// perfCPUContext is struct perf_cpu_context.
type perfCPUContext struct {
	race    cpu.Shadow    // its annotated fields' cells, for the data-race oracle (cpu/race_shadow.go)
	ctx     Context       // the CPU-wide context
	taskCtx *Context      // cpuctx->task_ctx: the task context scheduled in here
	offline bool          // !cpuctx->online (core_hotplug.go)
	cg      perfCPUCgroup // cpuctx->cgrp, ctx.nr_cgroups, pmu_ctx->nr_cgroups (cgroup.go)
}

// NewKernel builds perf's core on s: it registers the PMUs (perf_event_init)
// and the scheduler hooks (context switch, syscalls for the tracepoints, exit).
// kernel/events/core.c: perf_event_init()
func NewKernel(s *sched.Sched, o Options) *Kernel {
	if o.HW.CyclesPerNs == 0 && o.HW.InstructionsPerNs == 0 && o.HW.Counters == 0 {
		o.HW = DefaultHWSpec()
	}
	if o.Sysctl.NrCPUIDs == 0 {
		o.Sysctl = DefaultOptions(len(s.M.CPUs)).Sysctl
	}
	if o.Knobs.PauseOutputRBCheck == "" {
		o.Knobs.PauseOutputRBCheck = "today"
	}
	k := &Kernel{S: s, M: s.M, Opts: o,
		taskCtx: map[*sched.Task]*Context{},
		lastCPU: map[*sched.Task]int{}, bufs: map[*rb.Buffer]*bufState{}}
	k.pmuDisable = cpu.NewPerCPU[[8]int](s.M)
	k.dataRaceInit()
	k.cpuCtx = make([]perfCPUContext, len(s.M.CPUs))
	for i := range k.cpuCtx {
		k.cpuCtx[i].ctx.init(k, nil, i)
	}
	k.tp.init(o.Tracepoints, len(s.M.CPUs))
	k.initSampleTook(len(s.M.CPUs))
	k.scratch = cpu.NewPerCPU[sampleScratch](s.M)
	k.tickSeq = cpu.NewPerCPU[tickSeq](s.M)
	k.ipSysEnter = k.fakeIP("syscall_trace_enter", true)
	k.ipSysExit = k.fakeIP("syscall_exit_work", true)
	k.ipSchedule = k.fakeIP("__schedule", true)
	k.ipUserMain = k.fakeIP("main", false)
	k.swPMU = newSwPMU(k)
	k.tpPMU = newTpPMU(k)
	k.hwPMU = newHwPMU(k)
	// perf_event_init(): software, cpu_clock and task_clock (dynamic types),
	// tracepoint, then the arch PMU.
	k.cpuClock = &clockPMU{pmuBase: pmuBase{isSoftware: true}, k: k, name: "cpu_clock", typ: uapi.PERF_TYPE_MAX, cfg: uapi.PERF_COUNT_SW_CPU_CLOCK}
	k.taskClock = &clockPMU{pmuBase: pmuBase{isSoftware: true}, k: k, name: "task_clock", typ: uapi.PERF_TYPE_MAX + 1, cfg: uapi.PERF_COUNT_SW_TASK_CLOCK}
	// init_hw_breakpoint() registers "breakpoint" after the tracepoint PMU;
	// it is last here so the existing PMUs keep their indexes.
	k.bpPMU = newBpPMU(k)
	k.pmus = []PMU{k.swPMU, k.cpuClock, k.taskClock, k.tpPMU, k.hwPMU, k.bpPMU}
	for i, p := range k.pmus {
		p.base().index = i
	}
	s.ModeHooks = append(s.ModeHooks, hwModeFootprint{hwModeHook{k.hwPMU}}) // footprint_entry.go
	s.SwitchHooks = append(s.SwitchHooks, k)
	s.SyscallHooks = append(s.SyscallHooks, k)
	s.ExitHooks = append(s.ExitHooks, k)
	s.ForkHooks = append(s.ForkHooks, k)
	s.TraceHooks = append(s.TraceHooks, k)
	k.initHotplug()
	k.initCgroups()
	k.perfUnwindDeferredInit() // after perf_event_exit_task's hook: unwind_deferred_task_exit() follows it in do_exit()
	return k
}

// curCPU is smp_processor_id()'s CPU: the CPU whose lane the engine is running.
func (k *Kernel) curCPU() *cpu.CPU { return k.M.RunningCPU() }

// now is perf_clock(): the virtual time.
func (k *Kernel) now() sim.Time { return k.M.Now() }
