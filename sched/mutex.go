package sched

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// Mutex is a sleeping lock, struct mutex: a task that finds it held sleeps
// (TASK_UNINTERRUPTIBLE) until the owner unlocks it. Take it only from a
// task's kernel context (a syscall body), never from an interrupt.
// kernel/locking/mutex.c
type Mutex struct {
	Name    string // for oopses: "event->mmap_mutex"
	owner   *Task
	waiters WaitQueue
	// Contended counts the lock calls that had to sleep.
	Contended int
	classes   ClassCache    // lockdep's class of Name
	hb        cpu.SyncClock // the data-race oracle's key (cpu/race.go)
}

// MutexLock takes m, sleeping while another task holds it. Taking a mutex the
// task already holds is a self-deadlock, reported as an oops (lockdep's
// "possible recursive locking detected").
// kernel/locking/mutex.c: mutex_lock()
func (s *Sched) MutexLock(t *Task, m *Mutex) { s.MutexLockNested(t, m, 0) }

// MutexLockNested is MutexLock with a lockdep subclass: the second of two
// locks of one class taken in a fixed order (mutex_lock_double()) says
// SINGLE_DEPTH_NESTING (1) so lockdep does not call it recursion.
// kernel/locking/mutex.c: mutex_lock_nested()
func (s *Sched) MutexLockNested(t *Task, m *Mutex, subclass int) {
	if c := t.CPU(); c != nil && (c.IrqsDisabled() || c.Context() != cpu.CtxTask || c.PreemptCount() > 0) {
		sim.Crash("BUG: sleeping function called from invalid context: %s takes %s on cpu%d", t, m.Name, c.ID)
	}
	if m.owner == t {
		sim.Crash("possible recursive locking detected: %s already holds %s", t, m.Name)
	}
	s.Lockdep.AcquireCached(t.CPU(), t, &m.classes, LockClass{m.Name, subclass})
	for m.owner != nil {
		m.Contended++
		m.waiters.waiters = append(m.waiters.waiters, t)
		t.State = Sleeping
		s.schedule(&t.Thread)
		m.waiters.remove(t)
	}
	m.owner = t
	t.mutexes++
	t.CPU().Acquire(&m.hb) // the data-race oracle's lock edge (cpu/race.go)
}

// MutexTryLock takes m if it is free: mutex_trylock().
func (s *Sched) MutexTryLock(t *Task, m *Mutex) bool {
	if m.owner != nil {
		return false
	}
	m.owner = t
	t.mutexes++
	t.CPU().Acquire(&m.hb)
	s.Lockdep.AcquireTryCached(t.CPU(), t, &m.classes, LockClass{Name: m.Name})
	return true
}

// MutexUnlock releases m and wakes its waiters, who race for it again (the
// model does no handoff). Unlocking a mutex t does not hold is an oops.
// kernel/locking/mutex.c: mutex_unlock()
func (s *Sched) MutexUnlock(t *Task, m *Mutex) {
	if m.owner != t {
		sim.Crash("DEBUG_LOCKS_WARN_ON(__owner_task(owner) != current): %s unlocks %s held by %v", t, m.Name, m.owner)
	}
	t.CPU().Release(&m.hb)
	m.owner = nil
	t.mutexes--
	s.Lockdep.ReleaseCached(t.CPU(), t, &m.classes, m.Name)
	s.WakeUpAll(&m.waiters)
}

// Owner returns the task holding m, or nil.
func (m *Mutex) Owner() *Task { return m.owner }

// remove drops t from the queue if it is there.
func (q *WaitQueue) remove(t *Task) {
	for i, w := range q.waiters {
		if w == t {
			q.waiters = append(q.waiters[:i:i], q.waiters[i+1:]...)
			return
		}
	}
}
