package sched

import (
	"strconv"

	"perfsim/cpu"
	"perfsim/sim"
)

// The per-CPU stopper thread, migration/N: a kernel thread of the highest
// scheduling class (stop_sched_class) that runs the cpu_stop_works queued
// on its CPU. sched_setaffinity() of a running task and sched_exec() queue
// migration_cpu_stop() there and wait in D for it: the task switches out
// asleep (sched_switch prev_state=D, no preemption in PERF_RECORD_SWITCH),
// migration/N runs, sets the task's wake_cpu and completes the wait, and
// the wake-up moves the task (sched_migrate_task in migration/N's context).
// That is the order on this machine's kernel (PREEMPT_NONE, preempt=none
// of PREEMPT_DYNAMIC): affine_move_task()'s preempt_enable() does not
// switch to the stopper, the wait does. The thread is made with the CPU;
// it is no task of the scenario's (not in Sched.Tasks); perf -a synthesizes
// its COMM as it does every kernel thread's from /proc.
// kernel/stop_machine.c: cpu_stopper_thread(); kernel/sched/stop_task.c

// cpuStopper is a CPU's struct cpu_stopper: its thread and queued works.
type cpuStopper struct {
	t        *Task            // migration/N
	works    []func(*cpu.CPU) // stopper->works, run in order
	runnable bool             // woken and not yet picked: the stop class's queue
	// shouldPark is set by take_cpu_down() on its own CPU
	// (stop_machine_park()): the thread parks once its works are done,
	// and queues no work (stopper->enabled false) until the CPU comes
	// back (stop_machine_unpark()).
	shouldPark bool
}

// stopperKey is CPU N's struct cpu_stopper and its thread's run state
// ("stopper@cpuN"), written under stopper->lock by whoever queues a work
// and by the thread itself.
type stopperKey struct {
	s   *Sched
	cpu int
}

// FootprintExtent implements the write audit's extent: the works, the
// thread and whether the stop class has it queued.
func (k stopperKey) FootprintExtent() []any {
	st := &k.s.stoppers[k.cpu]
	return []any{&st.t, &st.works, &st.runnable}
}

// FootprintKey implements cpu.FootprintKeyer.
func (k stopperKey) FootprintKey() string { return "stopper@cpu" + strconv.Itoa(k.cpu) }

// StopperPID is the pid of migration/N as this machine's 6.18 boot gives
// it: migration/0 is 18, and each further CPU's kthreads come five at a
// time (cpuhp/N, migration/N, ksoftirqd/N, kworker/N:0, kworker/N:0H).
func StopperPID(n int) int {
	if n == 0 {
		return 18
	}
	return 16 + 5*n
}

// firstUserPID is the pid base of the scenario's tasks: 100, or past the
// last migration/N on a machine whose kthreads reach it.
func firstUserPID(ncpu int) int {
	last := StopperPID(ncpu - 1)
	if last < 100 {
		return 100
	}
	return (last/100 + 1) * 100
}

// Stopper returns CPU i's migration/N thread.
func (s *Sched) Stopper(i int) *Task { return s.stoppers[i].t }

// newStopper makes CPU i's migration/N, asleep in smpboot_thread_fn(): its
// thread's coroutine starts the first time it is switched to.
// kernel/smpboot.c: __smpboot_create_thread()
func (s *Sched) newStopper(i int) {
	st := &s.stoppers[i]
	pid := StopperPID(i)
	t := &Task{PID: pid, TID: pid, Comm: "migration/" + strconv.Itoa(i), Allowed: MaskOf(i), s: s, lastCPU: i,
		State: Sleeping, Kthread: true, stopClass: true, perCPU: true}
	t.fam.prio = stopPrio
	s.M.InitAuditedThread(&t.Thread, t.Comm, func(th *cpu.Thread) { s.cpuStopperThread(t) }) // footprint_stopper.go
	t.Owner = t
	st.t = t
}

// stopPrio is p->prio of a SCHED_FIFO 99 kthread (MAX_RT_PRIO-1 - 99), what
// sched_switch reports for migration/N.
const stopPrio = -1 // Prio() maps it to 0: fam.prio 0 means the default

// cpuStopQueueWork queues fn on CPU i's stopper and wakes it: the stop
// class preempts whatever runs there at its next preemption point.
// kernel/stop_machine.c: cpu_stop_queue_work() -> __cpu_stop_queue_work(), wake_up_q()
func (s *Sched) cpuStopQueueWork(c *cpu.CPU, i int, fn func(*cpu.CPU)) {
	s.accessStopperQueue(c, i)
	st := &s.stoppers[i]
	if st.shouldPark || st.t.parked {
		return // !stopper->enabled: nothing queued (the model's callers never aim at a dead CPU)
	}
	st.works = append(st.works, fn)
	if st.t.State != Sleeping {
		return // running, or woken already: it finds the work
	}
	s.wakeStopper(c, i)
}

