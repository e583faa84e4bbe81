package sched

import (
	"fmt"

	"perfsim/cpu"
)

// pthread_create() passes CLONE_CHILD_CLEARTID with the address of the new
// thread's tid word (struct pthread's tid, which CLONE_PARENT_SETTID fills):
// at the thread's exit, exit_mm() -> mm_release() stores 0 there and wakes
// one waiter of the futex on it, when other users of the mm are left.
// pthread_join() loads the word and, while it is not 0, futex-waits on it
// with that value (the kernel compares it again under the hash bucket's
// lock and returns EAGAIN when it changed). So a join returns once the
// thread is past exit_mm(): before exit_files(), exit_notify() and the
// rest of do_exit() (and before perf_event_exit_task() with knob
// exit-perf-order=pre-4f6fc7821283).
// kernel/fork.c: mm_release(); nptl/pthread_join_common.c: __pthread_clockjoin_ex()

// joinState is a task's part in pthread_join(): its clear_child_tid and
// the word it points to, and the threads it created with it, not yet
// joined (each program's pthread_t), by program name, oldest first.
type joinState struct {
	clearChildTID bool // tsk->clear_child_tid is set
	tidCleared    bool // the word holds 0: mm_release() ran
	joinable      map[string][]*Task
}

// tidKey is a thread's tid word in its struct pthread (user memory of the
// process), which mm_release() clears and pthread_join() reads.
type tidKey struct{ t *Task }

// FootprintKey implements cpu.FootprintKeyer.
func (k tidKey) FootprintKey() string { return k.t.FootprintKey() + "/pthread->tid" }

// FootprintExtent is the memory the key names (explore's write audit).
func (k tidKey) FootprintExtent() []any { return []any{&k.t.join.clearChildTID, &k.t.join.tidCleared} }

// handlesKey is the pthread_t handles a task holds (its program's
// variables, user memory of the process).
type handlesKey struct{ t *Task }

// FootprintKey implements cpu.FootprintKeyer.
func (k handlesKey) FootprintKey() string { return k.t.FootprintKey() + "/pthread_t" }

// FootprintExtent is the memory the key names (explore's write audit).
func (k handlesKey) FootprintExtent() []any { return []any{&k.t.join.joinable} }

// tidFutex looks up the futex on th's tid word: the program's (join) or
// mm_release()'s lookup, naming the thread on the futex it makes.
func (s *Sched) tidFutex(t, th *Task) (waitObjKey, *futexQ) {
	key, f := s.futexLookup(t, tidFutexName(th))
	if f.thread == nil {
		f.thread = th // made by the lookup, which annotated the write
	}
	return key, f
}

// tidFutexName is the futex name of a thread's tid word.
func tidFutexName(t *Task) string { return fmt.Sprintf("tid#%d", t.TID) }

// noteJoinable keeps c, a thread t created with CLONE_CHILD_CLEARTID, as
// the handle a later join of its program name takes (pthread_create()'s
// *newthread).
func (s *Sched) noteJoinable(t, c *Task) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(handlesKey{t}, "pthread_t", cpu.MarkedWrite, "pthread_create")
	}
	if t.join.joinable == nil {
		t.join.joinable = map[string][]*Task{}
	}
	t.join.joinable[c.fam.prog] = append(t.join.joinable[c.fam.prog], c)
}

// mmRelease is mm_release()'s part for pthread_join(): the tid word
// cleared and its futex woken, when another user of the mm is left.
// kernel/fork.c: mm_release()
func (s *Sched) mmRelease(t *Task) {
	if !t.join.clearChildTID {
		return
	}
	if s.M.FootprintListening() && t.MM != nil {
		t.CPU().AccessMarkedOnly(t.MM, "mm->mm_users", cpu.MarkedRead, "mm_release") // atomic_read(&mm->mm_users) > 1
	}
	if t.MM != nil && t.MM.Users > 1 {
		key, f := s.tidFutex(t, t)
		if s.M.FootprintListening() {
			t.CPU().AccessMarkedOnly(tidKey{t}, "tid", cpu.MarkedWrite, "mm_release") // put_user(0, tsk->clear_child_tid)
		}
		t.join.tidCleared = true
		s.futexWake(t, key, f, 1) // do_futex(tsk->clear_child_tid, FUTEX_WAKE, 1, ...)
	}
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(tidKey{t}, "tid", cpu.MarkedWrite, "mm_release") // tsk->clear_child_tid = NULL
	}
	t.join.clearChildTID = false
}

// join is pthread_join() of the oldest thread named name that t created
// and has not joined: a futex wait on its tid word until the word is 0.
// nptl/pthread_join_common.c: __pthread_clockjoin_ex() -> __futex_abstimed_wait_common64()
func (s *Sched) join(t *Task, name string) {
	if s.M.FootprintListening() {
		t.CPU().AccessMarkedOnly(handlesKey{t}, "pthread_t", cpu.MarkedWrite, "pthread_join")
	}
	list := t.join.joinable[name]
	if len(list) == 0 {
		return // no such thread: ESRCH (check refuses it in a scenario)
	}
	th := list[0]
	t.join.joinable[name] = list[1:]
	// tidCleared reads the word, in pthread_join()'s loop and in
	// futex_wait_setup()'s compare under the bucket's lock
	// (futex_get_value_locked(): *uaddr != val: -EAGAIN)
	tidCleared := func(fn string) bool {
		if s.M.FootprintListening() {
			t.CPU().AccessMarkedOnly(tidKey{th}, "tid", cpu.MarkedRead, fn)
		}
		return th.join.tidCleared
	}
	for !tidCleared("pthread_join") { // atomic_load_acquire(&pd->tid)
		key, f := s.tidFutex(t, th)
		s.futexWait(t, key, f, func() bool { return tidCleared("futex_wait_setup") })
	}
}
