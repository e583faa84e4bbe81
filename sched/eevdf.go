package sched

import (
	"math/bits"
	"slices"

	"perfsim/cpu"
	"perfsim/sim"
)

// EEVDF as kernel/sched/fair.c runs it for the fair class (v6.6 and later,
// with v6.12's delayed dequeue and v6.17's slice protection): each task's
// sched_entity keeps a vruntime, a virtual deadline one request (the base
// slice) after it, and the lag it had when it left the run queue. Every
// task here is SCHED_NORMAL at nice 0 (weight NICE_0_LOAD), so virtual time
// runs at the speed of the task's CPU time and the weighted average V of a
// run queue is the plain mean of its entities' vruntimes.
//
// What the model takes from it: which task runs next (pick_eevdf(): the
// eligible entity, lag >= 0, with the earliest deadline, the running one
// kept while its slice is protected), whether a woken task preempts the
// running one (check_preempt_wakeup_fair()), when the tick reschedules
// (update_curr() -> update_deadline()), and a sleeper's lag: kept across
// the sleep when it is >= 0 (PLACE_LAG), else the entity stays queued,
// sched_delayed, until it is picked or woken, which clips its lag to zero
// (DELAY_DEQUEUE, DELAY_ZERO). This is what makes perf record, sharing a
// CPU with the workload it reads, lose the CPU for milliseconds now and
// then: its short runs use up the lag its waits earned, it goes to sleep
// ineligible, its next wake-up finds the workload protected, and it waits
// for the tick (cost/testdata/reader-wakeups.txt).

// eevdfEntity is a task's struct sched_entity: the EEVDF part.
type eevdfEntity struct {
	vruntime, deadline int64 // virtual ns
	vprot              int64 // set_protect_slice(): protected while vruntime < vprot
	vlag               int64 // V - vruntime when it left the queue
	exec               sim.Time
	rq                 int // the CPU whose cfs_rq holds it (on_rq), plus one; 0: none
	delayed            bool
	placed             bool
}

// BaseSlice is sysctl_sched_base_slice for ncpu CPUs: 0.7 ms scaled by
// 1 + ilog2(min(ncpu, 8)) (SCHED_TUNABLESCALING_LOG).
// kernel/sched/fair.c: get_update_sysctl_factor(), update_sysctl()
func BaseSlice(ncpu int) sim.Duration {
	n := max(1, min(ncpu, 8))
	return 700 * sim.Microsecond * sim.Duration(bits.Len(uint(n))) // 1 + ilog2(n)
}

// cfsAdd and cfsRemove keep s.cfs[i], the entities on CPU i's cfs_rq: the
// running task, the queued ones and the delayed sleepers.
func (s *Sched) cfsAdd(i int, t *Task) {
	s.accessRQ(i, cpu.MarkedWrite, "enqueue_entity")
	s.accessSE(t, "enqueue_entity")
	t.ee.rq = i + 1
	s.cfs[i] = append(s.cfs[i], t)
}

func (s *Sched) cfsRemove(t *Task) {
	if t.ee.rq == 0 {
		return
	}
	i := t.ee.rq - 1
	s.accessRQ(i, cpu.MarkedWrite, "dequeue_entity")
	s.accessSE(t, "dequeue_entity")
	// in place, in order (the picks take the first of equals); nothing
	// holds the list across a removal
	if j := slices.Index(s.cfs[i], t); j >= 0 {
		s.cfs[i] = slices.Delete(s.cfs[i], j, j+1) // clears the freed slot
	}
	t.ee.rq, t.ee.delayed = 0, false
}

// avgVruntime is V, the mean vruntime of CPU i's entities, rounded down
// (the left bias that keeps an entity at V eligible); an empty queue keeps
// the last one (zero_vruntime).
// kernel/sched/fair.c: avg_vruntime()
func (s *Sched) avgVruntime(i int) int64 {
	s.accessRQ(i, cpu.MarkedWrite, "avg_vruntime") // cfs_rq->zero_vruntime moved
	m := s.cfs[i]
	if len(m) == 0 {
		return s.cfsZero[i]
	}
	var sum int64
	for _, t := range m {
		sum += t.ee.vruntime - s.cfsZero[i]
	}
	n := int64(len(m))
	if sum < 0 {
		sum -= n - 1
	}
	s.cfsZero[i] += sum / n
	return s.cfsZero[i]
}

// eligible is entity_eligible(): lag >= 0, V >= vruntime, without the
// division's rounding.
// kernel/sched/fair.c: vruntime_eligible()
func (s *Sched) eligible(i int, t *Task) bool { return s.eligibleBy(i, s.vruntimeSum(i), t) }

