package sched

import (
	"perfsim/cpu"
	"perfsim/mm"
)

// The footprint of do_exit() (entry.go: exit), in the fragments that run
// it: the one that reaches it (exit_to_user_mode_loop's, declared in
// footprint_entry.go, at the program's end or SIGKILL; exit(2)'s and
// exit_group(2)'s syscall entry, whose do_group_exit() sets the group's
// flag, its zap of other live threads marked; a fork's first), up to the
// first step point in it,
// and the one that returns from exit_task_work()'s last work (the works'
// own step points, "task_work_run:NAME") through the rest of it to
// __schedule()'s step point:
//
//   - exit_signals(): PF_EXITING set (current's flags; what a sample's
//     perf_sigtrap() and the deferred unwind read, on this CPU).
//   - atomic_dec_and_test(&signal->live): the group's live count, which
//     every thread's exit writes (the model reads the other threads'
//     states: their exits' writes of the same key).
//   - trace_sched_process_exit() (the TraceHooks: perf's fireSched
//     annotates itself).
//   - perf_event_exit_task() and what sits with it (the TaskExitHooks):
//     a hook that says it annotates itself (AnnotatedExitHook: pmu's,
//     the deferred unwind's, perf record's session, the runner's actor
//     reaper) runs as it is, any other, or one that says its path is not
//     annotated (perf record's SIGCHLD to perf, the actor reaper's wake of
//     the actors, the unwind with work to run), is marked.
//   - exit_mm(): current->mm cleared, mm_users dropped (the mm's vm#N key,
//     footprint_key.go); the ExitMMHooks (perf's: its mmput() and
//     exit_mmap() of the perf VMAs) must be AnnotatedExitMMHooks or are
//     marked.
//   - exit_files(): files->count dropped; the last user closes every fd
//     (the table written) and fput()s each file: an anon inode file's
//     f_count (its owner's key), its owner's FileHook (perf's: ____fput
//     queued as task work, task_work_add() annotated) if an
//     AnnotatedFileHook, else marked.
//   - exit_task_work(): task->task_works read; the works run (each at its
//     own step point) and task_work_run()'s return is into the code below.
//   - The old order of perf_event_exit_task() (PerfExitLate): marked.
//   - do_task_dead()'s state (TASK_DEAD, which try_to_wake_up() reads),
//     __exit_signal()'s sigqueues freed (the user's sigpending count),
//     cgroup_exit() (the cgroup's population), exit_notify(): the
//     children's states read and each reparented (its real_parent), the
//     parent pointer read (which the parent's own exit reparents), the leader's
//     zombie state and the parent's wait_chldexit woken (a waiter woken
//     is marked), the exec waiter's look (its wake marked), the sleeper's
//     hrtimer cancelled; then schedule(), whose step point comes first.
//
// The write audit (explore's TestWriteAuditExit) checks the writes.

// AnnotatedExitHook is a TaskExitHook that annotates what its TaskExit
// of t will access (AccessTaskExit, called just before it while somebody
// listens); false says that the path it takes for t is not annotated:
// do_exit() marks it, as it marks every hook that is not one.
type AnnotatedExitHook interface {
	TaskExitHook
	AccessTaskExit(t *Task) bool
}

// AnnotatedParentNotifyHook is a ParentNotifyHook that annotates its
// NotifyParent(t, l) as AnnotatedExitHook does its TaskExit.
type AnnotatedParentNotifyHook interface {
	ParentNotifyHook
	AccessNotifyParent(t, l *Task) bool
}

// AnnotatedExitMMHook is an ExitMMHook that annotates its TaskExitMM of t
// as AnnotatedExitHook does.
type AnnotatedExitMMHook interface {
	ExitMMHook
	AccessTaskExitMM(t *Task) bool
}

// AnnotatedFileHook is a FileHook that annotates its Fput of f by t
// beyond the file's f_count (which exit_files() annotates), as
// AnnotatedExitHook does.
type AnnotatedFileHook interface {
	FileHook
	AccessFput(t *Task, f mm.AnonFile) bool
}

