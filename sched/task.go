// Package sched models the scheduler: tasks running small programs, per-CPU run
// queues, time slices and tick preemption, wakeups, affinity and migration, the
// context switch (with hooks for perf's sched_out / sched_in), and the return to
// user mode with its task_work and signals.
package sched

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/mm"
	"perfsim/sim"
)

// State is a task's scheduling state.
type State uint8

// Task states.
const (
	Runnable State = iota // on a run queue or running
	Sleeping
	Dead
)

// Task is a simulated task (a thread of a process).
type Task struct {
	cpu.Thread
	PID, TID int
	// PPID, PTID: the real parent (PERF_RECORD_EXIT's ppid/ptid); 0 for the
	// tasks the machine starts with.
	PPID, PTID int
	Comm       string
	State      State
	Allowed    CPUMask
	Prog       []Op
	// StandIn marks a task the runner starts to make one call for a
	// scenario's action (a cgroupfs write, a CPU's online file, a forced
	// perf operation): it stands for a call some process makes, so, as its
	// creation, its exit costs no time (cost.Profile's Exit*).
	StandIn bool

	// UserStack is the user call stack at this point of the program, outermost
	// first; KernelStack the kernel frames of the current kernel entry.
	UserStack   []string
	KernelStack []string
	// Syscall is the name of the syscall the task is in, or "".
	Syscall string
	// Sys is the syscall in progress as its registers hold it: number,
	// arguments, return value (syscall_args.go).
	Sys SyscallRegs
	// Vars are the values the program bound with "as NAME".
	Vars map[string]uint64
	// MM is the address space (shared by CLONE_VM threads: MM.Users), Files
	// the fd table; Spawn gives a task its own (package mm).
	MM    *mm.MM
	Files *mm.Files
	// MinFlt and MajFlt count its page faults (min_flt, maj_flt);
	// Segfaulted is set when a bad access killed it.
	MinFlt, MajFlt uint64
	Segfaulted     bool
	// KernelEntries counts entries into the kernel (syscalls and interrupts from
	// user mode are not separated: one per syscall).
	KernelEntries uint64

	// Thread flags: TIF_NOTIFY_RESUME, TIF_NOTIFY_SIGNAL, TIF_SIGPENDING.
	NotifyResume, NotifySignal, SigPending bool

	works     []TaskWork
	taskWorks cpu.SyncClock  // where task_work_add() releases and task_work_run() acquires (data-race oracle)
	signals   []Signal       // pending (t->pending)
	blocked   uint64         // t->blocked: bit sig-1 set for a blocked signal (signal_mask.go)
	sig       *signalStruct  // the process's signal_struct (signal_disp.go)
	sigh      *sighandStruct // sighand_struct: the dispositions
	// mutexes counts the sleeping locks the task holds (mutex.go).
	mutexes int
	// ldHeld is the locks lockdep saw it take (lockdep.go), task->held_locks[].
	ldHeld *heldStack

	// TimerSlack is timer_slack_ns, how late a nanosleep's hrtimer may
	// fire (its range, cpu/hrtimer.go); DefaultTimerSlack is
	// default_timer_slack_ns, what PR_SET_TIMERSLACK 0 restores: the
	// parent's TimerSlack when it forked.
	TimerSlack, DefaultTimerSlack sim.Duration
	join                          joinState // pthread_join()'s word and handles (join.go)

	// Computed is the user compute time the program asked for and got.
	Computed sim.Duration
	// Exited is when the task exited.
	Exited sim.Time

	fam family // process tree, thread group, exit state (fork.go)
	// mmKeys counts the address spaces made for the task, for their
	// stable keys (footprint_key.go).
	mmKeys int
	// filesKeys counts the fd tables made for the task (KeyFiles).
	filesKeys int
	cgrp      *Cgroup // task->cgroups' default-hierarchy cgroup; nil: the root (cgroup.go)

	lastCPU int
	wakeCPU int // p->wake_cpu + 1 when migration_cpu_stop() set it (stopper.go); 0: task_cpu(p)
	// Kthread is PF_KTHREAD: a kernel thread (migration/N, cpuhp/N), no
	// mm, no files, never in user mode; stopClass puts it in
	// stop_sched_class; perCPU is KTHREAD_IS_PER_CPU (kthread_is_per_cpu()).
	Kthread   bool
	stopClass bool
	perCPU    bool
	parked    bool        // TASK_PARKED (kthread_parkme()): only kthread_unpark() wakes it
	ee        eevdfEntity // its sched_entity (eevdf.go)
	// CFS placement's view of the task (placement.go): record_wakee()'s
	// state, p->recent_used_cpu, whether it has run, and when it last
	// stopped running (se.exec_start as task_hot() reads it).
	wakee         wakee
	recentUsedCPU int
	ran           bool
	execEnd       sim.Time

	wakeTimer *cpu.Timer
	ioTimer   *cpu.Timer // a major fault's I/O completion (fault_io.go)
	s         *Sched
	sysNext   SyscallRegs  // the registers of the program's next syscall,
	sysNextOK bool         // ... when set
	sysCost   sim.Duration // the time a modelled syscall body spends
	// userAudited: the user-mode code the task returns to is runOps's own
	// (a compute, a syscall op, a loop), whose accesses are annotated; false
	// in a Go callback (OpCall) and everything else (footprint_entry.go).
	userAudited bool
}

