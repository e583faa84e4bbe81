package sched

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
)

// enqueue puts t at the tail of CPU i's run queue.
func (s *Sched) enqueue(i int, t *Task) {
	s.accessRQ(i, cpu.MarkedWrite, "enqueue_task")
	s.accessOnRQ(t, cpu.MarkedWrite, "enqueue_task")
	s.cfsEnqueue(i, t) // enqueue_entity(): placed on the cfs_rq (eevdf.go)
	s.rq[i] = append(s.rq[i], t)
}

// queued reports whether t is on some run queue.
func (s *Sched) queued(t *Task) bool {
	for _, q := range s.rq {
		for _, x := range q {
			if x == t {
				return true
			}
		}
	}
	return false
}

// dequeue removes t from CPU i's run queue if it is there.
func (s *Sched) dequeue(i int, t *Task) bool {
	s.accessRQ(i, cpu.MarkedWrite, "dequeue_task")
	s.accessOnRQ(t, cpu.MarkedWrite, "dequeue_task")
	q := s.rq[i]
	for k, x := range q {
		if x == t {
			copy(q[k:], q[k+1:])
			q[len(q)-1] = nil
			s.rq[i] = q[:len(q)-1]
			return true
		}
	}
	return false
}

// resched marks CPU i's current task for rescheduling: resched_curr(). A remote
// CPU gets the reschedule IPI.
func (s *Sched) resched(i int) {
	c := s.M.CPUs[i]
	c.AccessMarkedOnly(c, "TIF_NEED_RESCHED", cpu.MarkedWrite, "resched_curr") // kernel/sched/core.c: resched_curr(): set_tsk_need_resched(curr)
	s.needResched[i] = true
	if run := s.M.Eng.Running(); run != nil && run.ID != i {
		c.RaiseIRQ(cpu.Interrupt{Name: "resched-ipi", Fn: func(*cpu.CPU) {}})
	}
}

// selectCPU is select_task_rq(): with Balance, the Chooser picks among the
// allowed CPUs, option 0 being prev when it is allowed.
func (s *Sched) selectCPU(t *Task, prev int) int {
	if !t.Allowed.Has(prev) {
		prev = t.Allowed.First()
	}
	if !s.isCPUAllowed(t, prev) {
		prev = s.fallbackCPU(t) // is_cpu_allowed() fails: select_fallback_rq()
	}
	if !s.Cfg.Balance {
		return prev
	}
	opts := []int{prev}
	for _, c := range t.Allowed.List() {
		if c != prev && c < len(s.M.CPUs) && s.CPUActive(c) {
			opts = append(opts, c)
		}
	}
	if len(opts) == 1 {
		return prev
	}
	return opts[s.M.Eng.Choose(len(opts), "select_task_rq:"+t.Comm)]
}

// schedule is __schedule(): called by the current thread of its CPU with irqs on.
// A running task that is still Runnable goes back to a run queue; the next thread
// is picked and switched to. It returns when the calling thread runs again.
func (s *Sched) schedule(prev *cpu.Thread) { s.scheduleFrom(prev, false) }