// signalLiveKey is the thread group's signal->live, on its leader: the
// model keeps it as the threads' states (groupDead), which each thread's
// exit writes.
type signalLiveKey struct{ l *Task }

// FootprintKey implements cpu.FootprintKeyer.
func (k signalLiveKey) FootprintKey() string { return k.l.FootprintKey() + "/signal->live" }

// FootprintExtent is where the model keeps it: the leader's task (its
// family: the threads) and its own.
func (k signalLiveKey) FootprintExtent() []any { return []any{k.l} }

// sigpendingKey is the user's UCOUNT_RLIMIT_SIGPENDING count (every task
// runs as root: one count), which the sigqueues' allocation and free write.
type sigpendingKey struct{ s *Sched }

// FootprintKey implements cpu.FootprintKeyer.
func (sigpendingKey) FootprintKey() string { return "ucounts:UCOUNT_RLIMIT_SIGPENDING" }

// FootprintExtent is where the model keeps it.
func (k sigpendingKey) FootprintExtent() []any { return []any{&k.s.sigpending} }

// cgroupPopKey is a cgroup's population (its css_set's task count).
type cgroupPopKey struct{ cg *Cgroup }

// FootprintKey implements cpu.FootprintKeyer: "cgroup:PATH".
func (k cgroupPopKey) FootprintKey() string { return "cgroup:/" + k.cg.Path }

// FootprintExtent is where the model keeps it.
func (k cgroupPopKey) FootprintExtent() []any { return []any{&k.cg.nrTasks} }

// waitChldKey is a process's signal->wait_chldexit (on its leader).
type waitChldKey struct{ l *Task }

// FootprintKey implements cpu.FootprintKeyer.
func (k waitChldKey) FootprintKey() string { return k.l.FootprintKey() + "/signal->wait_chldexit" }

// FootprintExtent is where the model keeps it.
func (k waitChldKey) FootprintExtent() []any { return []any{&k.l.fam.waitChldExit} }

// accessExitSignals annotates exit_signals()'s PF_EXITING and
// atomic_dec_and_test(&signal->live).
// kernel/signal.c: exit_signals(); kernel/exit.c: do_exit(): group_dead = atomic_dec_and_test(&tsk->signal->live)
func (s *Sched) accessExitSignals(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "task->flags", cpu.PlainWrite, "exit_signals")                      // kernel/signal.c: exit_signals(): tsk->flags |= PF_EXITING
	c.AccessMarkedOnly(signalLiveKey{t.Leader()}, "signal->live", cpu.MarkedWrite, "do_exit") // kernel/exit.c: do_exit(): atomic_dec_and_test(&tsk->signal->live)
}

// markExitHook marks a TaskExitHook whose code nobody annotated.
func (s *Sched) markExitHook(t *Task, h TaskExitHook) {
	if !s.M.FootprintListening() {
		return
	}
	if ah, ok := h.(AnnotatedExitHook); !ok || !ah.AccessTaskExit(t) {
		t.CPU().Unaudited("a TaskExitHook") // kernel/exit.c: do_exit(): perf_event_exit_task() and what sits with it, as a hook nobody annotated
	}
}

// accessExitMM annotates exit_mm(): current->mm cleared and mm_users
// dropped (the last user's exit_mmap() frees nothing another context
// sees in the model but perf's VMAs, which its hook annotates).
// kernel/exit.c: exit_mm() -> mmput()
func (s *Sched) accessExitMM(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "task->mm", cpu.MarkedWrite, "exit_mm") // kernel/exit.c: exit_mm(): current->mm = NULL (task_lock)
	if t.MM != nil && t.MM.Users > 0 {
		c.AccessMarkedOnly(t.MM, "mm->mm_users", cpu.MarkedWrite, "mmput") // kernel/fork.c: mmput(): atomic_dec_and_test(&mm->mm_users)
	}
	s.eachHook(func(h any) {
		if _, ok := h.(ExitMMHook); ok {
			if ah, ok := h.(AnnotatedExitMMHook); !ok || !ah.AccessTaskExitMM(t) {
				c.Unaudited("an ExitMMHook")
			}
		}
	})
}

