package sched

import (
	"fmt"
	"strconv"

	"perfsim/cost"
	"perfsim/cpu"
	"perfsim/faultinject"
	"perfsim/mm"
	"perfsim/sim"
)

// SwitchHook is the seam perf uses on a context switch, as the kernel calls
// perf_event_task_sched_out() from prepare_task_switch() and
// perf_event_task_sched_in() from finish_task_switch(). prev or next is nil for
// an idle thread. Both run on c with irqs off.
type SwitchHook interface {
	SchedOut(c *cpu.CPU, prev, next *Task)
	SchedIn(c *cpu.CPU, prev, next *Task)
}

// SyscallHook is called at syscall entry and exit in task context, where the
// raw_syscalls and syscalls tracepoints fire.
type SyscallHook interface {
	SysEnter(t *Task, name string)
	SysExit(t *Task, name string)
}

// UserReturnHook runs in exit_to_user_mode() after the work loop, where
// unwind_reset_info() runs.
type UserReturnHook interface {
	ExitToUser(t *Task)
}

// ModeHook is told when a task changes privilege level on its CPU: false at
// syscall entry, on the way out of an interrupt taken in user mode (the
// exit-to-user work runs in the kernel), at do_exit(); true at the return to
// user mode and into a signal handler. The PMUs' CPL filters follow it.
type ModeHook interface {
	ModeSwitch(t *Task, user bool)
}

// StackHook is a ModeHook that also hears a program's stack step: the task
// goes on in user mode in another function (its innermost UserStack frame),
// so a branch tracer's trace moves to that function's code.
type StackHook interface {
	UserStackChanged(t *Task)
}

// TaskExitHook runs in do_exit() before the task is gone (perf_event_exit_task,
// unwind_deferred_task_exit).
type TaskExitHook interface {
	TaskExit(t *Task)
}

// ParentNotifyHook is a TaskExitHook also told when an exit notifies the
// parent that its process is dead (do_notify_parent(): SIGCHLD and the
// wait4 wake-up), in that exit's context, after exit_mm() and exit_files():
// t is the exiting task, l its process's leader (another task when the
// last thread goes after a zombie leader).
type ParentNotifyHook interface {
	TaskExitHook
	NotifyParent(t, l *Task)
}

// SyscallFunc is the kernel body of a syscall, run in the task's kernel context.
type SyscallFunc func(t *Task)

// Config sets the scheduler's parameters.
type Config struct {
	// Tick is the scheduler tick period, TICK_NSEC (HZ=250: 4ms). New sets
	// it from HZ when HZ is set.
	Tick sim.Duration
	// HZ is CONFIG_HZ (knob hz): 0 takes the cost profile's (the kernel it
	// was calibrated on), else Tick's.
	HZ int
	// Slice is sysctl_sched_base_slice, EEVDF's request (eevdf.go); 0: the
	// kernel's default for the machine's CPUs (BaseSlice).
	Slice sim.Duration
	// SyscallCost is the time a syscall without a model body spends in the kernel.
	SyscallCost sim.Duration
	// Balance lets the scheduler choose migrations: on wakeup (select_task_rq) and
	// when a CPU goes idle (idle balance), the Chooser picks among allowed CPUs.
	Balance bool
	// FirstCPU is knob sched-balance=off, the model before CFS placement: a
	// task stays on its first allowed CPU unless its program moves it. With
	// neither it nor Balance, CFS places tasks (placement.go).
	FirstCPU bool
	// TaskWorkNMIIrqWork is the task_work TWA_NMI_CURRENT behaviour before commit
	// ef1ea98c8fff ("task_work: Fix NMI race condition"): the NMI queues an
	// irq_work that sets TIF_NOTIFY_RESUME on whatever task is current when it
	// runs, which after a context switch is the wrong one.
	TaskWorkNMIIrqWork bool
	// NoLockdep turns the lock validator off (knob lockdep=off).
	NoLockdep bool
	// NoHungTask turns the hung-task detector off (knob hung-task=off).
	NoHungTask bool
	// HungTaskTimeout is the timed hung-task check's timeout (knob
	// hung-task-timeout, hungtask.go); 0: only the end-of-run check.
	HungTaskTimeout sim.Duration
	// Cost is what kernel work costs (knob cost-model); the zero Profile is
	// free. Its SyscallEntryExit replaces SyscallCost when set.
	Cost cost.Profile
	// NoTTWUQueue turns off sched_feat(TTWU_QUEUE): every remote wake-up
	// activates the task from the waker's CPU, no wake list, no IPI.
	NoTTWUQueue bool
	// PerfExitLate is do_exit()'s order before 4f6fc7821283 ("perf: Fix
	// sample vs do_exit()"): perf_event_exit_task() after exit_mm(),
	// exit_files() and exit_task_work() instead of before them.
	PerfExitLate bool
	// TimerSlack is the timer_slack_ns (and default_timer_slack_ns) the
	// tasks the machine starts with have: their ancestors' (init_task's
	// 50 us unless one of them set another, as systemd's TimerSlackNSec=
	// does). 0: none, every sleep exact (a test's timeline).
	TimerSlack sim.Duration
	// ReadAheadKB is the disk's read_ahead_kb (knob read-ahead-kb): what a
	// file mapping's major fault reads around the page (mm.FS.RAPages).
	ReadAheadKB int
}

