package sched

import (
	"fmt"
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
)

// tryToWakeUp makes a sleeping task runnable.
//
//   - p is still switching out on another CPU (p->on_cpu): with TTWU_QUEUE and
//     an empty run queue there, it goes on that CPU's wake list, whose IPI
//     activates it once the switch is done; otherwise it is queued now and
//     pickNext leaves it until it is off that CPU (smp_cond_load_acquire()).
//   - p is off every CPU: select_task_rq() picks its CPU (a move fires
//     sched_migrate_task), then ttwu_queue(): the wake list of a remote idle
//     CPU and an IPI, or activated here (sched_wakeup) with a resched.
//
// wf holds the wake flags beyond WF_TTWU (WF_SYNC).
// kernel/sched/core.c: try_to_wake_up()
func (s *Sched) tryToWakeUp(p *Task, wf int) { s.ttwu(p, wf, false) }

// ttwu is tryToWakeUp; audited says that the caller annotates its code
// after the wake-up up to its next step point (footprint_wake.go:
// ttwuReturn marks the return into any other caller when a fragment
// started inside).
// kernel/sched/core.c: try_to_wake_up()
func (s *Sched) ttwu(p *Task, wf int, audited bool) {
	var c *cpu.CPU
	if run := s.M.Eng.Running(); run != nil {
		c = s.M.CPUs[run.ID]
	}
	if p.State != Sleeping || p.parked {
		s.accessWakeState(c, p, cpu.MarkedRead)
		return // ttwu_state_match(): not sleeping (or already woken), or TASK_PARKED
	}
	s.accessWakeState(c, p, cpu.MarkedWrite)
	p.State = Runnable   // TASK_WAKING, then TASK_RUNNING
	c.Release(&p.Thread) // waker -> wakee, for the data-race oracle (cpu/race.go)
	delayed := p.ee.delayed
	if (delayed || p.ee.rq != 0 && p.CPU() == nil) && c != nil && s.M.FootprintListening() {
		c.Unaudited("ttwu_runnable") // a delayed entity requeued, or dequeued for good when its CPU went down: not annotated
	}
	if delayed && !s.isCPUAllowed(p, p.ee.rq-1) {
		// its CPU went down or left its mask while it slept: the kernel
		// moved it off with the queue (balance_push(), migration)
		s.cfsFinishDelayed(p.ee.rq-1, p)
		delayed = false
	}
	if delayed {
		s.cfsRequeueDelayed(p) // ttwu_runnable(): still on its cfs_rq
	}
	if oc := p.CPU(); oc != nil {
		if c == oc {
			// p == current, or p interrupted on its own CPU before it
			// blocked: ttwu_do_wakeup(); schedule() keeps it (ttwu_runnable()).
			return
		}
		s.accessQueueCond(c, oc.ID)
		if c != nil && s.ttwuQueueCond(c, p, oc.ID, true) {
			s.ttwuQueueWakelist(c, p, oc.ID)
			s.ttwuReturn(c, true, audited)
			return
		}
	}
	stepped := false
	var i int
	if delayed {
		i = p.ee.rq - 1 // on_rq: no select_task_rq()
	} else {
		s.accessSelectTaskRq(c, p)
		prev := p.lastCPU
		if p.wakeCPU > 0 {
			prev = p.wakeCPU - 1 // p->wake_cpu, set by migration_cpu_stop() (stopper.go)
		}
		i = s.selectTaskRq(p, prev, wfTTWU|wf)
	}
	p.wakeCPU = 0
	if i != p.lastCPU {
		s.accessSetTaskCPU(c, p)
		if c != nil {
			s.Migrations++
			s.note(c, sim.KMigrate, p.Thread.Name, "cpu"+strconv.Itoa(p.lastCPU)+"->cpu"+strconv.Itoa(i), 0)
		}
		s.setTaskCPU(c, p, i) // WF_MIGRATED
		if c != nil {
			// task_cpu(p) is the new CPU, p not on its run queue yet: a
			// task_function_call() aimed there finds p not running
			c.Step("try_to_wake_up:set_task_cpu")
			stepped = true
		}
	}
	if c != nil && p.CPU() == nil {
		s.accessQueueCond(c, i)
	}
	if c != nil && p.CPU() == nil && s.ttwuQueueCond(c, p, i, false) {
		s.ttwuQueueWakelist(c, p, i)
		s.ttwuReturn(c, true, audited)
		return
	}
	s.ttwuDoActivate(c, p, i)
	s.ttwuReturn(c, stepped, audited)
}