// accessExitFiles annotates exit_files(): current->files read and
// cleared, files->count dropped; the last user's close_files() writes
// the table.
// kernel/exit.c: exit_files() -> fs/file.c: put_files_struct(), close_files()
func (s *Sched) accessExitFiles(t *Task, fl *mm.Files) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(t, "task->files", cpu.MarkedWrite, "exit_files") // kernel/exit.c: exit_files(): task_lock(tsk); tsk->files = NULL
	if fl == nil || fl.Users == 0 {
		return
	}
	c.AccessMarkedOnly(fl, "files->count", cpu.MarkedWrite, "put_files_struct")              // fs/file.c: put_files_struct(): atomic_dec_and_test(&files->count), which __fget_light() reads
	c.AccessMarkedOnly(filesMemKey{fl}, "files->count", cpu.MarkedWrite, "put_files_struct") // the model's count
	if fl.Users > 1 {
		return
	}
	c.AccessMarkedOnly(fl, "fdt->fd[]", cpu.MarkedWrite, "close_files")              // fs/file.c: close_files(): xchg(&fdt->fd[i], NULL)
	c.AccessMarkedOnly(filesMemKey{fl}, "fdt->fd[]", cpu.MarkedWrite, "close_files") // the model's table
}

// accessExitFput annotates close_files()' fput() of f: an anon inode
// file's f_count (its owner's key), then its owner's FileHook (annotated
// or marked).
// fs/file.c: close_files() -> filp_close() -> fput()
func (s *Sched) accessExitFput(t *Task, f *mm.OpenFile) {
	if !s.M.FootprintListening() || f == nil || f.Anon == nil {
		return
	}
	c := t.CPU()
	if k, ok := f.Anon.(cpu.FootprintKeyer); ok {
		c.AccessMarkedOnly(k, "file->f_count", cpu.MarkedWrite, "fput") // fs/file_table.c: fput(): file_ref_put(&file->f_ref)
	} else {
		c.Unaudited("fput")
	}
	s.eachHook(func(h any) {
		if _, ok := h.(FileHook); ok {
			if ah, ok := h.(AnnotatedFileHook); !ok || !ah.AccessFput(t, f.Anon) {
				c.Unaudited("a FileHook's Fput")
			}
		}
	})
}

// accessExitTaskWork annotates exit_task_work()'s look at an empty
// task->task_works (task_work_run() annotates the rest).
// kernel/task_work.c: task_work_run(): work = READ_ONCE(task->task_works)
func (s *Sched) accessExitTaskWork(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(t, "task->task_works", cpu.MarkedRead, "task_work_run")
	}
}

// markExitLate marks perf_event_exit_task() after exit_task_work()
// (PerfExitLate, before 4f6fc7821283): nobody annotated it there.
func (s *Sched) markExitLate(t *Task) {
	if s.M.FootprintListening() {
		t.CPU().Unaudited("perf_event_exit_task (PerfExitLate)")
	}
}