// DefaultConfig returns today's defaults.
func DefaultConfig() Config {
	return Config{Tick: 4 * sim.Millisecond, SyscallCost: 200 * sim.Nanosecond, TimerSlack: InitTimerSlack,
		ReadAheadKB: mm.DefaultRAPages * mm.PageSize / 1024}
}

// Sched is the scheduler of one machine.
type Sched struct {
	M   *cpu.Machine
	Cfg Config

	// OnHungWait, if set, is told when a task goes to sleep in D on a
	// kernel wait and when the timed hung-task check (Cfg.HungTaskTimeout)
	// is due for it (hungtask.go).
	OnHungWait func(t *Task, due sim.Time)
	// OnLockup, if set, is told of a spin-wait or retry loop that spun past
	// the livelock bound (SpinRound, lockup.go), once.
	OnLockup func(Lockup)
	lockedUp bool

	// Faults is the scenario's fail lines (package faultinject): the
	// allocations ShouldFail makes fail. Nil: none fails.
	Faults *faultinject.Plan

	Tasks []*Task
	// FS is the machine's files (package mm): what tasks open and map.
	FS *mm.FS
	// Syscalls maps syscall names to their kernel bodies.
	Syscalls map[string]SyscallFunc

	SwitchHooks     []SwitchHook
	SyscallHooks    []SyscallHook
	UserReturnHooks []UserReturnHook
	ModeHooks       []ModeHook
	ExitHooks       []TaskExitHook
	ForkHooks       []ForkHook
	TraceHooks      []TraceHook

	rq          [][]*Task
	idle        []*cpu.Thread
	needResched []bool
	lastPrev    []*cpu.Thread
	tick        []*cpu.Timer
	nextPID     int
	objs        waitObjects  // pipes and futexes by name (wake.go)
	wakeList    [][]*Task    // per CPU: rq->wake_list (call_single_queue entries)
	cfs         [][]*Task    // per CPU: the cfs_rq's entities (eevdf.go)
	cfsZero     []int64      // per CPU: cfs_rq->zero_vruntime
	stoppers    []cpuStopper // per CPU: migration/N and its works (stopper.go)
	rqCurr      []*Task      // per CPU: rq->curr's task from the moment __schedule() picks it (nil: idle)
	idleWakee   []wakee      // per CPU: the idle task's record_wakee() state (placement.go)
	cgroups     *cgroupState // the cgroup v2 hierarchy (cgroup.go)

	// Lockdep validates the order of every lock the model takes (lockdep.go).
	Lockdep Lockdep
	// hotplug is CPU hotplug's state, nil until a state is registered or a
	// CPU goes down (hotplug.go).
	hotplug *hotplug

	// Switches and Migrations count what happened, as observables.
	models map[string]SyscallFunc // syscall bodies by name (syscalls_mm.go)
	// posLocks are the f_pos_lock of each regular file read(2), write(2) or
	// lseek(2) reached (fpos_lock.go), made on first use.
	posLocks map[*mm.OpenFile]*Mutex

	Switches   uint64
	Migrations uint64
	// Delivered lists the signals tasks took, in order (signal.go).
	Delivered []DeliveredSignal
	// Killed lists the signals whose default action ended a process, as
	// get_signal() dequeued them (signal_disp.go).
	Killed []DeliveredSignal
	// SigqueueOverflows counts sends that found RLIMIT_SIGPENDING reached.
	SigqueueOverflows int
	sigpending        int // the user's queued signals (UCOUNT_RLIMIT_SIGPENDING)
}

