package sched

import (
	"errors"
	"maps"
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
	"perfsim/uapi"
)

// Clone flags (include/uapi/linux/sched.h), the ones the model reads.
const (
	CLONE_VM      = 0x00000100
	CLONE_FS      = 0x00000200
	CLONE_FILES   = 0x00000400
	CLONE_SIGHAND = 0x00000800
	CLONE_PARENT  = 0x00008000
	CLONE_THREAD  = 0x00010000
	CLONE_SYSVSEM = 0x00040000
	CLONE_SETTLS  = 0x00080000
	// CLONE_PARENT_SETTID stores the child's tid in the parent's word;
	// CLONE_CHILD_CLEARTID makes it the child's clear_child_tid, which
	// mm_release() zeroes and futex-wakes at the child's exit: what
	// pthread_join() waits on (join.go).
	CLONE_PARENT_SETTID  = 0x00100000
	CLONE_CHILD_CLEARTID = 0x00200000
	// SIGCHLD in the low byte: fork()'s exit signal.
	SIGCHLD = 17
)

// ForkFlags is what glibc's fork() passes to clone(): a new process with its
// own mm, SIGCHLD to the parent at exit.
const ForkFlags = SIGCHLD

// ThreadFlags is what glibc's pthread_create() passes to clone3(): the same mm,
// files and signal handlers, in the caller's thread group.
// nptl/pthread_create.c: create_thread() clone_flags
const ThreadFlags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |
	CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID

// ErrNoChild is -ECHILD: wait4() with no child to wait for.
var ErrNoChild = errors.New("no child processes")

// DefaultPrio is p->prio of a SCHED_NORMAL task at nice 0 (MAX_RT_PRIO + 20),
// and of the idle tasks (init_task.prio).
const DefaultPrio = 120

// family is a task's place among processes and threads: task_struct's
// real_parent, children, group_leader, mm and exit state, and the signal
// struct's wait_chldexit and group-exit flag (shared through the leader).
type family struct {
	parent   *Task   // real_parent; nil for the tasks the machine starts with
	leader   *Task   // group_leader; nil: itself
	children []*Task // processes this task forked (p->children)
	threads  []*Task // the thread group, leader only (signal->thread_head)
	prog     string  // the program the task runs (the scenario's name for it)

	zombie  bool // EXIT_ZOMBIE: exited, not reaped yet
	reaped  bool // release_task() ran
	killed  bool // SIGKILL from zap_other_threads() pending
	exiting bool // PF_EXITING: in do_exit() (exit_signals())
	// exitState is what sched_switch reports for the task's last switch:
	// StateReportZombie or StateReportDead.
	exitState int64

	waitChldExit WaitQueue // signal->wait_chldexit (on the leader)
	groupExit    bool      // SIGNAL_GROUP_EXIT (on the leader)

	wakePending bool     // on a CPU's wake list (TASK_WAKING), the IPI not taken yet
	execStart   sim.Time // se.exec_start: where update_curr() counts runtime from
	prio        int      // p->prio; 0 means DefaultPrio
	// uninterruptible: asleep in TASK_UNINTERRUPTIBLE/KILLABLE (a major
	// fault's I/O wait): sched_switch reports D
	uninterruptible bool
	hungOn          func() string // what it waits for in D on a kernel wait (hungtask.go); nil otherwise
	hungSince       sim.Time      // since when
	hungNext        func() *Task  // the task that must act to end the wait (the wait chain's next link); nil: none known
	hungStep        string        // the step point its CPU last passed when it went to sleep
	hungCPU         int           // that CPU
	groupExec       *Task         // sig->group_exec_task: the thread in de_thread() (on the leader)
}

// ForkHook is told of a new task by copy_process(): InitTask early, before the
// child is visible (perf_event_init_task(), whose error fails the fork);
// Forked once it is (perf_event_fork()). Both run in the parent's context.
type ForkHook interface {
	InitTask(parent, child *Task, cloneFlags uint64) error
	Forked(parent, child *Task, cloneFlags uint64)
}

