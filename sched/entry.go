package sched

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// taskMain is a task's coroutine: schedule_tail(), the return to user mode
// (ret_from_fork; a new task has no exit work pending), then its program in
// user mode, then do_exit().
func (s *Sched) taskMain(t *Task) {
	pushed := s.finishTaskSwitch(t.CPU())
	// ret_from_fork -> syscall_exit_to_user_mode(): the thread flags read,
	// in the fragment perf's sched-in step point started (pmu/footprint_sched.go).
	s.accessWork(t.CPU(), t)
	if pushed {
		s.scheduleFrom(&t.Thread, true) // exit_to_user_mode_loop(): need_resched(), set by balance_push()
		s.accessWork(t.CPU(), t)
	}
	if t.fam.killed {
		s.exit(t) // ret_from_fork's exit work: SIGKILL from exit_group() before it ever ran
	}
	// The return is into runOps's own code, which marks each operation
	// whose code is not annotated as it starts (footprint_entry.go).
	t.userAudited = true
	s.returnToUser(t)
	s.runOps(t, t.Prog)
	s.exit(t)
}

// RunOps runs program steps in t's context (a signal handler's body, say).
func (s *Sched) RunOps(t *Task, ops []Op) {
	s.runOps(t, ops)
	t.CPU().Unaudited("the caller of RunOps") // back in Go code nobody annotated (footprint_entry.go)
}

func (s *Sched) runOps(t *Task, ops []Op) bool {
	outer := t.userAudited
	defer func() { t.userAudited = outer }() // back in the caller's code
	for i := range ops {
		op := &ops[i]
		if t.userAudited = userOpAudited[op.Kind]; !t.userAudited {
			t.CPU().Unaudited("the program's user-mode code") // footprint_entry.go
		}
		switch op.Kind {
		case OpCompute:
			t.Spend(op.D)
			t.Computed += op.D
		case OpSyscall:
			s.syscallOp(t, op)
		case OpTouch:
			if !s.touch(t, op) {
				return false
			}
		case OpSleep:
			s.sleep(t, op.D)
		case OpLoop:
			for n := 0; n < op.N; n++ {
				if !s.runOps(t, op.Body) {
					return false
				}
			}
		case OpMigrate:
			s.setAffinity(t, MaskOf(op.CPU))
		case OpAffinity:
			s.setAffinity(t, op.Mask)
		case OpYield:
			s.SyscallAnnotated(t, "sched_yield", s.schedYield) // footprint_syscalls.go
		case OpStack:
			s.accessStack(t, "the program's stack step") // footprint_user.go
			t.UserStack = op.Stack
			s.userStackChanged(t)
		case OpCall, OpCallAnnotated:
			op.Fn(t)
		case OpExit:
			s.enterExitSyscall(t, "exit")
			return false
		case OpFork:
			name := "clone"
			if uint64(op.N)&CLONE_THREAD != 0 {
				name = "clone3" // pthread_create()
			}
			s.syscallWith(t, name, func(t *Task) {
				c, err := s.kernelClone(t, op.Name, uint64(op.N), op.Body)
				t.Sys.Ret = cloneRet(c, err)
				if err == nil && uint64(op.N)&CLONE_CHILD_CLEARTID != 0 {
					s.noteJoinable(t, c) // join.go
				}
			})
		case OpExitGroup:
			s.enterExitSyscall(t, "exit_group")
			s.doGroupExit(t)
			return false
		case OpWait:
			s.WaitChild(t) // do_wait(), annotated (fork.go)
		case OpPipe:
			s.pipeOp(t, op.Name, op.N)
		case OpFutex:
			s.futexOp(t, op.Name, op.N)
		case OpJoin:
			s.join(t, op.Name)
		}
	}
	return true
}