// New builds a scheduler on m and boots every CPU into its idle thread.
func New(m *cpu.Machine, cfg Config) *Sched {
	if cfg.HZ == 0 {
		cfg.HZ = cfg.Cost.HZ
	}
	if cfg.HZ > 0 {
		cfg.Tick = TickNsec(cfg.HZ)
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultConfig().Tick
	}
	if cfg.HZ == 0 {
		cfg.HZ = int(sim.Second / cfg.Tick)
	}
	n := len(m.CPUs)
	if cfg.Slice <= 0 {
		cfg.Slice = BaseSlice(n)
	}
	s := &Sched{M: m, Cfg: cfg, Syscalls: map[string]SyscallFunc{}, FS: mm.NewFS(), nextPID: firstUserPID(len(m.CPUs)), stoppers: make([]cpuStopper, len(m.CPUs)),
		rq: make([][]*Task, n), wakeList: make([][]*Task, n), cfs: make([][]*Task, n), cfsZero: make([]int64, n), rqCurr: make([]*Task, n), idleWakee: make([]wakee, n), needResched: make([]bool, n), lastPrev: make([]*cpu.Thread, n)}
	s.Lockdep.Off = cfg.NoLockdep
	s.FS.RAPages = uint64(cfg.ReadAheadKB) * 1024 / mm.PageSize
	s.FS.ReadLatency, s.FS.ReadPerPage = cfg.Cost.DiskReadBase, 4*cfg.Cost.DiskReadPerKiB     // the page cache's reads take the disk's time
	s.FS.WriteLatency, s.FS.WritePerPage = cfg.Cost.DiskWriteBase, 4*cfg.Cost.DiskWritePerKiB // and its writebacks
	m.Hooks = s
	for _, c := range m.CPUs {
		c := c
		idle := m.NewAuditedThread(fmt.Sprintf("swapper/%d", c.ID), s.idleLoop) // footprint_switch.go
		s.idle = append(s.idle, idle)
		c.Start(idle)
		s.tick = append(s.tick, c.NewHRTimer(cpu.Interrupt{Name: "tick", Fn: s.schedulerTick}))
	}
	for i := range m.CPUs {
		s.newStopper(i) // smpboot: each CPU's migration/N, asleep (stopper.go)
	}
	return s
}

// InitTimerSlack is init_task's timer_slack_ns, which every task the
// machine starts with has from its ancestors (none of them set another).
// init/init_task.c: .timer_slack_ns = 50000 /* 50 usec default slack */
const InitTimerSlack = 50 * sim.Microsecond