// CPUID returns the CPU the task runs on, or the one it last ran on.
func (t *Task) CPUID() int {
	if c := t.CPU(); c != nil {
		return c.ID
	}
	return t.lastCPU
}

func (t *Task) String() string { return fmt.Sprintf("%s/%d", t.Comm, t.TID) }

// TaskOf returns the task a thread belongs to, or nil for an idle thread.
func TaskOf(th *cpu.Thread) *Task {
	if th == nil {
		return nil
	}
	t, _ := th.Owner.(*Task)
	return t
}

// OpKind says what a program step does.
type OpKind uint8

// Program operations.
const (
	OpCompute       OpKind = iota // run in user mode for D
	OpSyscall                     // enter the kernel for syscall Name
	OpSleep                       // sleep for D
	OpLoop                        // repeat Body N times
	OpMigrate                     // move to CPU (sched_setaffinity to that CPU alone)
	OpAffinity                    // set the allowed CPUs to Mask
	OpYield                       // sched_yield()
	OpStack                       // set the user call stack to Stack
	OpCall                        // run Fn in the task's context (model code)
	OpExit                        // exit now
	OpFork                        // clone(N flags): a child running Body (fork.go)
	OpExitGroup                   // exit_group(): the whole thread group exits
	OpWait                        // wait4(-1): wait for a child to exit and reap it
	OpPipe                        // pipe write (N > 0 bytes) or read (N < 0) on pipe Name (wake.go)
	OpFutex                       // futex wait (N == 0) or wake N on futex Name (wake.go)
	OpTouch                       // access N pages from Args[0] (Name "write" for stores): page faults
	OpCallAnnotated               // run Fn, user-mode code whose accesses are annotated (footprint_user.go)
	OpJoin                        // pthread_join() of the oldest unjoined thread Name this task created (join.go)
)

// Op is one step of a task's program.
type Op struct {
	Kind  OpKind
	D     sim.Duration
	N     int
	Name  string
	Body  []Op
	CPU   int
	Mask  CPUMask
	Stack []string
	Fn    func(t *Task)
	// Args are a syscall's arguments (or a touch's address); Bind names the
	// variable its return value is bound to (syscall_args.go).
	Args []SysArg
	Bind string
	nr   int // a syscall's number + 1, once looked up (0: not yet)
}

// Compute, Syscall, Sleep, Loop, Migrate and Call build program steps.
func Compute(d sim.Duration) Op     { return Op{Kind: OpCompute, D: d} }
func Syscall(name string) Op        { return Op{Kind: OpSyscall, Name: name} }
func Sleep(d sim.Duration) Op       { return Op{Kind: OpSleep, D: d} }
func Loop(n int, body ...Op) Op     { return Op{Kind: OpLoop, N: n, Body: body} }
func Migrate(cpu int) Op            { return Op{Kind: OpMigrate, CPU: cpu} }
func Affinity(m CPUMask) Op         { return Op{Kind: OpAffinity, Mask: m} }
func Yield() Op                     { return Op{Kind: OpYield} }
func UserStack(frames ...string) Op { return Op{Kind: OpStack, Stack: frames} }
func Call(fn func(t *Task)) Op      { return Op{Kind: OpCall, Fn: fn} }
func Exit() Op                      { return Op{Kind: OpExit} }
func Join(name string) Op           { return Op{Kind: OpJoin, Name: name} }