// vruntimeSum is the sum of CPU i's queued tasks' vruntimes less its zero
// (the kernel keeps it, cfs_rq->sum_w_vruntime; the model sums on demand).
func (s *Sched) vruntimeSum(i int) int64 {
	var sum int64
	for _, x := range s.cfs[i] {
		sum += x.ee.vruntime - s.cfsZero[i]
	}
	return sum
}

// eligibleBy is eligible with the queue's vruntimeSum: a pick over a queue
// of n tasks sums it once, not n times.
func (s *Sched) eligibleBy(i int, sum int64, t *Task) bool {
	return sum >= (t.ee.vruntime-s.cfsZero[i])*int64(len(s.cfs[i]))
}

// entityLag is V - vruntime, clamped to a slice and a tick either way.
// kernel/sched/fair.c: entity_lag()
func (s *Sched) entityLag(i int, t *Task) int64 {
	limit := int64(s.Cfg.Slice + s.Cfg.Tick)
	return max(-limit, min(limit, s.avgVruntime(i)-t.ee.vruntime))
}

// cfsCurr returns cfs_rq->curr of CPU i: the task __schedule() picked
// (set_next_entity() made it current at the pick, before the switch), when
// it is on that CPU's cfs_rq.
func (s *Sched) cfsCurr(i int) *Task {
	if t := s.rqCurr[i]; t != nil && t.ee.rq == i+1 {
		return t
	}
	return nil
}

// cfsUpdateCurr charges the running task of CPU i its CPU time since the
// last update, renews its deadline when it has used its request, and says
// whether the CPU must reschedule: others queued and the request renewed
// or the protected slice used.
// kernel/sched/fair.c: update_curr() -> update_deadline()
func (s *Sched) cfsUpdateCurr(i int) bool {
	t := s.cfsCurr(i)
	if t == nil {
		return false
	}
	now := s.M.CPUs[i].Now()
	s.accessSE(t, "update_curr")
	if d := now - t.ee.exec; d > 0 {
		t.ee.vruntime += int64(d)
		t.ee.exec = now
	}
	renewed := false
	if t.ee.vruntime >= t.ee.deadline {
		t.ee.deadline = t.ee.vruntime + int64(s.Cfg.Slice)
		s.avgVruntime(i)
		renewed = true
	}
	if len(s.cfs[i]) <= 1 {
		return false
	}
	return renewed || t.ee.vprot <= t.ee.vruntime
}

// placeEntity puts t on CPU i's cfs_rq: at V less its lag, the lag scaled
// so that it stays what it was once t is counted in V (PLACE_LAG), with a
// deadline a request later (half a request for a new task:
// PLACE_DEADLINE_INITIAL).
// kernel/sched/fair.c: place_entity()
func (s *Sched) placeEntity(i int, t *Task) {
	s.cfsUpdateCurr(i)
	v := s.avgVruntime(i)
	lag := int64(0)
	if n := int64(len(s.cfs[i])); n > 0 && t.ee.vlag != 0 {
		lag = t.ee.vlag * (n + 1) / n
	}
	s.accessSE(t, "place_entity")
	t.ee.vruntime = v - lag
	slice := int64(s.Cfg.Slice)
	if !t.ee.placed {
		slice /= 2
		t.ee.placed = true
	}
	t.ee.deadline = t.ee.vruntime + slice
	s.cfsAdd(i, t)
}

// cfsEnqueue is enqueue_entity() for a task put on CPU i's run queue: one
// already on that cfs_rq (the running task preempted, a delayed sleeper
// requeued) stays as it is; one coming from another CPU leaves that one
// with its lag (migrate_task_rq_fair()) and is placed here.
func (s *Sched) cfsEnqueue(i int, t *Task) {
	if t.ee.rq == i+1 {
		return
	}
	if t.ee.rq != 0 {
		from := t.ee.rq - 1
		s.cfsUpdateCurr(from)
		t.ee.vlag = s.entityLag(from, t)
		s.cfsRemove(t)
	}
	s.placeEntity(i, t)
}

// cfsSleep takes the task leaving CPU i (going to sleep, or dead) off the
// cfs_rq: with lag >= 0 it leaves and keeps its lag; an ineligible one stays
// queued, sched_delayed, until it is picked or woken.
// kernel/sched/fair.c: dequeue_entity() (DELAY_DEQUEUE)
func (s *Sched) cfsSleep(i int, t *Task) {
	if t.ee.rq != i+1 || t.ee.delayed {
		return
	}
	s.cfsUpdateCurr(i)
	s.accessSE(t, "dequeue_entity")
	if !s.eligible(i, t) {
		t.ee.delayed = true
		return
	}
	t.ee.vlag = s.entityLag(i, t)
	s.cfsRemove(t)
}