// Spawn creates a runnable task with a program, allowed on mask (empty: all CPUs), and
// queues it where CFS places a new task made on the running CPU (or, before the
// machine runs, its first allowed CPU); with sched-balance=off on the first
// allowed CPU, with sched-balance=on where the Chooser picks.
func (s *Sched) Spawn(comm string, mask CPUMask, prog ...Op) *Task {
	if mask.Empty() {
		mask = AllCPUs(len(s.M.CPUs))
	}
	s.nextPID++
	t := &Task{PID: s.nextPID, TID: s.nextPID, Comm: comm, Allowed: mask, Prog: prog, s: s, lastCPU: mask.First(),
		TimerSlack: s.Cfg.TimerSlack, DefaultTimerSlack: s.Cfg.TimerSlack}
	t.MM, t.Files = mm.New(), mm.NewFiles(s.FS)
	s.keyMM(t)
	t.KeyFiles()
	s.M.InitAuditedThread(&t.Thread, fmt.Sprintf("%s-%d", comm, t.TID), func(*cpu.Thread) { s.taskMain(t) }) // footprint_switch.go
	t.taskWorks.SetKey(&t.Thread, "task->task_works")                                                        // its stable key (cpu.FootprintKey)
	t.Owner = t
	s.Tasks = append(s.Tasks, t)
	c := t.lastCPU
	switch {
	case s.cfsPlacement():
		// wake_up_new_task(): a new task, placed as forked on its first
		// allowed CPU (or the running CPU: sched_fork()'s task_cpu())
		t.lastCPU = s.thisCPU(t)
		t.recentUsedCPU = t.lastCPU
		c = s.selectTaskRq(t, t.lastCPU, wfFork)
		t.lastCPU = c
	case s.Cfg.Balance || !s.CPUActive(c):
		c = s.selectCPU(t, c)
	}
	s.enqueue(c, t)
	s.resched(c)
	return t
}

// Idle returns CPU i's idle thread.
func (s *Sched) Idle(i int) *cpu.Thread { return s.idle[i] }

// RunQueue returns the tasks waiting on CPU i (not the running one).
func (s *Sched) RunQueue(i int) []*Task { return s.rq[i] }

// Current returns the task running on c, or nil when c is idle.
func (s *Sched) Current(c *cpu.CPU) *Task { return TaskOf(c.Curr()) }

// AllExited reports whether every task has exited.
func (s *Sched) AllExited() bool {
	for _, t := range s.Tasks {
		if t.State != Dead {
			return false
		}
	}
	return true
}

func (s *Sched) note(c *cpu.CPU, k sim.Kind, name, detail string, n int64) {
	if tr := s.M.Trace(); tr.On() {
		tr.Add(sim.Record{T: s.M.Now(), CPU: c.ID, Kind: k, Name: name, Detail: detail, N: n})
	}
}

// Timeline renders the per-CPU timeline of the run so far (see sim.Timeline).
func (s *Sched) Timeline(width int) string {
	end := s.M.Now()
	for _, t := range s.Tasks {
		if t.Exited > end {
			end = t.Exited
		}
	}
	return sim.Timeline(s.M.Trace().Records, len(s.M.CPUs), end, width, func(name string) bool {
		return len(name) > 8 && name[:8] == "swapper/"
	})
}

