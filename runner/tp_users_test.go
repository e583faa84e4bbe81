package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A tracepoint event whose perf_event_open() fails after perf_event_alloc()
// (here the group check: a leader on another CPU, EINVAL) drops its hold on
// the tracepoint on the error path (event->destroy(): perf_trace_destroy()),
// as a closed one does: none is left once both fds are closed.
func TestTracepointUsersOnOpenError(t *testing.T) {
	src := `cpus 2
task app cpu0
  open l -e sched:sched_switch cpu0 pid -1
  open s -e sched:sched_wakeup cpu1 pid -1 group l
  open ok -e sched:sched_wakeup cpu0 pid -1 group l
  close ok
  close l
  compute 300us
`
	got, _ := runSrc(t, src, "errno.EINVAL", "fd.opened", "tp.users")
	if d := cmp.Diff(map[string]int64{"errno.EINVAL": 1, "fd.opened": 2, "tp.users": 0}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
