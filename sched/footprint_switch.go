package sched

import (
	"strconv"

	"perfsim/cpu"
)

// The footprint of the context switch from its step point on, declared
// complete (cpu.DeclareComplete) as "context_switch": in the task switched
// away from, its time and the placement state it leaves (the CPU it ran on,
// when it stopped, that it ran), up to the switch (or, for a dead task, its
// last: cpu.Thread.Exit annotates on_cpu as SwitchTo does); then, in the thread switched to (whose fragment
// started at its own context_switch step point), finish_task_switch():
// perf's sched-in hook (a task's steps at perf_event_task_sched_in first;
// the idle thread's reads nr_switch_events, perf_event_switch() marked),
// balance_push()
// (footprint_balance_push.go), the next task's sched_entity, the tick,
// and the return from schedule() into its caller (marked but for one
// whose code is annotated: exit_to_user_mode_loop's, footprint_entry.go;
// nanosleep's and a pipe's or futex's wait, footprint_syscalls.go and
// footprint_wait.go).
// The write audit (explore's TestWriteAuditEntryExit) checks its writes.
func init() {
	cpu.DeclareComplete("context_switch")
}

// accessSwitch annotates what the context switch writes of the tasks
// switched from and to, which other CPUs' wakeups read (select_task_rq(),
// task_hot(), wake_affine()): prev's last CPU and the end of its run,
// next's "has run".
func (s *Sched) accessSwitch(c *cpu.CPU, pt, nt *Task) {
	if !s.M.FootprintListening() {
		return
	}
	if pt != nil {
		c.AccessMarkedOnly(pt, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "context_switch") // kernel/sched/core.c: __schedule() -> put_prev_task(): prev's last run and CPU, as placement reads them
	}
	if nt != nil {
		c.AccessMarkedOnly(nt, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "context_switch") // kernel/sched/core.c: __schedule() -> set_next_task(): next has run
	}
}

// accessFinishSwitch annotates finish_task_switch() in the thread switched
// to, after perf's sched-in hook: the migration pending on the task
// switched away from (set by sched_setaffinity() or a forced migration),
// the balance callback (balance_push() while the CPU goes down,
// footprint_balance_push.go), and the next
// task's sched_entity (se->exec_start, the protected slice), which another
// CPU's wakeup preemption check reads.
func (s *Sched) accessFinishSwitch(c *cpu.CPU, pt, nt *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(rqKey{s, c.ID}, "rq->balance_callback", cpu.MarkedRead, "finish_task_switch") // kernel/sched/core.c: finish_task_switch() -> finish_lock_switch() -> __balance_callbacks(rq)
	if pt != nil {
		c.AccessMarkedOnly(pt, "p->migration_pending", cpu.MarkedRead, "finish_task_switch") // kernel/sched/core.c: finish_task_switch(): a move_queued_task() waits for prev->on_cpu = 0
	}
	if nt != nil {
		c.AccessMarkedOnly(nt, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "set_next_entity") // kernel/sched/fair.c: set_next_entity(): se->exec_start, se->vprot
	}
}

// returnFromSchedule marks the return from schedule() into a caller whose
// code after it nobody annotated (all but exit_to_user_mode_loop).
func (s *Sched) returnFromSchedule(prev *cpu.Thread, audited bool) {
	if !audited {
		prev.CPU().Unaudited("schedule()'s caller")
	}
}

// Every thread's first fragment ("start:NAME") is declared complete: the
// threads the scheduler makes are audited (cpu.Machine.InitAuditedThread),
// any other (a test's) marks its body unaudited (cpu.Machine.InitThread).
// A task's runs schedule_tail() (finish_task_switch(), above) up to perf's
// sched-in step point; the idle thread's runs do_idle() (accessIdle) up to
// __schedule()'s step point, idle balancing marked.
func init() {
	cpu.DeclareComplete("start:")
}