// ttwuQueueCond says whether the wake-up goes through cpu's wake list: not
// for the waker's own CPU nor a CPU p may not use; yes for a CPU with
// nothing running (the LLC is shared: the model's CPUs share one cache).
// onCPU is the p->on_cpu case, where p itself is not counted.
// kernel/sched/core.c: ttwu_queue_cond()
func (s *Sched) ttwuQueueCond(c *cpu.CPU, p *Task, target int, onCPU bool) bool {
	if s.Cfg.NoTTWUQueue || target == c.ID || !p.Allowed.Has(target) || !s.CPUActive(target) {
		return false
	}
	nr := len(s.rq[target])
	if !onCPU && TaskOf(s.M.CPUs[target].Curr()) != nil {
		nr++
	}
	return nr == 0
}

// ttwuQueueWakelist puts p on target's wake list and, when the list was
// empty, sends the CALL_FUNCTION_SINGLE IPI that runs sched_ttwu_pending()
// there. The step point is the window between the llist_add() and the IPI.
// kernel/sched/core.c: __ttwu_queue_wakelist() -> kernel/smp.c: __smp_call_single_queue()
func (s *Sched) ttwuQueueWakelist(c *cpu.CPU, p *Task, target int) {
	s.accessSetTaskCPU(c, p) // (the model's p->wake_cpu: the CPU it was queued for)
	s.accessWakeList(c, target, "__ttwu_queue_wakelist")
	p.fam.wakePending = true
	p.lastCPU = target
	first := len(s.wakeList[target]) == 0
	s.wakeList[target] = append(s.wakeList[target], p)
	c.Step("ttwu_queue_wakelist")
	if first {
		s.M.CPUs[target].RaiseIRQ(cpu.Interrupt{Name: "call_function_single", Fn: s.schedTTWUPending})
	}
}

// schedTTWUPending activates the tasks on this CPU's wake list: the IPI's
// handler. Its entry ("enter:call_function_single", declared by pmu) takes
// the list; each task's activation is annotated (footprint_wake.go).
// kernel/sched/core.c: sched_ttwu_pending()
func (s *Sched) schedTTWUPending(c *cpu.CPU) {
	s.accessWakeList(c, c.ID, "sched_ttwu_pending")
	l := s.wakeList[c.ID]
	s.wakeList[c.ID] = nil
	c.Step("sched_ttwu_pending")
	for _, p := range l {
		s.accessWakeState(c, p, cpu.MarkedRead)
		if s.M.FootprintListening() {
			c.AccessMarkedOnly(p, "p->__state", cpu.MarkedWrite, "sched_ttwu_pending") // kernel/sched/core.c: sched_ttwu_pending(): the entry taken off the list (the model's wake-pending flag, read with p->__state)
		}
		p.fam.wakePending = false
		if p.State == Dead {
			continue
		}
		s.ttwuDoActivate(c, p, c.ID)
	}
}

// ttwuDoActivate enqueues p on CPU i, fires sched_wakeup (on the CPU doing
// the activation) and lets an idle CPU (or p's old CPU, still switching p
// out) reschedule: activate_task(), ttwu_do_wakeup(), wakeup_preempt().
// kernel/sched/core.c: ttwu_do_activate()
func (s *Sched) ttwuDoActivate(c *cpu.CPU, p *Task, i int) {
	s.accessActivate(c, p, i)
	if c != nil {
		s.note(c, sim.KWake, p.Thread.Name, "", int64(i))
	}
	s.enqueueUpdateCurr(c, i, p)
	s.enqueue(i, p)
	if c != nil {
		for _, h := range s.TraceHooks {
			h.SchedWakeup(c, p, i, false)
		}
	}
	if TaskOf(s.M.CPUs[i].Curr()) == nil || p.CPU() != nil {
		s.resched(i)
	} else {
		s.wakeupPreempt(i, p)
	}
}

// traceSwitch is what __schedule() does before context_switch() that the
// tracepoints see: update_curr() for prev (its dequeue or put_prev_task()),
// then sched_switch with prev's state.
// kernel/sched/core.c: __schedule()
func (s *Sched) traceSwitch(c *cpu.CPU, prev, next *Task) {
	var state int64
	if prev != nil {
		s.updateCurr(c, prev)
		switch prev.State {
		case Sleeping:
			state = StateReportInterruptib
			if prev.fam.uninterruptible {
				state = StateReportUninterruptible
			}
			if prev.parked {
				state = StateReportParked
			}
		case Dead:
			state = prev.fam.exitState
		}
	}
	for _, h := range s.TraceHooks {
		h.SchedSwitch(c, false, prev, next, state)
	}
}

