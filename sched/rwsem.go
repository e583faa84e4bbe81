package sched

import (
	"slices"

	"perfsim/cpu"
	"perfsim/sim"
)

// RWSem is a sleeping reader/writer lock, struct rw_semaphore (mm->mmap_lock
// is one): any number of readers or one writer. A task that cannot have it
// sleeps (TASK_UNINTERRUPTIBLE) until a release wakes it; a reader that
// arrives while a writer waits queues behind the writer, so readers cannot
// starve writers (rwsem_down_read_slowpath(): a waiter in the queue makes
// the fast path fail). Like Mutex, the model does no handoff: the woken
// tasks race for the lock again. Take it only from a task's kernel context.
// kernel/locking/rwsem.c
type RWSem struct {
	Name    string // for oopses: "mm->mmap_lock"
	writer  *Task
	readers []*Task // the tasks holding it for read (lockdep's view)
	waiters WaitQueue
	// writersWaiting counts the writers asleep on it.
	writersWaiting int
	// Contended counts the lock calls that had to sleep.
	Contended int
	classes   ClassCache    // lockdep's class of Name
	hb        cpu.SyncClock // the data-race oracle's key (cpu/race.go)
}

// DownWrite takes r for writing, sleeping while a writer or any reader holds
// it. Taking it again, for read or write, while holding it is a self-deadlock,
// reported as an oops (lockdep's "possible recursive locking detected").
// kernel/locking/rwsem.c: down_write()
func (s *Sched) DownWrite(t *Task, r *RWSem) {
	s.rwsemMayTake(t, r)
	for r.writer != nil || len(r.readers) > 0 {
		r.Contended++
		r.writersWaiting++
		r.waiters.waiters = append(r.waiters.waiters, t)
		t.State = Sleeping
		s.schedule(&t.Thread)
		r.waiters.remove(t)
		r.writersWaiting--
	}
	r.writer = t
	t.mutexes++
	t.CPU().Acquire(&r.hb) // the data-race oracle's lock edge (cpu/race.go)
}

// DownRead takes r for reading, sleeping while a writer holds it or waits
// for it.
// kernel/locking/rwsem.c: down_read()
func (s *Sched) DownRead(t *Task, r *RWSem) {
	s.rwsemMayTake(t, r)
	for r.writer != nil || r.writersWaiting > 0 {
		r.Contended++
		r.waiters.waiters = append(r.waiters.waiters, t)
		t.State = Sleeping
		s.schedule(&t.Thread)
		r.waiters.remove(t)
	}
	r.readers = append(r.readers, t)
	t.mutexes++
	t.CPU().Acquire(&r.hb)
}

// UpWrite releases r held for writing and wakes its waiters. Releasing a lock
// t does not hold for writing is an oops.
// kernel/locking/rwsem.c: up_write()
func (s *Sched) UpWrite(t *Task, r *RWSem) {
	if r.writer != t {
		sim.Crash("DEBUG_RWSEMS_WARN_ON(sem->owner != current): %s up_write()s %s held for write by %v", t, r.Name, r.writer)
	}
	t.CPU().Release(&r.hb)
	r.writer = nil
	t.mutexes--
	s.Lockdep.ReleaseCached(t.CPU(), t, &r.classes, r.Name)
	s.WakeUpAll(&r.waiters)
}

// UpRead releases t's read hold of r; the last reader out wakes the waiters.
// Releasing a read hold t does not have is an oops.
// kernel/locking/rwsem.c: up_read()
func (s *Sched) UpRead(t *Task, r *RWSem) {
	i := slices.Index(r.readers, t)
	if i < 0 {
		sim.Crash("DEBUG_RWSEMS_WARN_ON: %s up_read()s %s it does not hold for read", t, r.Name)
	}
	t.CPU().Release(&r.hb) // readers join one clock: an over-approximation that can only hide a race
	r.readers = slices.Delete(r.readers, i, i+1)
	t.mutexes--
	s.Lockdep.ReleaseCached(t.CPU(), t, &r.classes, r.Name)
	if len(r.readers) == 0 {
		s.WakeUpAll(&r.waiters)
	}
}

// DowngradeWrite turns t's write hold of r into a read hold without letting
// a writer in between, and wakes the waiting readers (the waiting writers
// sleep on: they are woken again when the last reader leaves).
// kernel/locking/rwsem.c: downgrade_write()
func (s *Sched) DowngradeWrite(t *Task, r *RWSem) {
	if r.writer != t {
		sim.Crash("DEBUG_RWSEMS_WARN_ON(sem->owner != current): %s downgrade_write()s %s held for write by %v", t, r.Name, r.writer)
	}
	r.writer = nil
	r.readers = append(r.readers, t)
	if r.writersWaiting == 0 {
		s.WakeUpAll(&r.waiters)
	}
}

// Writer returns the task holding r for writing, or nil; Readers how many
// hold it for reading.
func (r *RWSem) Writer() *Task { return r.writer }

// Readers returns how many tasks hold r for reading.
func (r *RWSem) Readers() int { return len(r.readers) }

// rwsemMayTake oopses on a sleeping lock taken from atomic context or taken
// again by its holder.
func (s *Sched) rwsemMayTake(t *Task, r *RWSem) {
	if c := t.CPU(); c != nil && (c.IrqsDisabled() || c.Context() != cpu.CtxTask || c.PreemptCount() > 0) {
		sim.Crash("BUG: sleeping function called from invalid context: %s takes %s on cpu%d", t, r.Name, c.ID)
	}
	if r.writer == t || slices.Contains(r.readers, t) {
		sim.Crash("possible recursive locking detected: %s already holds %s", t, r.Name)
	}
	s.Lockdep.AcquireCached(t.CPU(), t, &r.classes, LockClass{Name: r.Name})
}