// TraceHook receives the scheduler's tracepoints (include/trace/events/sched.h),
// each fired where the kernel fires it. prev or next nil is the CPU's idle task.
type TraceHook interface {
	// __schedule(): trace_sched_switch(preempt, prev, next, prev_state)
	SchedSwitch(c *cpu.CPU, preempt bool, prev, next *Task, prevState int64)
	// ttwu_do_activate(): trace_sched_wakeup(p); wake_up_new_task(): trace_sched_wakeup_new(p)
	SchedWakeup(c *cpu.CPU, t *Task, targetCPU int, new bool)
	// set_task_cpu(): trace_sched_migrate_task(p, new_cpu), on c in the
	// context of its current thread (migration/N for a stopper's move)
	SchedMigrateTask(c *cpu.CPU, t *Task, orig, dest int)
	// kernel_clone(): trace_sched_process_fork(current, p)
	SchedProcessFork(parent, child *Task)
	// do_exit(): trace_sched_process_exit(tsk, group_dead)
	SchedProcessExit(t *Task, groupDead bool)
	// update_curr(): trace_sched_stat_runtime(p, delta_exec)
	SchedStatRuntime(c *cpu.CPU, t *Task, runtime sim.Duration)
	// exec_binprm(): trace_sched_process_exec(current, old_pid, bprm)
	SchedProcessExec(t *Task, filename string, oldPID int)
}

// prev_state values sched_switch reports (TASK_REPORT bits, and
// TASK_REPORT_MAX for a preemption): __trace_sched_switch_state().
const (
	StateReportRunning     = 0x0000
	StateReportInterruptib = 0x0001 // S
	StateReportDead        = 0x0010 // X: EXIT_DEAD, an autoreaped thread
	StateReportZombie      = 0x0020 // Z: EXIT_ZOMBIE
	StateReportParked      = 0x0040 // P: TASK_PARKED, a parked kthread
	StateReportPreempted   = 0x0100 // TASK_REPORT_MAX: "R+"
)

// Parent returns the real parent (nil for a task the machine started with).
func (t *Task) Parent() *Task { return t.fam.parent }

// Leader returns the thread group leader (t itself for a process).
func (t *Task) Leader() *Task {
	if t.fam.leader == nil {
		return t
	}
	return t.fam.leader
}

// Children returns the processes t forked.
func (t *Task) Children() []*Task { return t.fam.children }

// ProgName is the name of the program t runs (its task or fork block), or its comm.
func (t *Task) ProgName() string {
	if t.fam.prog == "" {
		return t.Comm
	}
	return t.fam.prog
}

// Prio is p->prio.
func (t *Task) Prio() int {
	if t.fam.prio == 0 {
		return DefaultPrio
	}
	if t.fam.prio == stopPrio {
		return 0 // a SCHED_FIFO 99 kthread (stopper.go)
	}
	return t.fam.prio
}

// Zombie reports whether t exited and was not reaped yet.
func (t *Task) Zombie() bool { return t.fam.zombie }

// Reaped reports whether t was released (wait4 reaped it, or it was a thread).
func (t *Task) Reaped() bool { return t.fam.reaped }

// IsThread reports whether t is a non-leader thread of a thread group.
func (t *Task) IsThread() bool { return t.fam.leader != nil && t.fam.leader != t }

// Fork is the program step clone(flags): the child runs prog (named name)
// and, like the kernel's, starts with the parent's comm.
func Fork(name string, flags uint64, prog ...Op) Op {
	return Op{Kind: OpFork, Name: name, N: int(flags), Body: prog}
}

// ExitGroup is the program step exit_group(): every thread of the group dies.
func ExitGroup() Op { return Op{Kind: OpExitGroup} }

// Wait4 is the program step wait4(-1, ...): wait for any child to exit and reap it.
func Wait4() Op { return Op{Kind: OpWait} }

// kernelClone is the clone()/clone3() syscall body: copy_process(), the
// sched_process_fork tracepoint, wake_up_new_task(). It returns the child.
// kernel/fork.c: kernel_clone()
func (s *Sched) kernelClone(t *Task, name string, flags uint64, prog []Op) (*Task, error) {
	child, err := s.copyProcess(t, name, flags, prog)
	if err != nil {
		return nil, err
	}
	// "Do this prior waking up the new thread - the thread pointer might
	// get invalid after that point, if the thread exits quickly."
	for _, h := range s.TraceHooks {
		h.SchedProcessFork(t, child)
	}
	t.Step("kernel_clone:wake_up_new_task")
	s.wakeUpNewTask(child)
	return child, nil
}