// syscall enters the kernel for a named syscall and returns to user mode. A
// syscall without a model body spends d in the kernel (SyscallCost when d is 0).
func (s *Sched) syscall(t *Task, name string, d sim.Duration) {
	body := s.Syscalls[name]
	modelled := body == nil
	if modelled {
		if d <= 0 {
			d = s.Cfg.SyscallCost
		}
		t.sysCost = d
		body = s.modelledSyscall(name) // syscalls_mm.go; nil: spendSysCost
	}
	kind := bodyGo
	if modelled {
		kind = bodyModelled
	}
	s.syscallEntry(t, name, body, kind)
}

// syscallWith is the syscall entry and exit path around body: syscall_enter_from
// user_mode() (trace_sys_enter), the body, syscall_exit_to_user_mode()
// (trace_sys_exit, then exit_to_user_mode()).
func (s *Sched) syscallWith(t *Task, name string, body SyscallFunc) {
	s.syscallEntry(t, name, body, bodyGo)
}

// syscallEntry is syscallWith; kind says whose body it is: the scheduler's
// own model of the syscall (modelledSyscall), which may be one whose
// accesses are annotated, one its author annotated (SyscallAnnotated), or
// any other (footprint_entry.go: enterBody).
// A syscall a signal interrupted runs again, from its entry, when the
// signal's delivery on the way out says so (-ERESTARTSYS and SA_RESTART,
// say: signal_restart.go): the same number and arguments, as the syscall
// instruction the return to user mode lands on again (regs->ip -= 2).
func (s *Sched) syscallEntry(t *Task, name string, body SyscallFunc, kind bodyKind) {
	for restart := false; ; restart = true {
		s.setUser(t, false)
		t.accessRegs("do_syscall_64")
		t.KernelEntries++
		t.Syscall = name
		if restart {
			t.Sys.Ret = 0 // the number and arguments where they were
		} else {
			t.loadSysRegs(name)
		}
		t.Step("syscall_enter_from_user_mode")
		for _, h := range s.SyscallHooks {
			h.SysEnter(t, name)
		}
		s.enterBody(t, name, kind)
		body(t)
		for _, h := range s.SyscallHooks {
			h.SysExit(t, name)
		}
		t.accessRegs("syscall_exit_to_user_mode")
		t.Syscall = ""
		if !s.exitToUserMode(t, true) {
			return
		}
	}
}

// Syscall runs a syscall with a model body from inside t's program (OpCall).
func (s *Sched) Syscall(t *Task, name string, body SyscallFunc) { s.syscallWith(t, name, body) }

// exitToUserMode is exit_to_user_mode_loop() and what follows it: reschedule,
// signals, TIF_NOTIFY_RESUME work, until no work is left; then the user-return
// hooks (unwind_reset_info()). On the way out of a syscall (syscall) it
// reports whether the signals' delivery made the syscall run again.
func (s *Sched) exitToUserMode(t *Task, syscall bool) (restart bool) {
	s.setUser(t, false)
	for {
		c := t.CPU()
		c.Step("exit_to_user_mode_loop")
		s.accessWork(c, t)
		switch {
		case s.needResched[c.ID]:
			s.scheduleFrom(&t.Thread, true)
		case t.fam.killed:
			s.exit(t) // get_signal(): SIGKILL from exit_group() -> do_group_exit()
		case t.SigPending || t.NotifySignal:
			if s.doSignal(t, syscall) {
				restart = true // regs->ip -= 2, which a later signal's delivery leaves be
			}
		case t.NotifyResume:
			c.AccessMarkedOnly(t, "thread_info->flags", cpu.MarkedWrite, "resume_user_mode_work") // include/linux/resume_user_mode.h: resume_user_mode_work(): clear_thread_flag(TIF_NOTIFY_RESUME)
			t.NotifyResume = false
			s.taskWorkRun(t) // resume_user_mode_work()
		default:
			s.returnToUser(t)
			return restart
		}
	}
}

// returnToUser is the end of exit_to_user_mode(): the user-return hooks, then
// user mode.
func (s *Sched) returnToUser(t *Task) {
	if t.mutexes > 0 {
		sim.Crash("BUG: %s returning to user space with %d mutex(es) held", t, t.mutexes)
	}
	for _, h := range s.UserReturnHooks {
		h.ExitToUser(t)
	}
	s.setUser(t, true)
	s.returnInto(t)
}