// Knobs are the scheduler layer's kernel knobs.
var Knobs = []sim.KnobSpec{{
	Name:    "task-work-nmi",
	Values:  []string{"today", "pre-ef1ea98c8fff"},
	Help:    "task_work_add(TWA_NMI_CURRENT): today sets TIF_NOTIFY_RESUME in the NMI; before the fix an irq_work set it on whatever task was current when it ran, the wrong one after a context switch",
	Source:  "ef1ea98c8fff task_work: Fix NMI race condition",
	Package: "sched",
}, {
	Name:   "exit-perf-order",
	Values: []string{"today", "pre-4f6fc7821283"},
	Help: "do_exit()'s place for perf_event_exit_task() (and unwind_deferred_task_exit()): today before exit_mm(), exit_files() and exit_task_work(); " +
		"before the fix after them, so a last fput() of the task's own perf fd ran perf_release() from exit_task_work() while its context was still live",
	Source:  "4f6fc7821283 perf: Fix sample vs do_exit() (Peter Zijlstra, v6.16-rc1; Fixes c5ebcedb566e)",
	Package: "sched",
}, {
	Name:   "sched-balance",
	Values: []string{"cfs", "off", "on"},
	Help: "cfs (the default): CFS places a task that may use more than one CPU, as today's kernel does: the idlest CPU at fork and exec " +
		"(sched_balance_find_dst_cpu(), sched_exec()), wake_affine() and select_idle_sibling() at wake-up, the newly idle pull " +
		"(sched_balance_newidle()), on one LLC; off: a task stays on its first allowed CPU unless its program migrates it (the model before); " +
		"on: the scheduler's placements (select_task_rq on wakeup, idle balance) are free choices of the Chooser that explore varies (Config.Balance)",
	Source:  "kernel/sched/fair.c: select_task_rq_fair(), sched_balance_newidle(); kernel/sched/core.c: sched_exec(), wake_up_new_task()",
	Package: "sched",
}, {
	Name:   "lockdep",
	Values: []string{"on", "off"},
	Help: "CONFIG_PROVE_LOCKING: on validates the order of every lock the model takes (mutexes, rw_semaphores, ctx->lock) " +
		"and reports cycles, unannotated recursion, locks taken in NMI and hardirq-safe/unsafe inversions as the lockdep invariant; off records nothing",
	Source:  "kernel/locking/lockdep.c (the lock validator; on by default like a debug kernel a perf developer tests on)",
	Package: "sched",
}, {
	Name:   "hung-task",
	Values: []string{"on", "off"},
	Help: "the hung-task detector (CONFIG_DETECT_HUNG_TASK): on reports, as the hung-task invariant, every task left asleep in TASK_UNINTERRUPTIBLE " +
		"on a kernel wait (wait_var_event(), rcuwait_wait_event()) when nothing is left that could wake it (every other task exited or blocked, no timer armed), " +
		"with what it waits for, since when, and the last change that could have woken it; off leaves such a run to the deadlock report",
	Source:  "kernel/hung_task.c: check_hung_uninterruptible_tasks() (\"INFO: task %s:%d blocked for more than %ld seconds.\")",
	Package: "sched",
}, hungTaskTimeoutKnob, {
	Name: "cost-model",
	// This machine's profile is the default (issue 19): free is how every
	// run was timed before the cost model.
	Values: []string{"this-machine", "free", "i7-4790"},
	Help: "what kernel work costs in virtual time (package cost): this-machine (the default) is fitted from " +
		"cost/testdata/this-machine.txt (syscall entry/exit, tracepoint fire, sample record, callchain, context switch, " +
		"perf context switch, hrtimer sample) cost/testdata/forkexit.txt (clone(), wait4(), do_exit() shared out by cost/testdata/exitsplit.txt), cost/testdata/faults.txt (page faults by handler), cost/testdata/diskread.txt (the disk a major fault reads) and cost/testdata/reader-wakeups.txt (perf record's time per wake-up); free charges nothing (kernel work takes no virtual time); i7-4790 is seed 002's machine",
	Source:  "cost/calibrate/calibrate.sh on the real kernel; seed 002's figures",
	Package: "sched",
	Config:  true,
}, {
	Name: "hz",
	// profile: the cost model's kernel (this-machine: CONFIG_HZ=250, read
	// from /proc/config.gz by calibrate.sh); free has none, so 250.
	Values: []string{"profile", "100", "250", "300", "1000"},
	Help: "CONFIG_HZ: the tick's rate, which sets TICK_NSEC (the scheduler tick, perf_event_task_tick()'s unthrottle), " +
		"max_samples_per_tick = DIV_ROUND_UP(perf_event_max_sample_rate, HZ) and PERF_CPU_HRTIMER (1000/HZ ms, the mux interval); " +
		"profile (the default) takes the cost model's kernel's (this-machine: 250), else 250",
	Source:  "kernel/Kconfig.hz; include/linux/jiffies.h: TICK_NSEC; kernel/events/core.c: update_perf_cpu_limits(), PERF_CPU_HRTIMER",
	Package: "sched",
	Config:  true,
}, {
	Name:    "ttwu-queue",
	Values:  []string{"on", "off"},
	Help:    "sched_feat(TTWU_QUEUE): on (today's default) wakes a task onto a remote idle CPU through its wake list and a CALL_FUNCTION_SINGLE IPI (step point ttwu_queue_wakelist, then sched_ttwu_pending there); off activates it from the waker's CPU",
	Source:  "kernel/sched/core.c: ttwu_queue_wakelist(), ttwu_queue_cond(); kernel/sched/features.h: SCHED_FEAT(TTWU_QUEUE, true)",
	Package: "sched",
}, {
	Name:   "timer-slack",
	Values: []string{"50us", "0", "1ns", "1us", "100us", "1ms"},
	Help: "the timer_slack_ns the scenario's tasks start with (the default, 50us, is init_task's, which every process has unless an ancestor set " +
		"another, as systemd's TimerSlackNSec= does): a nanosleep of d wakes between d and d plus the slack (its hrtimer's hard expiry; earlier when " +
		"another hrtimer of its CPU, the tick or perf's, fires in that range). 0: every sleep is exact, the timeline a scenario lays out with sleeps " +
		"(a real task gets none only under an rt policy); a task may change its own with prctl(PR_SET_TIMERSLACK), and a child starts with its parent's",
	Source:  "init/init_task.c: .timer_slack_ns = 50000; kernel/time/hrtimer.c: hrtimer_nanosleep(), __hrtimer_run_queues(); kernel/sys.c: PR_SET_TIMERSLACK; kernel/fork.c: copy_process()",
	Package: "sched",
	Config:  true,
}, {
	Name:   "read-ahead-kb",
	Values: []string{"128", "0", "8192"},
	Help: "the disk's /sys/block/DEV/queue/read_ahead_kb, which every file opened on it reads ahead with: a major fault of a file mapping reads " +
		"read_ahead_kb around the page (read-around), later windows ahead of the reader as it reaches the mark of the last, in larger folios; " +
		"128 (the default) is VM_READAHEAD_PAGES, a disk that reports no optimal I/O size; 8192 is this machine's virtio disk (io_opt 4 MB: " +
		"blk_apply_bdi_limits() gives twice it); 0 reads only the page faulted",
	Source:  "mm/filemap.c: do_sync_mmap_readahead(), do_async_mmap_readahead(); mm/readahead.c: page_cache_ra_order(), page_cache_async_ra(); block/blk-settings.c: blk_apply_bdi_limits()",
	Package: "sched",
	Config:  true,
}}

