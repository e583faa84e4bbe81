package pmu_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// TestHWCountersMode: cycles count only in the modes the event allows
// (exclude_user, exclude_kernel: the USR/OS bits). A task runs 4 x (10us of
// user compute + a 5us getpid) at 3 cycles/ns with three counters open on
// itself: :u, :k and both.
func TestHWCountersMode(t *testing.T) {
	mc := newMachine(t, 1, nil, pmu.Knobs{})
	var counts [3]uint64
	mc.runIn(t, 0, func(tk *sched.Task) {
		var fds [3]int
		for i, ex := range [][2]bool{{false, true}, {true, false}, {false, false}} {
			a := pmu.Attr{Type: pmu.PERF_TYPE_HARDWARE, Size: pmu.AttrSize, Config: pmu.PERF_COUNT_HW_CPU_CYCLES,
				ExcludeUser: ex[0], ExcludeKernel: ex[1], Disabled: true}
			fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			fds[i] = fd
		}
		for _, fd := range fds {
			mc.k.Ioctl(tk, fd, pmu.PERF_EVENT_IOC_ENABLE, 0)
		}
		for i := 0; i < 4; i++ {
			mc.s.RunOps(tk, []sched.Op{sched.Compute(10 * sim.Microsecond), sched.SyscallFor("getpid", 5*sim.Microsecond)})
		}
		for _, fd := range fds {
			mc.k.Ioctl(tk, fd, pmu.PERF_EVENT_IOC_DISABLE, 0)
		}
		for i, fd := range fds {
			b, err := mc.k.Read(tk, fd)
			if err != nil {
				t.Fatal(err)
			}
			counts[i] = binary.LittleEndian.Uint64(b)
		}
	})
	// 40us of user time and 20us of kernel time at 3 cycles/ns, exactly:
	// the ioctls and the read take no time.
	want := [3]uint64{120000, 60000, 180000}
	if d := cmp.Diff(want, counts); d != "" {
		t.Errorf("cycles :u, :k, both (-want +got):\n%s", d)
	}
}