// setUser moves t to user mode or to the kernel, telling the mode hooks.
func (s *Sched) setUser(t *Task, user bool) {
	if t.User == user {
		return
	}
	t.accessRegs("enter_from_user_mode")
	t.User = user
	for _, h := range s.ModeHooks {
		h.ModeSwitch(t, user)
	}
}

// userStackChanged tells the StackHooks among the ModeHooks that t now
// runs in another user function.
func (s *Sched) userStackChanged(t *Task) {
	for _, h := range s.ModeHooks {
		if sh, ok := h.(StackHook); ok {
			if _, annotated := h.(AnnotatedStackHook); !annotated {
				t.CPU().Unaudited("a StackHook's UserStackChanged") // a tracer's code nobody vouched for (footprint_user.go)
			}
			sh.UserStackChanged(t)
		}
	}
}

// Wake makes a sleeping task runnable: try_to_wake_up(). See ttwu in wake.go.
func (s *Sched) Wake(t *Task) { s.tryToWakeUp(t, 0) }

// SetAffinity is sched_setaffinity(0, m) by the running task t.
func (s *Sched) SetAffinity(t *Task, m CPUMask) { s.setAffinity(t, m) }

// setAffinity is sched_setaffinity() on the running task: if its CPU is no longer
// allowed it is moved off it (migration_cpu_stop()).
func (s *Sched) setAffinity(t *Task, m CPUMask) {
	m = m.And(AllCPUs(len(s.M.CPUs)))
	if m.Empty() {
		return
	}
	s.SyscallAnnotated(t, "sched_setaffinity", func(t *Task) {
		c := t.CPU()
		s.accessSetAffinity(c, t, m) // footprint_stopper.go
		t.Allowed = m
		if m.Has(c.ID) {
			return
		}
		s.stopOneCPU(t, s.selectCPU(t, m.First()), true) // affine_move_task(): migration_cpu_stop() on migration/N (stopper.go)
	})
}

// enterExitSyscall is the entry of exit() or exit_group(): sys_enter fires,
// sys_exit never does (the syscall does not return).
func (s *Sched) enterExitSyscall(t *Task, name string) {
	s.setUser(t, false)
	t.accessRegs("do_syscall_64")
	t.KernelEntries++
	t.Syscall = name
	t.Step("syscall_enter_from_user_mode")
	for _, h := range s.SyscallHooks {
		h.SysEnter(t, name)
	}
}