// wakeStopper is try_to_wake_up() of CPU i's stopper from c: activate_task()
// on the stop class, sched_wakeup, wakeup_preempt(): the stop class is
// above every other, resched_curr().
// kernel/sched/core.c: try_to_wake_up(); kernel/sched/stop_task.c: enqueue_task_stop()
func (s *Sched) wakeStopper(c *cpu.CPU, i int) {
	st := &s.stoppers[i]
	t := st.t
	t.parked = false
	t.State = Runnable
	c.Release(&t.Thread) // waker -> wakee, for the data-race oracle
	st.runnable = true
	s.note(c, sim.KWake, t.Thread.Name, "", int64(i))
	for _, h := range s.TraceHooks {
		h.SchedWakeup(c, t, i, false)
	}
	s.resched(i)
}

// cpuStopperThread is migration/N's loop: run the queued works, then
// sleep (TASK_INTERRUPTIBLE) until more are queued.
// kernel/smpboot.c: smpboot_thread_fn(); kernel/stop_machine.c: cpu_stopper_thread()
func (s *Sched) cpuStopperThread(t *Task) {
	s.finishTaskSwitch(t.CPU()) // its first run: schedule_tail()
	for {
		c := t.CPU()
		st := &s.stoppers[c.ID]
		s.accessStopperRun(c, t)
		for len(st.works) > 0 {
			fn := st.works[0]
			st.works = st.works[1:]
			fn(c)
		}
		s.accessStopperSleep(c, t)
		if st.shouldPark {
			// kthread_should_park() -> kthread_parkme(): TASK_PARKED until
			// stop_machine_unpark() (the dead CPU's stopper)
			c.Unaudited("kthread_parkme")
			st.shouldPark = false
			t.parked = true
		}
		t.State = Sleeping // set_current_state(TASK_INTERRUPTIBLE); !thread_should_run()
		s.scheduleFrom(&t.Thread, true)
	}
}

// stopOneCPU is the caller's side of stop_one_cpu(migration_cpu_stop) for
// the running task t: queue the move on its CPU's stopper and wait in D for
// its completion; t runs on again on dest.
// kernel/sched/core.c: affine_move_task(), sched_exec(); kernel/stop_machine.c: stop_one_cpu()
//
// audited says that the caller annotates its code after the wait: the
// wait's own return is annotated here (accessStopDone).
func (s *Sched) stopOneCPU(t *Task, dest int, audited bool) {
	c := t.CPU()
	var done WaitQueue // struct completion's wait; complete_all() after the move
	finished := false
	s.cpuStopQueueWork(c, c.ID, func(sc *cpu.CPU) {
		s.migrationCPUStop(sc, t, dest)
		finished = true
		s.wakeUpAll(&done, true) // complete_all(&pending->done)
	})
	stopper := s.stoppers[c.ID].t
	for !finished {
		s.waitUninterruptible(t, &done, func() string { return "stop_one_cpu(migration_cpu_stop) on " + stopper.Comm },
			func() *Task { return stopper }, 0, audited) // wait_for_completion()
		if audited {
			s.accessStopDone(t)
		}
	}
}

// migrationCPUStop moves t to dest from its CPU's stopper: a queued t
// between run queues at once; an asleep one (the caller waiting for this
// very work) by setting its wake_cpu, so the wake-up that completes the
// wait places it there.
// kernel/sched/core.c: migration_cpu_stop()
func (s *Sched) migrationCPUStop(c *cpu.CPU, t *Task, dest int) {
	s.accessMigrationStop(c, t)
	if t.lastCPU != c.ID || t.State == Dead {
		return // task_rq(p) != rq: it moved meanwhile
	}
	if t.State == Runnable && t.CPU() == nil && s.dequeue(c.ID, t) {
		// __migrate_task() -> move_queued_task()
		if !s.CPUActive(dest) {
			c.Unaudited("select_fallback_rq") // footprint_switch.go
			dest = s.selectCPU(t, dest)       // the destination went down meanwhile
		}
		s.moveQueuedTask(c, t, dest)
		return
	}
	t.wakeCPU = dest + 1 // p->wake_cpu = arg->dest_cpu
}
