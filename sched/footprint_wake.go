package sched

import (
	"strconv"

	"perfsim/cpu"
)

// The footprint of try_to_wake_up() (wake.go), and the fragments declared
// complete with it:
//
//   - "ttwu_queue_wakelist": the window between the llist_add() on the
//     target's wake list and the IPI, up to the return into the waker's
//     code (its own step point next, or, for a caller whose code after the
//     wake-up nobody annotated, a mark there: ttwuReturn);
//   - "try_to_wake_up:set_task_cpu": task_cpu(p) moved, up to the wake
//     list's step point or the activation and the same return;
//   - "sched_ttwu_pending": on the target CPU, the activation of each task
//     the wake list held, up to the IPI handler's return. The handler's
//     entry ("enter:call_function_single", declared by pmu's
//     footprint_funccall.go) takes the list (llist_del_all) up to this
//     step point.
//
// What a wake-up reads and writes (ttwu): p->__state (and the model's
// wake-pending flag that goes with it), p->on_rq and the sched_entity
// (p->se: a delayed entity still queued), p->on_cpu; then, in
// ttwu_queue_cond() and select_task_rq(), each CPU's run queue (its tasks,
// rq->curr and its wake list: rq->nr_running, as __schedule() and
// sched_balance_newidle() annotate them) and whether it is active
// (rq->balance_callback, as balance_push_set() writes it), the task
// running on a CPU (its p->on_cpu: the model asks the CPU, which only a
// switch changes, and a switch writes both tasks' on_cpu), the waker's
// and p's wakee state (record_wakee(), wake_wide()) and p's
// recent_used_cpu; task_cpu(p) (p->se (exec_start, wake_cpu)); the wake
// list (wakeListKey, and rq->ttwu_pending, read with the run queue); the
// enqueue (annotated in enqueue(), cfsEnqueue() and eevdf.go, but for
// the reads of the other entities of the cfs_rq: accessCFS); the
// resched (resched(): the target's TIF_NEED_RESCHED, the IPI RaiseIRQ
// posts) and wakeup_preempt()'s reads; the sched_wakeup and
// sched_migrate_task tracepoints (pmu's fireSched annotates itself; the
// __perf_task(p) look at p's context is annotated here).
//
// Marked where they begin (cpu.CPU.Unaudited): a delayed entity's
// requeue (ttwu_runnable()) or its dequeue when its CPU went down, a
// placement by a knob's old path (sched-balance=on/first-cpu:
// select_task_rq() by the Chooser) and select_fallback_rq().
func init() {
	cpu.DeclareComplete("ttwu_queue_wakelist", "try_to_wake_up:set_task_cpu", "sched_ttwu_pending")
}

// wakeListKey is CPU N's wake list (rq->wake_list, the call_single_queue
// entries of its woken tasks): "wake_list@cpuN".
type wakeListKey struct {
	s   *Sched
	cpu int
}

// FootprintKey implements cpu.FootprintKeyer.
func (k wakeListKey) FootprintKey() string { return "wake_list@cpu" + strconv.Itoa(k.cpu) }

// FootprintExtent is where the model keeps it (explore's write audit).
func (k wakeListKey) FootprintExtent() []any { return []any{&k.s.wakeList[k.cpu]} }

// accessWakeList annotates an llist_add() (the waker) or llist_del_all()
// (the target's IPI) on CPU i's wake list, and rq->ttwu_pending with it,
// which idle_cpu() and sched_balance_newidle() read with the run queue's
// tasks (the model counts the wake list in rq->nr_running's key).
func (s *Sched) accessWakeList(c *cpu.CPU, i int, fn string) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	c.AccessMarkedOnly(wakeListKey{s, i}, "rq->wake_list", cpu.MarkedWrite, fn) // kernel/smp.c: __smp_call_single_queue(): llist_add(); __flush_smp_call_function_queue(): llist_del_all(): atomic read-modify-writes
	c.AccessMarkedOnly(rqKey{s, i}, "rq->nr_running", cpu.MarkedWrite, fn)      // kernel/sched/core.c: __ttwu_queue_wakelist(): WRITE_ONCE(rq->ttwu_pending, 1); sched_ttwu_pending(): WRITE_ONCE(rq->ttwu_pending, 0)
}