// exit is do_exit(): PF_EXITING, the exit hooks (perf_event_exit_task()),
// exit_mm(), exit_files(), exit_task_work(), exit_notify(), then the last
// switch away. Its accesses are annotated (footprint_exit.go), the hooks
// nobody annotated marked.
// kernel/exit.c: do_exit()
func (s *Sched) exit(t *Task) {
	if t.mutexes > 0 {
		sim.Crash("BUG: %s exiting with %d mutex(es) held", t, t.mutexes)
	}
	s.setUser(t, false)
	if t.Syscall == "" {
		t.KernelEntries++ // the end of the program: do_exit() without a syscall
	}
	s.accessExitSignals(t)
	t.fam.exiting = true // exit_signals(): PF_EXITING
	groupDead := s.groupDead(t)
	// exit_signals() to taskstats_exit(): the group-dead timers and acct
	// for the last thread (cost.Profile.ExitStart, ExitThreadStart)
	if groupDead {
		s.exitSpend(t, s.Cfg.Cost.ExitStart)
	} else {
		s.exitSpend(t, s.Cfg.Cost.ExitThreadStart)
	}
	for _, h := range s.TraceHooks {
		h.SchedProcessExit(t, groupDead)
	}
	// "Since sampling can touch ->mm, make sure to stop everything before
	// we tear it down": perf_event_exit_task(), unwind_deferred_task_exit(),
	// then exit_mm(), exit_files(), exit_task_work().
	if !s.Cfg.PerfExitLate {
		s.exitHooks(t)
	}
	s.exitMM(t)
	s.exitFiles(t)
	if len(t.works) > 0 {
		s.taskWorkRunFrom(t, true) // exit_task_work(): back into the code below, annotated
	} else {
		s.accessExitTaskWork(t)
	}
	// the rest of mmput(), exit_files(), exit_fs(), exit_task_work() (the
	// fput()s), cgroup_exit(), exit_notify() up to do_notify_parent(); a
	// thread's whole rest, release_task() with it (cost.Profile.ExitFiles,
	// ExitThreadRest)
	if groupDead {
		s.exitSpend(t, s.Cfg.Cost.ExitFiles)
	} else {
		s.exitSpend(t, s.Cfg.Cost.ExitThreadRest)
	}
	if s.Cfg.PerfExitLate {
		s.markExitLate(t)
		s.exitHooks(t) // before 4f6fc7821283: after exit_task_work()
	}
	s.accessExitDead(t, groupDead)
	t.State = Dead
	s.exitSignal(t, groupDead)
	s.cgroupExit(t)
	t.Exited = s.M.Now()
	t.fam.exitState = s.exitNotify(t, groupDead)
	if t.wakeTimer != nil {
		t.wakeTimer.Cancel()
	}
	s.note(t.CPU(), sim.KNote, t.Thread.Name, "exit", 0)
	if groupDead {
		s.exitSpend(t, s.Cfg.Cost.ExitDead) // exit_notify() after the parent's wake-up, do_task_dead(), up to __schedule() (cost.Profile.ExitDead); nothing written after it but schedule()'s, past its step point
	}
	s.schedule(&t.Thread)
}

// exitSpend spends d, a part of do_exit()'s cost, in t; nothing in a
// stand-in (Task.StandIn).
func (s *Sched) exitSpend(t *Task, d sim.Duration) {
	if !t.StandIn {
		t.Spend(d)
	}
}

// exitMM is exit_mm(): t drops its use of its address space (mmput()); the
// hooks hear it (the last user's put runs exit_mmap(), which closes the perf
// VMAs still mapped). Both orders of do_exit() run it before exit_files().
// kernel/exit.c: exit_mm()
func (s *Sched) exitMM(t *Task) {
	last := t.MM != nil && t.MM.Users == 1
	if !last {
		s.exitSpend(t, s.Cfg.Cost.ExitThreadMM) // perf_event_exit_task() to exit_mm_release() (cost.Profile.ExitThreadMM)
	}
	s.mmRelease(t) // exit_mm_release() first: its futex wake may reach a step point (join.go)
	if last {
		// mmput() -> exit_mmap(): the VMAs unmapped and freed, before
		// remove_vma() closes each (the hooks' part, annotated with
		// exit_mm()'s body below) (cost.Profile.ExitMMap)
		s.exitSpend(t, s.Cfg.Cost.ExitMMap)
	}
	s.accessExitMM(t)
	if t.MM != nil && t.MM.Users > 0 {
		t.MM.Users--
	}
	s.eachHook(func(h any) {
		if c, ok := h.(ExitMMHook); ok {
			c.TaskExitMM(t)
		}
	})
}

// exitHooks runs the TaskExitHooks: perf_event_exit_task() and what sits
// with it in do_exit().
func (s *Sched) exitHooks(t *Task) {
	for _, h := range s.ExitHooks {
		s.markExitHook(t, h)
		h.TaskExit(t)
	}
}

// exitFiles is exit_files(): put_files_struct() drops t's use of its fd
// table; the last use closes every fd (close_files(): filp_close() ->
// fput() for each; an anon file's owner hears of it through FileHook).
// kernel/exit.c: exit_files() -> fs/file.c: put_files_struct(), close_files()
func (s *Sched) exitFiles(t *Task) {
	fl := t.Files
	s.accessExitFiles(t, fl)
	if fl == nil || fl.Users == 0 {
		return
	}
	if fl.Users--; fl.Users > 0 {
		return
	}
	for _, f := range fl.CloseAll() {
		s.accessExitFput(t, f)
		s.fput(t, f)
	}
}