// accessIdle annotates what the idle loop reads each round: whether the
// CPU must reschedule and whether its run queue holds a task, which other
// CPUs' wakeups set (resched(), enqueue()).
func (s *Sched) accessIdle(c *cpu.CPU) {
	if !s.M.FootprintListening() {
		return // (rqKey would be boxed, an allocation, before AccessMarkedOnly looked)
	}
	c.AccessMarkedOnly(c, "TIF_NEED_RESCHED", cpu.MarkedRead, "do_idle")                   // kernel/sched/idle.c: do_idle(): while (!need_resched())
	c.AccessMarkedOnly(rqKey{s, c.ID}, "rq->nr_running", cpu.MarkedRead, "pick_next_task") // kernel/sched/idle.c: do_idle() -> schedule_idle(): the run queue's tasks
}

// accessRQ annotates a write of CPU i's run queue (its tasks), by the code
// running on the CPU that runs now (a wakeup's enqueue on another CPU's).
func (s *Sched) accessRQ(i int, op cpu.AccessOp, fn string) {
	if !s.M.FootprintListening() {
		return
	}
	if c := s.runningCPU(); c != nil {
		c.AccessMarkedOnly(rqKey{s, i}, "rq->nr_running", op, fn) // kernel/sched/core.c: enqueue_task()/dequeue_task(): the run queue's tasks and nr_running
	}
}

// rqKey is CPU N's struct rq: "rq@cpuN", the model's per-CPU run-queue
// state (its tasks, its cfs_rq, rq->curr, TIF_NEED_RESCHED of its curr).
type rqKey struct {
	s   *Sched
	cpu int
}

// FootprintExtent is where the model keeps what the key names: a write
// annotated on the key covers these (explore's write audit).
func (k rqKey) FootprintExtent() []any {
	s, i := k.s, k.cpu
	return []any{&s.rq[i], &s.cfs[i], &s.cfsZero[i], &s.needResched[i], &s.rqCurr[i], &s.wakeList[i], &s.idleWakee[i]}
}

// FootprintKey implements cpu.FootprintKeyer.
func (k rqKey) FootprintKey() string {
	if k.cpu >= 0 && k.cpu < len(rqKeys) {
		return rqKeys[k.cpu]
	}
	return "rq@cpu" + strconv.Itoa(k.cpu)
}

// rqKeys are the keys of the first CPUs' run queues, made once: the
// walks ask for a key at every access.
var rqKeys = func() (keys [256]string) {
	for i := range keys {
		keys[i] = "rq@cpu" + strconv.Itoa(i)
	}
	return keys
}()

// The fragment of __schedule() from its step point (irqs off, the rq
// locked) up to perf's sched-out step point, declared complete: the run
// queue's state (rqKey: its tasks, cfs_rq, rq->curr, need_resched) read and
// written, the sched_entity of each task it moves (accessSE), p->on_rq and
// p->on_cpu of the tasks it looks at, update_curr() and the
// sched_stat_runtime and sched_switch tracepoints (their registration and
// this CPU's list read; perf_tp_event() marked when one fires), perf's
// context-switch software event (its list read, the event marked), and
// schedule()'s return when prev runs on (marked but for an audited
// caller). sched_balance_newidle()'s look at other CPUs' run queues up to
// its step point is annotated (accessNewidle, accessCanMigrate);
// balance_push() is annotated (footprint_balance_push.go); the explorer's
// idle balance (sched-balance=choice) is marked.
func init() {
	cpu.DeclareComplete("__schedule:irqs-off")
}

// accessSE annotates a write of t's sched_entity (its vruntime, deadline,
// lag, exec_start, the cfs_rq it is on), under its run queue's lock: other
// CPUs' wakeups read it (wakeup preemption, placement).
func (s *Sched) accessSE(t *Task, fn string) {
	if s.M.FootprintListening() {
		if c := s.runningCPU(); c != nil {
			c.AccessMarkedOnly(t, "p->se", cpu.MarkedWrite, fn) // kernel/sched/fair.c: the sched_entity's fields, under rq->lock
		}
	}
}