// scheduleFrom is schedule; audited says that its caller's code after it
// (up to the caller's next step point) is annotated: exit_to_user_mode_loop
// (footprint_switch.go). Any other caller is marked unaudited where
// schedule returns into it.
func (s *Sched) scheduleFrom(prev *cpu.Thread, audited bool) {
	c := prev.CPU()
	c.LocalIrqSave()
	c.Step("__schedule:irqs-off")
	s.accessRQ(c.ID, cpu.MarkedWrite, "__schedule")                          // kernel/sched/core.c: __schedule(): rq_lock(rq): the run queue read and written below (the pick, rq->curr)
	c.AccessMarkedOnly(c, "TIF_NEED_RESCHED", cpu.MarkedWrite, "__schedule") // kernel/sched/core.c: __schedule(): clear_tsk_need_resched(prev)
	s.needResched[c.ID] = false
	pt := TaskOf(prev)
	if pt != nil {
		s.accessState(c, pt)
	}
	if pt != nil && !pt.stopClass {
		s.cfsUpdateCurr(c.ID) // pick_next_task_fair(): update_curr()
		if pt.State == Dead {
			s.cfsRemove(pt) // TASK_DEAD is a special state: DEQUEUE_SPECIAL, never delayed
		} else if pt.State != Runnable {
			s.cfsSleep(c.ID, pt) // block_task() -> dequeue_entity()
		}
	}
	// A task going to sleep that was woken at the step point above is on a
	// run queue already (Wake enqueued it): once only (ttwu_runnable()).
	if pt != nil {
		s.accessOnRQ(pt, cpu.MarkedRead, "__schedule")
	}
	if pt != nil && pt.stopClass && pt.State == Runnable {
		s.accessStopperPick(c, cpu.MarkedWrite)
		s.stoppers[c.ID].runnable = true // work queued meanwhile: it runs on (stopper.go)
	} else if pt != nil && pt.State == Runnable && !pt.fam.wakePending && !s.queued(pt) {
		s.enqueue(c.ID, pt)
	}
	next := s.pickNext(c)
	nt := TaskOf(next)
	s.rqCurr[c.ID] = nt // RCU_INIT_POINTER(rq->curr, next)
	if next == prev {
		if pt != nil && !pt.stopClass {
			s.dequeue(c.ID, pt)
		}
		s.accessBalanceCallbacks(c)
		pushed := s.balancePush(c) // __schedule(): no switch, __balance_callbacks(rq, NULL)
		c.LocalIrqRestore(true)
		if pushed {
			s.scheduleFrom(prev, audited) // schedule(): while (need_resched()): to migration/N
			return
		}
		s.returnFromSchedule(prev, audited)
		return
	}
	// pick_next_task()'s work (put_prev_task(), the class's pick), before
	// trace_sched_switch() and perf's sched-out: prev's events still count
	// and sample it there. calibrate.sh measures this share of the switch
	// between sys_enter_sched_yield and sched_switch (cost.Profile.SchedulePick).
	if d := s.Cfg.Cost.SchedulePick; d > 0 {
		c.Spend(d)
	}
	if len(s.TraceHooks) > 0 {
		s.traceSwitch(c, pt, nt)
	}
	// prepare_task_switch()
	for _, h := range s.SwitchHooks {
		h.SchedOut(c, pt, nt)
	}
	c.Step("context_switch")
	if d := s.Cfg.Cost.ContextSwitch - s.Cfg.Cost.SchedulePick; d > 0 {
		c.Spend(d) // context_switch(): switch_mm, switch_to (cost.Profile.ContextSwitch less SchedulePick)
	}
	s.Switches++
	s.accessSwitch(c, pt, nt)
	s.lastPrev[c.ID] = prev
	if pt != nil {
		pt.lastCPU = c.ID
		pt.execEnd = c.Now() // its last update_curr(): se.exec_start as task_hot() reads it
	}
	if nt != nil {
		nt.ran = true
	}
	if pt != nil && pt.State == Dead {
		prev.Exit(next)
		return
	}
	prev.SwitchTo(next)
	if s.finishTaskSwitch(prev.CPU()) {
		s.scheduleFrom(prev, audited) // schedule(): while (need_resched()): to migration/N
		return
	}
	s.returnFromSchedule(prev, audited)
}

// finishTaskSwitch runs in the thread that was switched to:
// finish_task_switch(). It reports whether balance_push() handed the
// thread to the stopper: it must schedule again before it returns to its
// own code.
func (s *Sched) finishTaskSwitch(c *cpu.CPU) (pushed bool) {
	prev := s.lastPrev[c.ID]
	s.lastPrev[c.ID] = nil
	curr := c.Curr()
	pt, nt := TaskOf(prev), TaskOf(curr)
	for _, h := range s.SwitchHooks {
		h.SchedIn(c, pt, nt)
	}
	s.accessFinishSwitch(c, pt, nt)
	pushed = s.balancePush(c) // finish_lock_switch() -> __balance_callbacks()
	if nt != nil {
		nt.fam.execStart = c.Now()
		if !nt.stopClass {
			s.setNextEntity(c, nt)
		}
		if ok, _ := s.tick[c.ID].Armed(); !ok {
			s.tick[c.ID].Arm(c.Now() + s.Cfg.Tick)
		}
	} else {
		s.tick[c.ID].Cancel() // NO_HZ idle
	}
	c.LocalIrqRestore(true)
	return pushed
}

// pickNext takes the task EEVDF picks on c's run queue, else the first that
// is not still running on another CPU (p->on_cpu), or balances, or returns
// the idle thread.
func (s *Sched) pickNext(c *cpu.CPU) *cpu.Thread {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(rqKey{s, c.ID}, "rq->balance_callback", cpu.MarkedRead, "pick_next_task") // kernel/sched/fair.c: sched_balance_newidle(): cpu_active(this_cpu), cleared when the CPU goes down
		s.accessStopperPick(c, cpu.MarkedRead)
	}
	if st := &s.stoppers[c.ID]; st.runnable {
		s.accessStopperPick(c, cpu.MarkedWrite)
		st.runnable = false // pick_next_task_stop(): the highest class first
		return &st.t.Thread
	}
	if t := s.cfsPick(c, TaskOf(c.Curr())); t != nil {
		s.dequeue(c.ID, t)
		return &t.Thread
	}
	for _, t := range s.rq[c.ID] {
		s.accessOnCPU(c, t)
		if t.CPU() == nil || t.CPU() == c {
			s.dequeue(c.ID, t)
			return &t.Thread
		}
	}
	if s.Cfg.Balance {
		c.Unaudited("idle_balance") // the explorer's pull: other CPUs' run queues (footprint_switch.go)
	}
	if t := s.idleBalance(c); t != nil {
		return &t.Thread
	}
	if s.cfsPlacement() {
		if t := s.schedBalanceNewidle(c); t != nil {
			return &t.Thread
		}
	}
	return s.idle[c.ID]
}