// accessWakeState annotates try_to_wake_up()'s look at p: p->__state read
// (ttwu_state_match()) and, when op is a write, TASK_WAKING written; then
// p->on_rq with the sched_entity (a delayed entity still queued: the
// model's se.rq and sched_delayed) and p->on_cpu.
func (s *Sched) accessWakeState(c *cpu.CPU, p *Task, op cpu.AccessOp) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	c.AccessMarkedOnly(p, "p->__state", op, "try_to_wake_up") // kernel/sched/core.c: try_to_wake_up(): ttwu_state_match(p, state); WRITE_ONCE(p->__state, TASK_WAKING)
	if op == cpu.MarkedRead {
		return
	}
	c.AccessMarkedOnly(p, "p->on_rq", cpu.MarkedRead, "try_to_wake_up")          // kernel/sched/core.c: try_to_wake_up(): if (READ_ONCE(p->on_rq) && ttwu_runnable(p, wake_flags))
	c.AccessMarkedOnly(p, "p->se", cpu.MarkedRead, "try_to_wake_up")             // kernel/sched/core.c: ttwu_runnable() -> enqueue_task(ENQUEUE_DELAYED): se->sched_delayed, the cfs_rq it is on
	c.AccessMarkedOnly(&p.Thread, "p->on_cpu", cpu.MarkedRead, "try_to_wake_up") // kernel/sched/core.c: try_to_wake_up(): if (smp_load_acquire(&p->on_cpu) && ttwu_queue_wakelist(...))
}

// accessCurrOf annotates a look at the task running on CPU i (rq->curr as
// the model's CPU holds it): its p->on_cpu, which the switch that changes
// it writes, for the task switched from and the one switched to.
func (s *Sched) accessCurrOf(c *cpu.CPU, i int, fn string) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	if th := s.M.CPUs[i].Curr(); th != nil {
		c.AccessMarkedOnly(th, "p->on_cpu", cpu.MarkedRead, fn) // kernel/sched/core.c: cpu_rq(cpu)->curr (the model: the thread CPU i runs)
	}
}

// accessQueueCond annotates ttwu_queue_cond()'s look at target: whether it
// is active, its run queue's tasks (nr_running), and what runs there.
func (s *Sched) accessQueueCond(c *cpu.CPU, target int) {
	if !s.M.FootprintListening() || c == nil || s.Cfg.NoTTWUQueue || target == c.ID {
		return
	}
	k := rqKey{s, target}
	c.AccessMarkedOnly(k, "rq->balance_callback", cpu.MarkedRead, "ttwu_queue_cond") // kernel/sched/core.c: ttwu_queue_cond(): if (!cpu_active(cpu)) return false
	c.AccessMarkedOnly(k, "rq->nr_running", cpu.MarkedRead, "ttwu_queue_cond")       // kernel/sched/core.c: ttwu_queue_cond(): if (!cpu_rq(cpu)->nr_running) return true
	s.accessCurrOf(c, target, "ttwu_queue_cond")
}

// accessSelectTaskRq annotates select_task_rq_fair() at a wake-up, as a
// superset of the CPUs the model looks at: every CPU's run queue
// (available_idle_cpu(), cpu_load(): rq->curr, nr_running, ttwu_pending)
// and whether it is active (the LLC's span), the task running on each;
// current's wakee state written (record_wakee()) and p's read
// (wake_wide()); p's recent_used_cpu (select_idle_sibling()).
func (s *Sched) accessSelectTaskRq(c *cpu.CPU, p *Task) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	for i := range s.M.CPUs {
		k := rqKey{s, i}
		c.AccessMarkedOnly(k, "rq->nr_running", cpu.MarkedRead, "select_task_rq_fair")       // kernel/sched/core.c: available_idle_cpu() -> idle_cpu(): rq->curr, rq->nr_running, rq->ttwu_pending
		c.AccessMarkedOnly(k, "rq->balance_callback", cpu.MarkedRead, "select_task_rq_fair") // kernel/sched/fair.c: select_idle_cpu(): the LLC's span of active CPUs; is_cpu_allowed()
		s.accessCurrOf(c, i, "select_task_rq_fair")
	}
	if cur := s.wakerTask(c.ID); cur != nil {
		c.AccessMarkedOnly(cur, "p->__state", cpu.MarkedRead, "select_task_rq_fair") // kernel/sched/fair.c: select_task_rq_fair(): sync && !(current->flags & PF_EXITING)
		c.AccessMarkedOnly(cur, "p->wakee_flips", cpu.MarkedWrite, "record_wakee")   // kernel/sched/fair.c: record_wakee(): current->wakee_flips, last_wakee
	} else {
		c.AccessMarkedOnly(rqKey{s, c.ID}, "rq->idle->wakee_flips", cpu.MarkedWrite, "record_wakee") // kernel/sched/fair.c: record_wakee(): the idle task's (an interrupt's wake-up)
	}
	c.AccessMarkedOnly(p, "p->wakee_flips", cpu.MarkedRead, "wake_wide")                    // kernel/sched/fair.c: wake_wide(): p->wakee_flips
	c.AccessMarkedOnly(p, "p->recent_used_cpu", cpu.MarkedWrite, "select_idle_sibling")     // kernel/sched/fair.c: select_idle_sibling(): p->recent_used_cpu = prev
	c.AccessMarkedOnly(p, "p->se (exec_start, wake_cpu)", cpu.MarkedRead, "select_task_rq") // kernel/sched/core.c: try_to_wake_up(): select_task_rq(p, p->wake_cpu, ...)
}