// accessExitDead annotates the end of do_exit() before schedule():
// exit_notify()'s and do_task_dead()'s writes of current's state, the
// group's live count (the model's: the state), the sigqueues freed, the
// cgroup's population, the children reparented, the parent's wait queue
// (a waiter woken is marked), the exec waiter (marked when woken), the
// sleeper's hrtimer.
// kernel/exit.c: do_exit(), exit_notify(), __exit_signal(); kernel/cgroup/cgroup.c: cgroup_exit(); kernel/sched/core.c: do_task_dead()
func (s *Sched) accessExitDead(t *Task, groupDead bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	l := t.Leader()
	c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "do_task_dead")                 // kernel/sched/core.c: do_task_dead(): set_special_state(TASK_DEAD); kernel/exit.c: exit_notify(): tsk->exit_state
	c.AccessMarkedOnly(signalLiveKey{l}, "signal->live", cpu.MarkedWrite, "exit_notify") // the model's live count: this thread's state, which the others' groupDead() reads
	counted := false
	for _, p := range t.signals {
		counted = counted || p.counted
	}
	if groupDead {
		for _, p := range t.sigstruct().shared {
			counted = counted || p.counted
		}
		c.AccessMarkedOnly(l, "signal->shared_pending", cpu.MarkedWrite, "__exit_signal") // kernel/exit.c: __exit_signal(): flush_sigqueue(&sig->shared_pending)
		if len(l.sig.shared) > 0 {                                                        // l.sig: made by t.sigstruct() above
			accessSharedQueue(c, l, "__exit_signal") // what the flush empties, where the model keeps it
		}
	}
	c.AccessMarkedOnly(t, "task->pending", cpu.MarkedWrite, "__exit_signal") // kernel/exit.c: __exit_signal(): flush_sigqueue(&tsk->pending)
	if counted {
		c.AccessMarkedOnly(sigpendingKey{s}, "ucounts->rlimit[UCOUNT_RLIMIT_SIGPENDING]", cpu.AtomicAdd, "__sigqueue_free") // kernel/signal.c: __sigqueue_free(): dec_rlimit_put_ucounts()
	}
	c.AccessMarkedOnly(cgroupPopKey{t.Cgroup()}, "cset->nr_tasks", cpu.AtomicAdd, "cgroup_exit") // kernel/cgroup/cgroup.c: cgroup_exit(): css_set_lock, cset->nr_tasks--
	for _, ch := range t.fam.children {
		c.AccessMarkedOnly(ch, "p->__state", cpu.MarkedRead, "reparent_leader")             // kernel/exit.c: reparent_leader(): if (!p->exit_state) ... a zombie's do_notify_parent() to the reaper
		c.AccessMarkedOnly(ch, "p->real_parent", cpu.MarkedWrite, "forget_original_parent") // kernel/exit.c: forget_original_parent() -> reparent_leader(): p->real_parent = reaper
	}
	c.AccessMarkedOnly(l, "p->real_parent", cpu.MarkedRead, "do_notify_parent") // kernel/signal.c: do_notify_parent(): tsk->parent, which the parent's exit reparents
	if t != l {
		c.AccessMarkedOnly(l, "p->__state", cpu.MarkedRead, "exit_notify") // kernel/exit.c: exit_notify(): thread_group_leader(tsk) ... the leader's exit_state
	}
	if s.notifiesParent(t) { // do_notify_parent()
		for _, h := range s.ExitHooks {
			if n, ok := h.(ParentNotifyHook); ok {
				if an, ok := n.(AnnotatedParentNotifyHook); !ok || !an.AccessNotifyParent(t, l) {
					c.Unaudited("a ParentNotifyHook") // kernel/signal.c: do_notify_parent(), as a hook nobody annotated
				}
			}
		}
		if p := l.fam.parent; p != nil {
			pl := p.Leader()
			c.AccessMarkedOnly(waitChldKey{pl}, "signal->wait_chldexit", cpu.MarkedWrite, "__wake_up_parent") // kernel/signal.c: do_notify_parent() -> __wake_up_parent(): __wake_up_sync_key(&parent->signal->wait_chldexit, ...); the waiter's try_to_wake_up() annotates itself (footprint_wake.go), and accessAfterNotify what follows it
		} else {
			c.AccessMarkedOnly(l, "p->exit_state", cpu.MarkedWrite, "release_task") // kernel/exit.c: exit_notify(): autoreap: init reaps it
		}
	}
	s.accessAfterNotify(t, false)
}

