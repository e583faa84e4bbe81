package sched

import "perfsim/cpu"

// hotplugLockKey is cpu_hotplug_lock as the model keeps it, its extent
// (explore's write audit); its SyncClock's takes and releases touch
// "cpu_hotplug_lock" (hp()).
type hotplugLockKey struct{ s *Sched }

// FootprintKey implements cpu.FootprintKeyer.
func (hotplugLockKey) FootprintKey() string { return "cpu_hotplug_lock (struct percpu_rw_semaphore)" }

// String is the key's identity (explore's TestFootprintKeysStable).
func (k hotplugLockKey) String() string { return k.FootprintKey() }

// FootprintExtent is where the model keeps the lock.
func (k hotplugLockKey) FootprintExtent() []any { return []any{&k.s.hp().lock} }

// AccessCPUsReadLock annotates cpus_read_lock() by t (before CPUsReadLock):
// percpu_down_read()'s look at the writer's state and its count of
// readers. A writer holding or waiting for it (CPU hotplug) puts t to
// sleep, in rwsem code nobody annotated here: marked.
// kernel/cpu.c: cpus_read_lock() -> percpu_down_read(&cpu_hotplug_lock)
func (s *Sched) AccessCPUsReadLock(t *Task, fn string) {
	c := t.CPU()
	if !s.M.FootprintListening() || c == nil {
		return
	}
	h := s.hp()
	if h.lock.writer != nil || h.lock.writersWaiting > 0 {
		c.Unaudited("percpu_down_read_slowpath") // kernel/locking/percpu-rwsem.c: __percpu_down_read(): the writer's wait
	}
	c.AccessMarkedOnly(hotplugLockKey{s}, "sync", cpu.MarkedWrite, fn) // kernel/locking/percpu-rwsem.c: percpu_down_read(): rcu_sync_is_idle(&sem->rss), this_cpu_inc(*sem->read_count)
	c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, fn)
}

// AccessCPUsReadUnlock annotates cpus_read_unlock() by t: the count of
// readers dropped (a writer waiting is woken: marked).
// kernel/cpu.c: cpus_read_unlock() -> percpu_up_read(&cpu_hotplug_lock)
func (s *Sched) AccessCPUsReadUnlock(t *Task, fn string) {
	c := t.CPU()
	if !s.M.FootprintListening() || c == nil {
		return
	}
	h := s.hp()
	if len(h.lock.waiters.waiters) > 0 {
		c.Unaudited("rcuwait_wake_up") // kernel/locking/percpu-rwsem.c: percpu_up_read(): the writer waiting woken
	}
	c.AccessMarkedOnly(hotplugLockKey{s}, "sync", cpu.MarkedWrite, fn) // kernel/locking/percpu-rwsem.c: percpu_up_read(): this_cpu_dec(*sem->read_count)
	c.AccessMarkedOnly(t, "current->lockdep_depth", cpu.PlainWrite, fn)
}