// wakeOne wakes the first waiter of q: an exclusive wait's wake_up(), with
// WF_SYNC in wf for a _sync wake-up.
func (s *Sched) wakeOne(q *WaitQueue, wf int) bool {
	if len(q.waiters) == 0 {
		return false
	}
	t := q.waiters[0]
	q.waiters = q.waiters[1:]
	s.ttwu(t, wf, true) // its callers, the pipe and futex bodies, are annotated (footprint_wait.go)
	return true
}

// PipeBuffers is the capacity of a pipe: PIPE_DEF_BUFFERS pages.
const PipeBuffers = 16 * 4096

// pipe is a pipe_inode_info: the bytes in it and its two wait queues.
type pipe struct {
	n      int
	rdWait WaitQueue
	wrWait WaitQueue
}

// futexQ is a futex hash bucket's queue for one futex word.
type futexQ struct {
	q WaitQueue
	// thread is the thread whose tid word this is, which pthread_join()
	// waits on (join.go); nil for a futex a scenario names.
	thread *Task
}

// waitObjects are the pipes and futexes the tasks of a machine share by name.
type waitObjects struct {
	pipes   map[string]*pipe
	futexes map[string]*futexQ
}

func (o *waitObjects) pipe(name string) *pipe {
	if o.pipes == nil {
		o.pipes = map[string]*pipe{}
	}
	p := o.pipes[name]
	if p == nil {
		p = &pipe{}
		o.pipes[name] = p
	}
	return p
}

func (o *waitObjects) futex(name string) *futexQ {
	if o.futexes == nil {
		o.futexes = map[string]*futexQ{}
	}
	f := o.futexes[name]
	if f == nil {
		f = &futexQ{}
		o.futexes[name] = f
	}
	return f
}

// PipeWrite and PipeRead are the program steps write(P, n) and read(P, n).
func PipeWrite(name string, n int) Op { return Op{Kind: OpPipe, Name: name, N: n} }
func PipeRead(name string, n int) Op  { return Op{Kind: OpPipe, Name: name, N: -n} }

// FutexWait and FutexWake are futex(FUTEX_WAIT) and futex(FUTEX_WAKE, n).
func FutexWait(name string) Op        { return Op{Kind: OpFutex, Name: name} }
func FutexWake(name string, n int) Op { return Op{Kind: OpFutex, Name: name, N: n} }

// pipeOp is write(2) (n > 0) or read(2) (n < 0) of |n| bytes on a pipe: a
// writer blocks while the pipe is full and wakes a reader when it was
// empty; a reader blocks while it is empty, takes what is there (up to |n|)
// and wakes a writer when it was full.
// fs/pipe.c: pipe_write(), pipe_read()
func (s *Sched) pipeOp(t *Task, name string, n int) {
	key := waitObjKey{s, "pipe", name}
	made := s.objs.pipes[name] == nil
	s.lookupWaitObj(t, key, made)
	p := s.objs.pipe(name)
	if n > 0 {
		s.SyscallAnnotated(t, "write", func(t *Task) { // footprint_wait.go
			left := n
			for left > 0 {
				s.accessWaitObj(t, key, "pipe_write") // fs/pipe.c: pipe_write(): __pipe_lock(pipe)
				if p.n == PipeBuffers {
					t.Step("pipe_write:wait")
					if !s.waitOn(t, &p.wrWait, key, "pipe_write") {
						if left == n { // "if (!ret) ret = -ERESTARTSYS": else what it wrote
							s.sysRestartsys(t)
						}
						return
					}
					continue
				}
				wasEmpty := p.n == 0
				k := min(left, PipeBuffers-p.n)
				p.n += k
				left -= k
				t.Step("pipe_write:copied")
				if wasEmpty {
					s.accessWaitObj(t, key, "pipe_write") // fs/pipe.c: pipe_write(): wake_up_interruptible_sync_poll(&pipe->rd_wait, ...): its waiters
					s.wakeOne(&p.rdWait, wfSync)          // wake_up_interruptible_sync_poll(&pipe->rd_wait)
				}
			}
		})
		return
	}
	s.SyscallAnnotated(t, "read", func(t *Task) { // footprint_wait.go
		s.accessWaitObj(t, key, "pipe_read") // fs/pipe.c: pipe_read(): __pipe_lock(pipe)
		for p.n == 0 {
			t.Step("pipe_read:wait")
			if !s.waitOn(t, &p.rdWait, key, "pipe_read") {
				s.sysRestartsys(t) // wait_event_interruptible_exclusive()
				return
			}
		}
		wasFull := p.n == PipeBuffers
		p.n -= min(-n, p.n)
		if wasFull {
			s.wakeOne(&p.wrWait, wfSync) // wake_up_interruptible_sync_poll(&pipe->wr_wait)
		}
	})
}