// ApplyKnob sets a sched knob in cfg.
func ApplyKnob(cfg *Config, name, value string) (bool, error) {
	if found, err := sim.LookupKnob(Knobs, name, value); !found || err != nil {
		return found, err
	}
	switch name {
	case "task-work-nmi":
		cfg.TaskWorkNMIIrqWork = value != "today"
	case "sched-balance":
		cfg.Balance = value == "on"
		cfg.FirstCPU = value == "off"
	case "lockdep":
		cfg.NoLockdep = value == "off"
	case "hung-task":
		cfg.NoHungTask = value == "off"
	case "hung-task-timeout":
		cfg.HungTaskTimeout = hungTaskTimeoutOf(value)
	case "cost-model":
		p, _ := cost.Lookup(value)
		cfg.Cost = p
		if p.SyscallEntryExit > 0 {
			cfg.SyscallCost = p.SyscallEntryExit
		}
	case "ttwu-queue":
		cfg.NoTTWUQueue = value == "off"
	case "exit-perf-order":
		cfg.PerfExitLate = value != "today"
	case "hz":
		cfg.HZ, _ = strconv.Atoi(value) // profile: 0
	case "timer-slack":
		cfg.TimerSlack = timerSlacks[value]
	case "read-ahead-kb":
		cfg.ReadAheadKB, _ = strconv.Atoi(value)
	}
	return true, nil
}

// timerSlacks are knob timer-slack's values.
var timerSlacks = map[string]sim.Duration{"50us": InitTimerSlack, "0": 0, "1ns": sim.Nanosecond,
	"1us": sim.Microsecond, "100us": 100 * sim.Microsecond, "1ms": sim.Millisecond}

// TickNsec is TICK_NSEC for hz: (NSEC_PER_SEC + HZ/2) / HZ.
// include/linux/jiffies.h: TICK_NSEC
func TickNsec(hz int) sim.Duration {
	return (sim.Second + sim.Duration(hz/2)) / sim.Duration(hz)
}