// accessOnRQ annotates p->on_rq (the model looks for the task on the run
// queues): read by __schedule() for prev, written by enqueue and dequeue.
func (s *Sched) accessOnRQ(t *Task, op cpu.AccessOp, fn string) {
	if s.M.FootprintListening() {
		if c := s.runningCPU(); c != nil {
			c.AccessMarkedOnly(t, "p->on_rq", op, fn) // kernel/sched/core.c: task_on_rq_queued(p): READ_ONCE(p->on_rq)
		}
	}
}

// accessOnCPU annotates the pick's read of p->on_cpu (whether t still runs
// on another CPU), which a context switch writes (cpu.Thread.SwitchTo).
func (s *Sched) accessOnCPU(c *cpu.CPU, t *Task) {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(&t.Thread, "p->on_cpu", cpu.MarkedRead, "pick_next_task") // kernel/sched/core.c: task_on_cpu(rq, p): p->on_cpu
	}
}

// runningCPU is the CPU whose code runs now (nil before the run).
func (s *Sched) runningCPU() *cpu.CPU { return s.M.RunningCPU() }

// accessState annotates __schedule()'s read of prev's state (and of the
// model's wake-pending flag that goes with it), which a wakeup on another
// CPU writes (try_to_wake_up()).
func (s *Sched) accessState(c *cpu.CPU, t *Task) {
	if s.M.FootprintListening() {
		c.AccessMarkedOnly(t, "p->__state", cpu.MarkedRead, "__schedule") // kernel/sched/core.c: __schedule(): prev_state = READ_ONCE(prev->__state)
	}
}

// accessNewidle annotates what sched_balance_newidle() reads before it
// drops this CPU's run-queue lock (its step point, where the fragment
// ends): this run queue's pending wakeups, rd->overloaded (the model
// derives it from every active run queue's nr_running, which enqueues and
// dequeues on those CPUs write) and, in find_busiest_queue(), each run
// queue's nr_running again, and whether each CPU is active (the domain's
// span: cpu_active_mask, which the hotplug code writes with balance_push_set()
// and annotates on the run queue's balance_callback, as pickNext reads it).
// kernel/sched/fair.c: sched_balance_newidle(), sched_balance_find_src_rq()
func (s *Sched) accessNewidle(c *cpu.CPU) {
	if !s.M.FootprintListening() {
		return
	}
	for i := range s.M.CPUs {
		k := rqKey{s, i}
		c.AccessMarkedOnly(k, "rq->nr_running", cpu.MarkedRead, "sched_balance_newidle")       // kernel/sched/fair.c: sched_balance_newidle(): READ_ONCE(this_rq->rd->overloaded), this_rq->ttwu_pending; find_busiest_queue(): rq->nr_running
		c.AccessMarkedOnly(k, "rq->balance_callback", cpu.MarkedRead, "sched_balance_newidle") // kernel/sched/fair.c: sched_balance_newidle(): cpu_active(this_cpu), the LLC domain's span of active CPUs
	}
}

// accessCanMigrate annotates can_migrate_task()'s reads of a task queued
// on the busiest run queue: whether it is still on its CPU, a migration
// pending on it, and task_hot()'s look at when it last ran. Its cpus_mask
// is written only by sched_setaffinity() and the forces, which are marked.
// kernel/sched/fair.c: can_migrate_task(), task_hot()
func (s *Sched) accessCanMigrate(c *cpu.CPU, t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c.AccessMarkedOnly(&t.Thread, "p->on_cpu", cpu.MarkedRead, "can_migrate_task")    // kernel/sched/fair.c: can_migrate_task(): task_on_cpu(env->src_rq, p)
	c.AccessMarkedOnly(t, "p->migration_pending", cpu.MarkedRead, "can_migrate_task") // kernel/sched/fair.c: can_migrate_task(): is_migration_disabled(p), the affinity change in flight
	c.AccessMarkedOnly(t, "p->se (exec_start, wake_cpu)", cpu.MarkedRead, "task_hot") // kernel/sched/fair.c: task_hot(): rq_clock_task(env->src_rq) - p->se.exec_start
}
