package sched

import (
	"perfsim/cpu"
	"perfsim/sim"
)

// Syscall bodies of the scheduler's own whose accesses are annotated, so
// that they enter through SyscallAnnotated (enterBody does not mark them)
// and the syscall's entry fragment ("syscall_enter_from_user_mode") may be
// complete up to the body's first step point:
//
//   - nanosleep: the task's state and its hrtimer sleeper armed on its CPU
//     (a post there: cpu.Timer.Arm), then __schedule()'s step point; the
//     return from schedule() is into annotated code (the sys_exit hooks,
//     then exit_to_user_mode_loop's step point), so it is not marked.
//   - sched_yield: the run queue locked and the yielding task's
//     sched_entity (yield_task_fair()), TIF_NEED_RESCHED set; the
//     reschedule is exit_to_user_mode_loop's.
//
// And modelled bodies of sysModels (modelledSyscall) whose accesses are
// annotated, so enterBody does not mark them (annotatedSysModels): read(2)
// and write(2) of a file that is no pipe of the model's, which look up
// the fd (accessFdTable) and spend their time (a regular file's go through
// the page cache, which fileIO marks unaudited); execve(2), whose body
// footprint_exec.go annotates.

// Nanosleep is t's nanosleep(2) of d, for code that runs on a task
// without a program step (perf's usleep()): see sleep.
func (s *Sched) Nanosleep(t *Task, d sim.Duration) { s.sleep(t, d) }

// sleep blocks t for d (hrtimer_nanosleep()): an hrtimer on its CPU wakes it,
// at most the task's timer slack late (cpu/hrtimer.go).
// kernel/time/hrtimer.c: hrtimer_nanosleep(): hrtimer_set_expires_range_ns(&t.timer, rqtp, current->timer_slack_ns)
func (s *Sched) sleep(t *Task, d sim.Duration) {
	s.SyscallAnnotated(t, "nanosleep", func(t *Task) {
		c := t.CPU()
		if s.M.FootprintListening() {
			c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "do_nanosleep")           // kernel/time/hrtimer.c: do_nanosleep(): set_current_state(TASK_INTERRUPTIBLE), which try_to_wake_up() reads
			c.AccessMarkedOnly(sleeperKey{t}, "t->timer", cpu.MarkedWrite, "do_nanosleep") // kernel/time/hrtimer.c: do_nanosleep(): hrtimer_sleeper_start_expires(t, mode): the task's sleeper armed on this CPU
		}
		s.sleepOnTimerFrom(t, c, d, t.TimerSlack, true)
	})
}

// schedYield is sched_yield()'s body: the running task forfeits the rest of
// its request; TIF_NEED_RESCHED makes exit_to_user_mode_loop reschedule.
func (s *Sched) schedYield(t *Task) {
	c := t.CPU()
	if s.M.FootprintListening() {
		s.accessRQ(c.ID, cpu.MarkedWrite, "do_sched_yield")                          // kernel/sched/syscalls.c: do_sched_yield(): this_rq_lock_irq(); schedstat_inc(rq->yld_count)
		c.AccessMarkedOnly(t, "p->se", cpu.MarkedRead, "yield_task_fair")            // kernel/sched/fair.c: yield_task_fair(): rq->donor's se, its cfs_rq
		c.AccessMarkedOnly(c, "TIF_NEED_RESCHED", cpu.MarkedWrite, "do_sched_yield") // kernel/sched/syscalls.c: do_sched_yield() -> schedule(): the model sets need_resched for exit_to_user_mode_loop
	}
	s.yieldFair(c, t) // do_sched_yield() -> yield_task_fair()
	s.needResched[c.ID] = true
}

// sleeperKey is a task's hrtimer sleeper ("tid's hrtimer_sleeper": the
// model keeps one per task, made on its CPU and kept while it stays
// there): only its own task arms it, and its expiry, on the CPU it is
// armed on, is that CPU's interrupt.
type sleeperKey struct{ t *Task }

// FootprintKey implements cpu.FootprintKeyer.
func (k sleeperKey) FootprintKey() string { return k.t.FootprintKey() + "/hrtimer_sleeper" }

// FootprintExtent is the memory the key names (explore's write audit): the
// task's pointer to its timer, and the timer.
func (k sleeperKey) FootprintExtent() []any {
	if k.t.wakeTimer == nil {
		return []any{&k.t.wakeTimer}
	}
	return []any{&k.t.wakeTimer, k.t.wakeTimer}
}

// annotatedSysModels are the sysModels whose accesses are annotated.
var annotatedSysModels = map[string]bool{"read": true, "write": true, "execve": true}

// An fd table (struct files_struct, mm.Files) is its own key: the name
// Task.KeyFiles gave it, "files#N@tidT" (footprint_key.go), so two
// processes' opens and closes touch two objects; the threads that share
// a table (CLONE_FILES) share it.

// AccessFdLookup annotates fdget()'s lookup of an fd in t's table, on c
// (t's CPU, t running): current->files, then the file at fd (none in a
// task that has no table yet: the model makes one on first use, a write
// of task->files).
func AccessFdLookup(c *cpu.CPU, t *Task, fn string) {
	c.AccessMarkedOnly(t, "task->files", cpu.MarkedRead, fn) // fs/file.c: __fget_light(): struct files_struct *files = current->files
	if t.Files != nil {
		c.AccessMarkedOnly(t.Files, "fdt->fd[]", cpu.MarkedRead, fn) // fs/file.c: files_lookup_fd_raw(): rcu_dereference_raw(fdt->fd[fd])
	}
}

// accessFdTable annotates a syscall body's lookup of an fd in the task's
// table (AccessFdLookup).
func (s *Sched) accessFdTable(t *Task, fn string) {
	if s.M.FootprintListening() {
		AccessFdLookup(t.CPU(), t, fn)
	}
}