// accessAfterNotify annotates exit_notify() after do_notify_parent() and
// the end of do_exit() before schedule(): the exec waiter's wake-up
// (marked when there is one) and the sleeper's hrtimer. accessExitDead
// annotates it in the exit's fragment; notifyParent again after the
// parent's annotated wake-up, where a step point of try_to_wake_up() may
// have started a fragment that goes on into this code.
// kernel/exit.c: exit_notify(), do_exit()
func (s *Sched) accessAfterNotify(t *Task, afterWake bool) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	l := t.Leader()
	c.AccessMarkedOnly(l, "signal->group_exec_task", cpu.MarkedRead, "exit_notify") // kernel/exit.c: exit_notify(): if (unlikely(tsk->signal->notify_count < 0)) wake_up_process(tsk->signal->group_exec_task)
	if w := l.fam.groupExec; w != nil && w != t {
		c.Unaudited("wake_up_process(group_exec_task)") // fs/exec.c: de_thread()'s waiter woken
	}
	if t.wakeTimer != nil {
		c.AccessMarkedOnly(sleeperKey{t}, "t->timer", cpu.MarkedWrite, "hrtimer_cancel") // kernel/time/hrtimer.c: hrtimer_cancel(): the sleeper's timer, should it still be armed
	}
	if afterWake {
		c.AccessMarkedOnly(t, "p->__state", cpu.MarkedWrite, "do_task_dead") // kernel/exit.c: exit_notify(): tsk->exit_state (the state sched_switch reports), which accessExitDead annotated before the wake
	}
}

// accessDoWait annotates do_wait()'s look at t's children: each child's
// exit state (which its exit writes: accessExitDead) and the children
// lists of t's threads.
// kernel/exit.c: do_wait() -> do_wait_thread() -> wait_consider_task()
func (s *Sched) accessDoWait(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	for _, th := range s.threadGroup(t) {
		c.AccessMarkedOnly(th, "p->children", cpu.PlainRead, "do_wait_thread") // kernel/exit.c: do_wait_thread(): list_for_each_entry(p, &tsk->children, sibling)
		for _, ch := range th.fam.children {
			c.AccessMarkedOnly(ch, "p->__state", cpu.MarkedRead, "wait_consider_task") // kernel/exit.c: wait_consider_task(): READ_ONCE(p->exit_state)
			if ch.fam.zombie {
				for _, x := range ch.fam.threads {
					c.AccessMarkedOnly(x, "p->__state", cpu.MarkedRead, "delay_group_leader") // thread_group_empty(): the leader's threads released
				}
			}
		}
	}
}

// accessReap annotates wait_task_zombie()'s reaping of ch: its exit state
// (EXIT_DEAD) and its parent's children list (release_task()).
// kernel/exit.c: wait_task_zombie(), release_task()
func (s *Sched) accessReap(t, ch *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	c.AccessMarkedOnly(ch, "p->__state", cpu.MarkedWrite, "wait_task_zombie")        // kernel/exit.c: wait_task_zombie(): cmpxchg(&p->exit_state, EXIT_ZOMBIE, EXIT_DEAD)
	c.AccessMarkedOnly(ch.fam.parent, "p->children", cpu.PlainWrite, "release_task") // kernel/exit.c: release_task() -> __unhash_process(): list_del_init(&p->sibling)
}

// waitChld is do_wait()'s sleep on the process's wait_chldexit,
// returning into do_wait()'s annotated scan.
// kernel/exit.c: do_wait(): add_wait_queue(&current->signal->wait_chldexit, ...), schedule()
func (s *Sched) waitChld(t *Task) bool {
	k := waitChldKey{t.Leader()}
	return s.waitKeyed(t, &k.l.fam.waitChldExit, k, "signal->wait_chldexit", "do_wait")
}

// accessGroupExit annotates do_group_exit(): the group's SIGNAL_GROUP_EXIT
// read and set (on the leader); zap_other_threads() of another live
// thread (its SIGKILL, signal_wake_up()'s wake-up or IPI) is marked.
// kernel/exit.c: do_group_exit()
func (s *Sched) accessGroupExit(t *Task) {
	if !s.M.FootprintListening() {
		return
	}
	c := t.CPU()
	l := t.Leader()
	c.AccessMarkedOnly(l, "signal->flags", cpu.MarkedWrite, "do_group_exit") // kernel/exit.c: do_group_exit(): if (sig->flags & SIGNAL_GROUP_EXIT) ... sig->flags = SIGNAL_GROUP_EXIT (under siglock)
	if l.fam.groupExit {
		return
	}
	for _, th := range s.threadGroup(t) {
		if th != t && th.State != Dead {
			c.Unaudited("zap_other_threads") // kernel/signal.c: zap_other_threads(): sigaddset(SIGKILL), signal_wake_up()
			return
		}
	}
}