// copyProcess builds the child: a new TID; a new PID unless CLONE_THREAD; the
// parent's comm, affinity and (with CLONE_VM) mm; perf_event_init_task();
// then, visible, perf_event_fork().
// kernel/fork.c: copy_process()
func (s *Sched) copyProcess(t *Task, name string, flags uint64, prog []Op) (*Task, error) {
	s.nextPID++
	c := &Task{TID: s.nextPID, Comm: t.Comm, Allowed: t.Allowed, Prog: prog, s: s, lastCPU: t.CPUID()}
	c.UserStack = append([]string(nil), t.UserStack...)
	c.Vars = maps.Clone(t.Vars) // the child's copy of the parent's memory holds what the program bound (an mmap's address, an fd)
	// dup_task_struct() copies timer_slack_ns; copy_process():
	// p->default_timer_slack_ns = current->timer_slack_ns
	c.TimerSlack, c.DefaultTimerSlack = t.TimerSlack, t.TimerSlack
	c.join.clearChildTID = flags&CLONE_CHILD_CLEARTID != 0 // p->clear_child_tid = args->child_tid
	s.cgroupFork(t, c)
	c.fam.prog = name
	c.fam.prio = t.fam.prio
	leader := t.Leader()
	if flags&CLONE_THREAD != 0 {
		c.PID = t.PID
		c.fam.leader = leader
	} else {
		c.PID = c.TID
	}
	t.ensureMM(s)
	// real_parent: "CLONE_PARENT re-uses the old parent" and so do threads.
	realParent := t
	if flags&(CLONE_PARENT|CLONE_THREAD) != 0 {
		realParent = t.fam.parent
	}
	c.fam.parent = realParent
	if realParent != nil {
		c.PPID, c.PTID = realParent.PID, realParent.TID
	} else {
		c.PPID, c.PTID = t.PPID, t.PTID
	}
	// sched_fork(): the child starts on the parent's CPU (task_cpu(p)).
	t.Step("copy_process:sched_fork")
	for _, h := range s.ForkHooks {
		if err := h.InitTask(t, c, flags); err != nil {
			s.forkFailed(t, c, flags)
			return nil, err // perf_event_free_task() ran in the hook
		}
	}
	t.Step("copy_process:perf_event_init_task")
	if err := s.copyResources(t, c, flags); err != nil {
		if s.nextPID == c.TID {
			s.nextPID-- // alloc_pid() took no number: the next fork gets this one
		}
		s.forkUnwind(t, c, flags)
		return nil, err
	}
	// "Let kill terminate clone/fork in the middle": a SIGKILL (exit_group()
	// of another thread) that came during the fork fails it after
	// perf_event_init_task(). The step is the rest of the copy before that
	// check (cgroup_can_fork(), sched_cgroup_fork(), tasklist_lock), where
	// the fork can be interrupted.
	t.Step("copy_process:fatal_signal_pending")
	if t.fam.killed {
		s.forkUnwind(t, c, flags)
		return nil, ErrIntr
	}
	// The child becomes visible: attach_pid(), list_add_tail(&p->sibling, ...).
	s.M.InitAuditedThread(&c.Thread, c.Comm+"-"+strconv.Itoa(c.TID), func(*cpu.Thread) { s.taskMain(c) }) // footprint_switch.go
	c.taskWorks.SetKey(&c.Thread, "task->task_works")                                                     // its stable key (cpu.FootprintKey)
	c.Owner = c
	s.Tasks = append(s.Tasks, c)
	if flags&CLONE_THREAD != 0 {
		leader.fam.threads = append(leader.fam.threads, c)
	} else if realParent != nil {
		realParent.fam.children = append(realParent.fam.children, c)
	}
	for _, h := range s.ForkHooks {
		h.Forked(t, c, flags)
	}
	return c, nil
}

// copyResources is copy_process() after perf_event_init_task(), in its
// order: the fd table (copy_files()), the fs_struct (copy_fs()), the
// signal handlers and signal_struct (copy_sighand(), copy_signal()), the
// mm (copy_mm()), then the rest of the copy and the syscall around it as
// the caller spends it (cost.Profile: most of it is dup_mmap()), then the
// struct pid (alloc_pid()). Each allocation the child does not share may
// fail (a fail line, package faultinject): the fork then returns -ENOMEM
// having made nothing after it, and the caller unwinds the rest
// (bad_fork_cleanup_*, down to bad_fork_cleanup_perf).
// kernel/fork.c: copy_process()
func (s *Sched) copyResources(t, c *Task, flags uint64) error {
	if flags&CLONE_FILES != 0 {
		c.Files = t.Files.Share()
	} else {
		if s.ShouldFail(t, "dup_fd") {
			return uapi.ENOMEM
		}
		c.Files = t.Files.Dup() // dup_fd()
		c.KeyFiles()
	}
	if flags&CLONE_FS == 0 && s.ShouldFail(t, "copy_fs_struct") {
		return uapi.ENOMEM
	}
	if flags&CLONE_SIGHAND == 0 && s.ShouldFail(t, "copy_sighand") {
		return uapi.ENOMEM
	}
	if flags&CLONE_THREAD == 0 && s.ShouldFail(t, "copy_signal") {
		return uapi.ENOMEM
	}
	s.forkSignals(t, c, flags)
	if flags&CLONE_VM != 0 {
		c.MM = t.MM // the address space is shared: mmget()
		c.MM.Users++
		t.Spend(s.Cfg.Cost.CloneThread)
	} else {
		if s.ShouldFail(t, "dup_mm") { // allocate_mm(), before dup_mmap() touches the parent's pages
			return uapi.ENOMEM
		}
		c.MM = t.MM.Dup() // dup_mm(): the parent's VMAs, the present pages stay present
		s.keyMM(c)
		t.Spend(s.Cfg.Cost.CloneProcess)
	}
	if s.ShouldFail(t, "alloc_pid") {
		return uapi.ENOMEM
	}
	return nil
}

