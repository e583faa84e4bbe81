package sched

import "perfsim/mm"

// fdgetPos is fdget_pos() of read(2), write(2) and lseek(2): a regular
// file (FMODE_ATOMIC_POS) is held under its f_pos_lock until fdput_pos(),
// so two tasks that share the struct file (threads of a process, a parent
// and a child that inherited the fd) take turns: the second sleeps (D) in
// mutex_lock() until the first has stored f_pos back, then reads or writes
// after it. The kernel takes the lock only when the file has a reference
// besides the fd table's (file_needs_f_pos_lock(): a shared table's
// fdget() takes one, so does another table's fd); without one no other
// task can reach the file, and the model's uncontended take is the same.
// It returns the unlock (nil: no lock taken). The lock and its waiters
// are marked unaudited: the model keeps them beside the file, in no key.
// fs/file.c: fdget_pos(), file_needs_f_pos_lock(); fs/read_write.c: ksys_read()
func (s *Sched) fdgetPos(t *Task, f *mm.OpenFile) (unlock func()) {
	if !f.Regular() {
		return nil
	}
	mu := s.posLocks[f]
	if mu == nil {
		if s.posLocks == nil {
			s.posLocks = map[*mm.OpenFile]*Mutex{}
		}
		mu = &Mutex{Name: "&f->f_pos_lock"}
		s.posLocks[f] = mu
	}
	if s.M.FootprintListening() {
		t.CPU().Unaudited("fdget_pos")
	}
	s.MutexLock(t, mu)
	return func() {
		if s.M.FootprintListening() {
			t.CPU().Unaudited("fdput_pos")
		}
		s.MutexUnlock(t, mu)
	}
}