// cfsFinishDelayed dequeues a delayed entity for good once pick_eevdf()
// chose it: its lag is clipped to at most zero (DELAY_ZERO).
// kernel/sched/fair.c: pick_next_entity() -> dequeue_entities(DEQUEUE_DELAYED)
func (s *Sched) cfsFinishDelayed(i int, t *Task) {
	s.accessSE(t, "finish_delayed_dequeue_entity")
	t.ee.vlag = min(s.entityLag(i, t), 0)
	s.cfsRemove(t)
}

// cfsRequeueDelayed wakes a delayed entity where it is: the lag it gained
// while delayed is dropped (DELAY_ZERO), which places it at V.
// kernel/sched/fair.c: requeue_delayed_entity()
func (s *Sched) cfsRequeueDelayed(t *Task) {
	i := t.ee.rq - 1
	s.cfsUpdateCurr(i)
	s.accessSE(t, "requeue_delayed_entity")
	t.ee.delayed = false
	if lag := s.entityLag(i, t); lag > 0 {
		s.cfsRemove(t)
		t.ee.vlag = 0
		placed := t.ee.placed
		s.placeEntity(i, t)
		t.ee.placed = placed
	}
}

// pickEEVDF is pick_eevdf() on CPU i with curr its running task (nil: none
// or not on the queue): the earliest deadline among the eligible entities,
// curr kept while protect and its slice is protected.
// kernel/sched/fair.c: pick_eevdf()
func (s *Sched) pickEEVDF(i int, curr *Task, protect bool) *Task {
	m := s.cfs[i]
	if len(m) == 0 {
		return nil
	}
	if len(m) == 1 {
		return m[0]
	}
	sum := s.vruntimeSum(i)
	if curr != nil && (curr.ee.rq != i+1 || !s.eligibleBy(i, sum, curr)) {
		curr = nil
	}
	if curr != nil && protect && curr.ee.vprot > curr.ee.vruntime {
		return curr
	}
	var best *Task
	for _, t := range m {
		if t == curr || !s.eligibleBy(i, sum, t) {
			continue
		}
		if best == nil || t.ee.deadline < best.ee.deadline {
			best = t
		}
	}
	if best == nil || (curr != nil && curr.ee.deadline < best.ee.deadline) {
		best = curr
	}
	if best == nil {
		best = m[0]
	}
	return best
}

// cfsPick chooses what CPU c runs next among the tasks queued on it (prev,
// when still runnable, is among them): pick_eevdf(), dequeueing the delayed
// sleepers it picks (they never run) and picking again. nil: nothing queued
// can run here (fall back to the queue order).
// kernel/sched/fair.c: pick_task_fair() -> pick_next_entity()
func (s *Sched) cfsPick(c *cpu.CPU, prev *Task) *Task {
	s.accessRQ(c.ID, cpu.MarkedRead, "pick_next_task_fair")
	i := c.ID
	if prev != nil && prev.ee.rq != i+1 {
		prev = nil
	}
	for {
		t := s.pickEEVDF(i, prev, true)
		if t == nil {
			return nil
		}
		if t.ee.delayed {
			s.cfsFinishDelayed(i, t)
			continue
		}
		s.accessOnCPU(c, t)
		for _, q := range s.rq[i] {
			if q == t && (t.CPU() == nil || t.CPU() == c) {
				return t
			}
		}
		return nil
	}
}

// setNextEntity starts t's run on CPU i: exec_start, and the slice it is
// protected for (all tasks share one slice: up to its deadline).
// kernel/sched/fair.c: set_next_entity() -> set_protect_slice()
func (s *Sched) setNextEntity(c *cpu.CPU, t *Task) {
	t.ee.exec = c.Now()
	t.ee.vprot = t.ee.deadline
}

// yieldFair is sched_yield() for the fair class: the running task forfeits
// the rest of its request when it is eligible (vruntime to its deadline, the
// deadline a request on), so the next pick goes to another task.
// kernel/sched/fair.c: yield_task_fair()
func (s *Sched) yieldFair(c *cpu.CPU, t *Task) {
	i := c.ID
	if t.ee.rq != i+1 || len(s.cfs[i]) <= 1 {
		return
	}
	s.cfsUpdateCurr(i)
	if s.eligible(i, t) {
		s.accessSE(t, "yield_task_fair")
		t.ee.vruntime = t.ee.deadline
		t.ee.deadline += int64(s.Cfg.Slice)
		s.avgVruntime(i)
	}
}