// forkUnwind is copy_process()'s error path after perf_event_init_task()
// succeeded, in the labels' order: what the copy made (forkFailed: the
// cgroup's count, the mm, the fd table), then bad_fork_cleanup_perf:
// perf_event_free_task() of the child's inherited events.
// kernel/fork.c: copy_process()
func (s *Sched) forkUnwind(t, c *Task, flags uint64) {
	s.forkFailed(t, c, flags)
	for _, h := range s.ForkHooks {
		if fc, ok := h.(ForkCleanupHook); ok {
			fc.FreeTask(t, c)
		}
	}
}

// wakeUpNewTask makes the child runnable: fork balancing picks its CPU among
// those it may use (select_task_rq(WF_FORK): CFS's idlest CPU; the parent's
// CPU with sched-balance=off), then activate_task(), sched_wakeup_new and
// wakeup_preempt(): an idle CPU reschedules at once (the fair class is above
// the idle class's), a busy one only when check_preempt_wakeup_fair() says
// the child should preempt its current task, remote or not.
// kernel/sched/core.c: wake_up_new_task()
func (s *Sched) wakeUpNewTask(p *Task) {
	c := s.M.CPUs[s.M.Eng.Running().ID]
	f := c.LocalIrqSave()
	p.State = Runnable
	c.Release(&p.Thread) // the parent's fork happens before the child runs (data-race oracle, cpu/race.go)
	p.recentUsedCPU = p.lastCPU
	i := s.selectTaskRq(p, p.lastCPU, wfFork)
	p.lastCPU = i // __set_task_cpu(): no migrate tracepoint
	s.enqueueUpdateCurr(c, i, p)
	s.enqueue(i, p)
	for _, h := range s.TraceHooks {
		h.SchedWakeup(c, p, i, true)
	}
	if TaskOf(s.M.CPUs[i].Curr()) == nil {
		s.resched(i) // wakeup_preempt(): sched_class_above(fair, idle): resched_curr()
	} else {
		s.wakeupPreempt(i, p) // wakeup_preempt() -> check_preempt_wakeup_fair()
	}
	c.LocalIrqRestore(f)
}

// doGroupExit is exit_group(): mark the group exiting and kill the other
// threads (zap_other_threads(): SIGKILL and signal_wake_up()), then exit.
// kernel/exit.c: do_group_exit()
func (s *Sched) doGroupExit(t *Task) {
	s.accessGroupExit(t) // footprint_exit.go
	l := t.Leader()
	if !l.fam.groupExit {
		l.fam.groupExit = true
		for _, th := range s.threadGroup(t) {
			if th == t || th.State == Dead {
				continue
			}
			th.fam.killed = true
			th.SigPending = true
			s.kickTask(th)
		}
	}
}

// threadGroup returns every thread of t's group, the leader first.
func (s *Sched) threadGroup(t *Task) []*Task {
	l := t.Leader()
	return append([]*Task{l}, l.fam.threads...)
}

// groupDead is atomic_dec_and_test(&tsk->signal->live) in t's do_exit(),
// called as t sets PF_EXITING: whether every other thread of its group has
// started its exit (each decrements live beside its PF_EXITING). Exactly
// one exit of a group finds it so, however they overlap; the others find
// a thread still live.
func (s *Sched) groupDead(t *Task) bool {
	for _, th := range s.threadGroup(t) {
		if th != t && !th.fam.exiting {
			return false
		}
	}
	return true
}