// accessCFS annotates the reads of the entities on CPU i's cfs_rq that
// place_entity(), avg_vruntime(), update_curr() and pick_eevdf() make
// (their vruntime, deadline, slice protection), under its run queue's
// lock; the writes are annotated where they are made (accessSE).
func (s *Sched) accessCFS(c *cpu.CPU, i int, fn string) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	c.AccessMarkedOnly(rqKey{s, i}, "rq->nr_running", cpu.MarkedRead, fn) // kernel/sched/fair.c: the cfs_rq's tree and sums, rq->curr
	for _, t := range s.cfs[i] {
		c.AccessMarkedOnly(t, "p->se", cpu.MarkedRead, fn) // kernel/sched/fair.c: avg_vruntime(), entity_eligible(), pick_eevdf(): each queued entity
	}
}

// accessActivate annotates what ttwu_do_activate() on CPU i reads beyond
// the enqueue's own annotations: the cfs_rq's entities (accessCFS), the
// task running there (enqueue_entity()'s update_curr(), the resched
// choice), p->on_cpu, TIF_NEED_RESCHED of that CPU (wakeup_preempt()),
// and, with tracepoint hooks, the look at p's perf context that
// sched_wakeup's __perf_task(p) makes.
func (s *Sched) accessActivate(c *cpu.CPU, p *Task, i int) {
	if !s.M.FootprintListening() || c == nil {
		return
	}
	s.accessCFS(c, i, "ttwu_do_activate")
	if from := p.ee.rq - 1; from >= 0 && from != i {
		s.accessCFS(c, from, "migrate_task_rq_fair") // p still on its old CPU's cfs_rq (still switching out there): its lag taken there (cfsEnqueue)
	}
	s.accessCurrOf(c, i, "ttwu_do_activate")
	c.AccessMarkedOnly(&p.Thread, "p->on_cpu", cpu.MarkedRead, "ttwu_do_activate")                   // kernel/sched/core.c: sched_ttwu_pending(): WARN_ON_ONCE(p->on_cpu) (the model: resched of p's old CPU)
	c.AccessMarkedOnly(s.M.CPUs[i], "TIF_NEED_RESCHED", cpu.MarkedRead, "check_preempt_wakeup_fair") // kernel/sched/fair.c: check_preempt_wakeup_fair(): if (test_tsk_need_resched(rq->curr)) return
	c.AccessMarkedOnly(p, "p->__state", cpu.MarkedWrite, "ttwu_do_wakeup")                           // kernel/sched/core.c: ttwu_do_wakeup(): WRITE_ONCE(p->__state, TASK_RUNNING)
	if len(s.TraceHooks) > 0 {
		c.AccessMarkedOnly(p, "task->perf_event_ctxp", cpu.MarkedRead, "perf_tp_event") // kernel/events/core.c: perf_tp_event(): __perf_task(p) -> perf_tp_event_target_task(): task->perf_event_ctxp
	}
}

// accessSetTaskCPU annotates set_task_cpu()'s write of task_cpu(p) (and
// p->wake_cpu), which placement and remote_function() read; the
// sched_migrate_task tracepoint's hook annotates itself.
func (s *Sched) accessSetTaskCPU(c *cpu.CPU, p *Task) {
	if s.M.FootprintListening() && c != nil {
		c.AccessMarkedOnly(p, "p->se (exec_start, wake_cpu)", cpu.MarkedWrite, "set_task_cpu") // kernel/sched/core.c: set_task_cpu() -> __set_task_cpu(): WRITE_ONCE(task_thread_info(p)->cpu, cpu); p->wake_cpu = cpu
	}
}

// ttwuReturn marks the return from a try_to_wake_up() that passed a step
// point into a caller whose code after it nobody annotated: the fragment
// that started in it goes on there.
func (s *Sched) ttwuReturn(c *cpu.CPU, stepped, audited bool) {
	if stepped && !audited && c != nil && s.M.FootprintListening() {
		c.Unaudited("try_to_wake_up's caller")
	}
}
