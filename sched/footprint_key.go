package sched

import (
	"strconv"

	"perfsim/cpu"
)

// SetKey names m for partial-order reduction (cpu.FootprintKey): the field
// (as the kernel spells it, "event->mmap_mutex") of owner, or with a nil
// owner a global's name ("event_mutex"). Its lock and unlock are then
// accesses of a stable key.
func (m *Mutex) SetKey(owner cpu.FootprintKeyer, field string) { m.hb.SetKey(owner, field) }

// SetKey names r as Mutex.SetKey names a mutex.
func (r *RWSem) SetKey(owner cpu.FootprintKeyer, field string) { r.hb.SetKey(owner, field) }

// keyMM names the address space just made for t (its first, fork's copy or
// exec's new one): "vm#N@tidT", N its number among the address spaces
// made for t, T t's TID: t's own path decides it, not another CPU's order
// (so an exec's new mm has one key in every schedule, and the count is
// t's own state, which the exec's annotated write of t covers).
func (s *Sched) keyMM(t *Task) {
	t.mmKeys++
	t.MM.SetKey("vm#" + strconv.Itoa(t.mmKeys) + "@tid" + strconv.Itoa(t.TID))
}

// KeyFiles names the fd table just made for t (its first, fork's dup_fd()
// copy, exec's unshare_files() copy, or one made when t had none): as
// keyMM, "files#N@tidT", N its number among the tables made for t. Two
// processes' tables are two objects, so their opens and closes do not
// conflict; threads that share one (CLONE_FILES) share its key.
func (t *Task) KeyFiles() {
	t.filesKeys++
	t.Files.SetKey("files#" + strconv.Itoa(t.filesKeys) + "@tid" + strconv.Itoa(t.TID))
}