// threadGroupEmpty is thread_group_empty(l) while t releases itself:
// every thread of l's group but l and t is released (a thread is, once
// its exit_notify() autoreaped it: the model's Dead).
// include/linux/sched/signal.h: thread_group_empty()
func (s *Sched) threadGroupEmpty(l, t *Task) bool {
	for _, th := range l.fam.threads {
		if th != t && th.State != Dead {
			return false
		}
	}
	return true
}

// notifiesParent reports whether t's exit_notify() tells the parent its
// process is dead: the leader's when no other thread is left
// (thread_group_empty()), a thread's when it is the last to go after the
// leader became a zombie (release_task(): "If we were the last child thread
// and the leader has exited already"). Which exit that is does not depend
// on group_dead: of a leader and a thread exiting side by side, the
// leader may be group_dead and the thread the one that notifies.
// kernel/exit.c: exit_notify(), release_task()
func (s *Sched) notifiesParent(t *Task) bool {
	l := t.Leader()
	if t == l {
		return s.threadGroupEmpty(l, t)
	}
	return l.fam.zombie && s.threadGroupEmpty(l, t)
}

// exitNotify is exit_notify(): children are reparented to init (the machine
// has no subreaper); a thread is released at once (autoreap); a process
// whose thread group is empty becomes a zombie and wakes its parent's
// wait4 (do_notify_parent() -> __wake_up_parent()). It returns the state
// sched_switch reports for the exiting task.
// kernel/exit.c: exit_notify(), forget_original_parent(), release_task()
func (s *Sched) exitNotify(t *Task, groupDead bool) int64 {
	for _, ch := range t.fam.children {
		ch.fam.parent = nil
		ch.PPID, ch.PTID = 1, 1
		if ch.fam.zombie && !ch.fam.reaped {
			ch.fam.reaped = true // init reaps it
		}
	}
	t.fam.children = nil
	l := t.Leader()
	notify := s.notifiesParent(t)
	if t != l {
		t.fam.reaped = true // a thread autoreaps: EXIT_DEAD
		if notify {
			s.notifyParent(t, l)
		}
		s.execWaiterWake(t) // exec_dethread.go
		return StateReportDead
	}
	t.fam.zombie = true
	if notify {
		s.notifyParent(t, t)
	}
	s.execWaiterWake(t)
	return StateReportZombie
}

// notifyParent is do_notify_parent() of the dead process of leader l, by
// t's exit: the hooks hear it (perf's SIGCHLD), and the parent's wait4
// wakes.
// kernel/signal.c: do_notify_parent()
func (s *Sched) notifyParent(t, l *Task) {
	for _, h := range s.ExitHooks {
		if n, ok := h.(ParentNotifyHook); ok {
			n.NotifyParent(t, l)
		}
	}
	p := l.fam.parent
	if p == nil {
		l.fam.reaped = true // init reaps it
		return
	}
	s.wakeUpAll(&p.Leader().fam.waitChldExit, true) // __wake_up_parent(): annotated (footprint_wake.go)
	s.accessAfterNotify(t, true)                    // what follows it, for a fragment one of its step points started
}

// ForkedBy makes p the real parent of child, a task the machine made for
// p to have forked (perf record's workload: evlist__prepare_workload()'s
// fork()): child's process death notifies p, and p's wait4 reaps it.
// kernel/fork.c: copy_process(): p->real_parent, list_add_tail(&p->sibling, &p->real_parent->children)
func (s *Sched) ForkedBy(child, p *Task) {
	child.fam.parent = p
	child.PPID, child.PTID = p.PID, p.TID
	p.fam.children = append(p.fam.children, child)
}

// WaitChild is wait4(-1) by t (perf record's wait(&exit_status), a
// program's wait step): t sleeps until a child of its process is a zombie
// and reaps it. Its body is annotated (footprint_exit.go: accessDoWait).
// It returns the child's pid (-ECHILD: none); a signal that interrupts the
// wait makes it -ERESTARTSYS, which the signal's delivery turns into
// -EINTR or a wait4() again (SA_RESTART: perf's handlers).
// kernel/exit.c: SYSCALL_DEFINE4(wait4) -> kernel_wait4() -> do_wait()
func (s *Sched) WaitChild(t *Task) {
	s.SyscallAnnotated(t, "wait4", func(t *Task) {
		pid, err := s.wait4(t)
		switch err {
		case ErrInterrupted:
			s.sysRestartsys(t)
			return
		case ErrNoChild:
			pid = int(errno(uapi.ECHILD))
		}
		t.accessRegs("do_syscall_64") // regs->ax = the syscall's return
		t.Sys.Ret = int64(pid)
	})
}