// idleBalance is the scheduler-chosen migration when a CPU is about to go idle:
// the Chooser may pull a waiting task that is allowed here (option 0: stay idle).
func (s *Sched) idleBalance(c *cpu.CPU) *Task {
	if !s.Cfg.Balance || !s.CPUActive(c.ID) {
		return nil
	}
	var cands []*Task
	var from []int
	for i, q := range s.rq {
		if i == c.ID {
			continue
		}
		for _, t := range q {
			if t.Allowed.Has(c.ID) && t.CPU() == nil {
				cands = append(cands, t)
				from = append(from, i)
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	d := s.M.Eng.Choose(len(cands)+1, "idle_balance")
	if d == 0 {
		return nil
	}
	t := cands[d-1]
	s.dequeue(from[d-1], t)
	s.setTaskCPU(c, t, c.ID)
	s.Migrations++
	s.note(c, sim.KMigrate, t.Thread.Name, "cpu"+strconv.Itoa(from[d-1])+"->cpu"+strconv.Itoa(c.ID), 0)
	return t
}

// idleLoop is the idle thread: do_idle().
// Going idle tries one idle balance; if the Chooser keeps the CPU idle, it waits
// for the next interrupt before trying again.
func (s *Sched) idleLoop(th *cpu.Thread) {
	balanced := false
	for {
		c := th.CPU()
		s.accessIdle(c)
		if h := s.hotplug; h != nil && h.onlineIdle[c.ID] {
			s.cpuhpOnlineIdle(c) // cpu_startup_entry() of a CPU coming up
		}
		if s.needResched[c.ID] || len(s.rq[c.ID]) > 0 {
			s.scheduleFrom(th, true)
			balanced = false
			continue
		}
		if s.Cfg.Balance && !balanced {
			c.Unaudited("newidle_balance") // footprint_switch.go
		}
		if s.Cfg.Balance && !balanced && s.anyStealable(c) {
			balanced = true
			s.scheduleFrom(th, true)
			continue
		}
		balanced = false
		if h := s.hotplug; h != nil && h.idleDead[c.ID] {
			s.cpuhpReportIdleDead(c) // do_idle(): cpu_is_offline(cpu)
		}
		th.Idle()
	}
}

func (s *Sched) anyStealable(c *cpu.CPU) bool {
	if !s.CPUActive(c.ID) {
		return false
	}
	for i, q := range s.rq {
		if i == c.ID {
			continue
		}
		for _, t := range q {
			if t.Allowed.Has(c.ID) && t.CPU() == nil {
				return true
			}
		}
	}
	return false
}

// schedulerTick is the tick's irq handler: sched_tick(). The running task that
// used up its request, or its protected slice, while others wait is marked
// for preemption (update_curr(), eevdf.go).
func (s *Sched) schedulerTick(c *cpu.CPU) {
	t := s.Current(c)
	if t == nil || t.stopClass {
		return // task_tick_stop(): nothing
	}
	if len(s.TraceHooks) > 0 {
		s.updateCurr(c, t) // task_tick_fair() -> entity_tick()
	}
	if s.cfsUpdateCurr(c.ID) {
		s.needResched[c.ID] = true
	}
	s.tick[c.ID].Arm(c.Now() + s.Cfg.Tick)
}

// wakeupPreempt is wakeup_preempt() -> check_preempt_wakeup_fair() for p,
// just enqueued on CPU i: update_curr() on the running task (which may
// reschedule on its own), then if pick_eevdf() now returns p, resched_curr()
// marks the running task (TIF_NEED_RESCHED; a remote CPU gets the reschedule
// IPI). A running task with lag >= 0 keeps the CPU while its slice is
// protected (RUN_TO_PARITY); an ineligible one loses it to an eligible p at
// once (eevdf.go). The running task switches at its next preemption point:
// its return to user mode, or an interrupt's.
// kernel/sched/fair.c: check_preempt_wakeup_fair()
func (s *Sched) wakeupPreempt(i int, p *Task) {
	cur := s.rqCurr[i] // rq->curr: the task picked, from the pick on
	if cur == nil || cur == p || s.needResched[i] || cur.stopClass {
		return // nothing preempts the stop class
	}
	if s.cfsUpdateCurr(i) || s.pickEEVDF(i, s.cfsCurr(i), true) == p {
		s.resched(i)
	}
}

// NeedResched reports whether c's current thread must reschedule.
func (s *Sched) NeedResched(c *cpu.CPU) bool { return s.needResched[c.ID] }

// IrqExitToUser implements cpu.Hooks: irqentry_exit_to_user_mode().
func (s *Sched) IrqExitToUser(th *cpu.Thread) {
	if t := TaskOf(th); t != nil {
		s.exitToUserMode(t, false)
	}
}
