package pmu

import (
	"perfsim/mm"
	"perfsim/sched"
	"perfsim/uapi"
)

// ReadAnon implements sched.AnonReadHook: read(2) of a perf fd by the
// syscall statement (syscall read FD BUF COUNT), with the caller's count
// and buffer, where the read statement (Read) takes the whole value: 0 for
// an event in error state, ENOSPC for a count under read_size, else the
// values (perfRead) copied to buf, EFAULT if the copy faults. As this
// machine (a cpu-clock fd: 8 bytes read with a count of 8 or 100, ENOSPC
// with 4, EFAULT into NULL). Marked unaudited: the read statement's path
// is the annotated one.
// kernel/events/core.c: perf_read() -> __perf_read(), perf_read_one(): copy_to_user()
func (k *Kernel) ReadAnon(t *sched.Task, f mm.AnonFile, buf, count uint64) (int64, bool) {
	e, ok := f.(*Event)
	if !ok {
		return 0, false
	}
	if k.M.FootprintListening() {
		t.CPU().Unaudited("perf_read")
	}
	var b []byte
	var e2 uapi.Errno
	k.perfReadLocked(t, e, func() {
		switch {
		case e.state == StateError:
		case count < uint64(e.readSize):
			e2 = uapi.ENOSPC
		default:
			b, _ = k.perfRead(t, e)
		}
	})
	if e2 != 0 {
		return -int64(e2), true
	}
	if n := uint64(len(b)); k.S.CopyToUser(t, buf, n) < n {
		return -int64(uapi.EFAULT), true
	}
	return int64(len(b)), true
}