// wait4 waits for any child of t's thread group to be a zombie and reaps it,
// returning its pid: -ECHILD with no child at all.
// kernel/exit.c: do_wait() -> wait_consider_task(), wait_task_zombie()
func (s *Sched) wait4(t *Task) (int, error) {
	interrupted := false
	for {
		any := false
		s.accessDoWait(t) // footprint_exit.go
		for _, th := range s.threadGroup(t) {
			for _, ch := range th.fam.children {
				if ch.fam.reaped {
					continue
				}
				any = true
				if ch.fam.zombie && s.threadGroupEmpty(ch, ch) { // !delay_group_leader()
					t.Spend(s.Cfg.Cost.Wait4Reap) // wait_task_zombie() -> release_task(), and the syscall around it (cost.Profile)
					s.accessReap(t, ch)           // footprint_exit.go: after the spend, which an interrupt may end the fragment in
					ch.fam.reaped = true          // release_task(): off the parent's children list
					th.fam.children = removeTask(th.fam.children, ch)
					return ch.PID, nil
				}
			}
		}
		if !any {
			return -1, ErrNoChild
		}
		// a signal ends the wait only after the children were looked at
		// again: the SIGCHLD that comes with a child's death finds it a
		// zombie and reaps it (do_wait(): goto repeat, then -ERESTARTSYS
		// only when no child was ready)
		if interrupted {
			return -1, ErrInterrupted
		}
		t.Step("do_wait:schedule")
		interrupted = !s.waitChld(t)
	}
}

// ErrInterrupted is -ERESTARTSYS: a signal interrupted a wait.
var ErrInterrupted = errors.New("interrupted system call")

// updateCurr is update_curr() for the task on c: the runtime since
// exec_start, reported by sched_stat_runtime.
// kernel/sched/fair.c: update_curr() -> update_curr_task()
func (s *Sched) updateCurr(c *cpu.CPU, t *Task) {
	// rq_clock_task() of t's run queue: the local time of the CPU t runs
	// on, the clock exec_start was taken from when t was switched in
	now := c.Now()
	if tc := t.CPU(); tc != nil {
		now = tc.Now()
	}
	d := now - t.fam.execStart
	s.accessSE(t, "update_curr")
	t.fam.execStart = now
	if d <= 0 {
		return
	}
	for _, h := range s.TraceHooks {
		h.SchedStatRuntime(c, t, d)
	}
}

// enqueueUpdateCurr is the update_curr() that enqueue_entity() runs on the
// run queue of CPU i before p joins it: the task running there (not the idle
// task, not p) has its runtime since exec_start accounted, and
// sched_stat_runtime fires for it on the CPU doing the enqueue, before
// sched_wakeup or sched_wakeup_new. (The model has one task group: with
// autogroup or cgroups the kernel does this only when the running task is on
// the same cfs_rq.)
// kernel/sched/fair.c: enqueue_entity() -> update_curr()
func (s *Sched) enqueueUpdateCurr(c *cpu.CPU, i int, p *Task) {
	if c == nil {
		return
	}
	if cur := TaskOf(s.M.CPUs[i].Curr()); cur != nil && cur != p {
		s.updateCurr(c, cur)
	}
}

// setTaskCPU is set_task_cpu() for a task moving between run queues: the
// sched_migrate_task tracepoint, then the move.
// kernel/sched/core.c: set_task_cpu()
func (s *Sched) setTaskCPU(c *cpu.CPU, t *Task, dest int) {
	if c != nil {
		for _, h := range s.TraceHooks {
			h.SchedMigrateTask(c, t, t.lastCPU, dest)
		}
	}
	t.lastCPU = dest
}

func removeTask(l []*Task, t *Task) []*Task {
	for i, x := range l {
		if x == t {
			return append(l[:i:i], l[i+1:]...)
		}
	}
	return l
}

// cloneRet is what clone() returns to the parent: the child's TID, or the
// negative errno copy_process() failed with.
// kernel/fork.c: kernel_clone()
func cloneRet(c *Task, err error) int64 {
	var e uapi.Errno
	switch {
	case err == nil:
		return int64(c.TID)
	case errors.As(err, &e):
		return errno(e)
	case err == ErrIntr:
		return errno(uapi.EINTR)
	}
	sim.Crash("clone: copy_process() failed with %v, which is no errno (a model bug)", err)
	return 0
}
