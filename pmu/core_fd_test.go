package pmu_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestCloseDuringIoctlAndRead: a thread closes a perf fd while another is
// inside ioctl() (then read()) on it, at the perf_ioctl:fdget and
// perf_read:fdget step points. The table is shared (CLONE_FILES), so fdget()
// held a reference: the close drops one that is not the last, the call goes
// on with the event alive (ENABLE, the read's count), and the release is the
// call's fdput(). With a table of its own the call takes no reference.
func TestCloseDuringIoctlAndRead(t *testing.T) {
	mc := newMachine(t, 2, sim.NewReplay(nil), pmu.Knobs{})
	closer := mc.s.Spawn("closer", sched.MaskOf(1))
	var got []any
	mc.runIn(t, 0, func(tk *sched.Task) {
		mc.k.ShareFiles(closer, tk)
		a := swAttr(uapi.PERF_COUNT_SW_CPU_CLOCK)
		a.Disabled = true
		ev, _ := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
		b := swAttr(uapi.PERF_COUNT_SW_TASK_CLOCK)
		cnt, _ := mc.k.PerfEventOpen(tk, &b, 0, -1, -1, 0)
		e1, e2 := mc.k.EventOf(tk, ev), mc.k.EventOf(tk, cnt)
		closes := 0
		mc.m.AddStepHook(func(c *cpu.CPU, label string) {
			fd := map[string]int{"perf_ioctl:fdget": ev, "perf_read:fdget": cnt}[label]
			if fd == 0 {
				return
			}
			f, err := tk.Files.Close(int64(fd)) // the closer's close(), file_close_fd() then fput()
			if err != 0 {
				t.Errorf("close at %s: %v", label, err)
				return
			}
			closes++
			mc.k.Fput(closer, f.Anon)
		})
		_, ierr := mc.k.Ioctl(tk, ev, uapi.PERF_EVENT_IOC_ENABLE, 0)
		buf, rerr := mc.k.Read(tk, cnt)
		rel, _ := mc.k.Observe("files.fdput-release")
		closed, _ := mc.k.Observe("events.closed")
		got = []any{closes, ierr, rerr, len(buf), rel, closed, mc.k.EventOf(tk, ev) == nil, e1 != nil && e2 != nil}
	})
	if d := cmp.Diff([]any{2, nil, nil, 8, int64(2), int64(2), true, true}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