// futexOp is futex(FUTEX_WAIT) (n == 0: the word always holds the expected
// value, so the task sleeps until a wake) or futex(FUTEX_WAKE, n): wake up to
// n waiters in queue order. A wake with no waiter is lost, as the kernel's.
// kernel/futex/waitwake.c: futex_wait(), futex_wake()
func (s *Sched) futexOp(t *Task, name string, n int) {
	key, f := s.futexLookup(t, name)
	if n == 0 {
		s.futexWait(t, key, f, nil)
		return
	}
	s.SyscallAnnotated(t, "futex", func(t *Task) { s.futexWake(t, key, f, n) }) // footprint_wait.go
}

// futexLookup is the program's lookup of futex word name (footprint_wait.go).
func (s *Sched) futexLookup(t *Task, name string) (waitObjKey, *futexQ) {
	key := waitObjKey{s, "futex", name}
	s.lookupWaitObj(t, key, s.objs.futexes[name] == nil)
	return key, s.objs.futex(name)
}

// futexWait is futex(FUTEX_WAIT) on f: under the bucket's lock, -EAGAIN
// when changed says the word no longer holds the value the caller read
// (nil: it always does), else a sleep until a wake.
// kernel/futex/waitwake.c: futex_wait_setup(), futex_wait()
func (s *Sched) futexWait(t *Task, key waitObjKey, f *futexQ, changed func() bool) {
	s.SyscallAnnotated(t, "futex", func(t *Task) { // footprint_wait.go
		s.accessWaitObj(t, key, "futex") // kernel/futex/core.c: futex_q_lock(): spin_lock(&hb->lock)
		if changed != nil && changed() {
			return // -EAGAIN
		}
		t.Step("futex_wait:queue")
		if !s.waitOn(t, &f.q, key, "futex_wait") {
			s.sysRestartsys(t) // __futex_wait()'s -ERESTARTSYS, which futex_wait() with no timeout returns as it is
		}
	})
}

// futexWake wakes up to n of f's waiters in queue order: under the
// bucket's lock each is taken off it into a wake_q, then, the lock
// dropped, each is woken. A wake-up's step point (its wake list's IPI)
// thus never splits the bucket's update: the fragment after it only wakes.
// kernel/futex/waitwake.c: futex_wake(), futex_wake_mark(); kernel/sched/core.c: wake_up_q()
func (s *Sched) futexWake(t *Task, key waitObjKey, f *futexQ, n int) {
	s.accessWaitObj(t, key, "futex") // kernel/futex/core.c: futex_wake(): spin_lock(&hb->lock)
	k := min(n, len(f.q.waiters))
	wakeQ := append([]*Task(nil), f.q.waiters[:k]...)
	f.q.waiters = f.q.waiters[k:] // futex_wake_mark(): __futex_unqueue(), wake_q_add_safe()
	for _, w := range wakeQ {
		s.ttwu(w, 0, true) // wake_up_q(), the lock dropped; annotated (footprint_wake.go)
	}
}

// Blocked describes the sleeping tasks that nothing can wake: those waiting
// on a pipe, futex or wait4 (no timer of theirs is armed). The runner calls
// it when the machine has nothing left to do but tasks have not exited.
func (s *Sched) Blocked() []*Task {
	var out []*Task
	for _, t := range s.Tasks {
		if t.State == Sleeping {
			if ok, _ := t.timerArmed(); ok {
				continue
			}
			out = append(out, t)
		}
	}
	return out
}

func (t *Task) timerArmed() (bool, int64) {
	if t.wakeTimer == nil {
		return false, 0
	}
	ok, when := t.wakeTimer.Armed()
	return ok, int64(when)
}

// WaitingOn says what a sleeping task waits for: "pipe P", "futex F",
// "join NAME/TID: futex on its tid", "wait4", or "" when it is not on one
// of those.
func (s *Sched) WaitingOn(t *Task) string {
	if t.fam.hungOn != nil {
		return t.fam.hungOn() // in D on a kernel wait (hungtask.go)
	}
	has := func(q *WaitQueue) bool {
		for _, x := range q.waiters {
			if x == t {
				return true
			}
		}
		return false
	}
	for name, p := range s.objs.pipes {
		if has(&p.rdWait) || has(&p.wrWait) {
			return "pipe " + name
		}
	}
	for name, f := range s.objs.futexes {
		if has(&f.q) {
			if f.thread != nil {
				return fmt.Sprintf("join %s: futex on its tid", f.thread)
			}
			return "futex " + name
		}
	}
	if has(&t.Leader().fam.waitChldExit) {
		return "wait4"
	}
	return ""
}
