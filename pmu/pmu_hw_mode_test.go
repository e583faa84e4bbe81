package pmu_test

import (
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestHWCountersMode: cycles count only in the modes the event allows
// (exclude_user, exclude_kernel: the USR/OS bits), at 3 cycles/ns, with three
// counters a task opens on itself: :u, :k and both. The kernel side includes
// the syscalls' time and the exit-to-user work after an interrupt; the user
// side a signal handler's code.
func TestHWCountersMode(t *testing.T) {
	const us = sim.Microsecond
	for _, tc := range []struct {
		name string
		run  func(mc *machine, tk *sched.Task)
		want [3]uint64 // :u, :k, both
	}{{
		name: "4 x (10us of user compute + a 5us getpid)",
		run: func(mc *machine, tk *sched.Task) {
			for i := 0; i < 4; i++ {
				mc.s.RunOps(tk, []sched.Op{sched.Compute(10 * us), sched.SyscallFor("getpid", 5*us)})
			}
		},
		want: [3]uint64{120000, 60000, 180000},
	}, {
		name: "a 10us signal handler after a 5us getpid",
		run: func(mc *machine, tk *sched.Task) {
			mc.s.SendSignal(tk, sched.Signal{Sig: sched.SIGUSR2, Handler: []sched.Op{sched.Compute(10 * us)}})
			mc.s.RunOps(tk, []sched.Op{sched.SyscallFor("getpid", 5*us)})
		},
		want: [3]uint64{30000, 15000, 45000},
	}, {
		name: "an irq in 10us of user compute queues 5us of task_work",
		run: func(mc *machine, tk *sched.Task) {
			c := tk.CPU()
			c.NewTimer(false, cpu.Interrupt{Name: "irq", Fn: func(c *cpu.CPU) {
				_ = mc.s.TaskWorkAdd(c, tk, sched.TaskWork{Name: "work", Fn: func(t *sched.Task) { t.Spend(5 * us) }}, sched.TWAResume)
			}}).Arm(c.Now() + sim.Time(5*us))
			mc.s.RunOps(tk, []sched.Op{sched.Compute(10 * us)})
		},
		want: [3]uint64{30000, 15000, 45000},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			mc := newMachine(t, 1, nil, pmu.Knobs{})
			var counts [3]uint64
			mc.runIn(t, 0, func(tk *sched.Task) {
				var fds [3]int
				for i, ex := range [][2]bool{{false, true}, {true, false}, {false, false}} {
					a := pmu.Attr{Type: uapi.PERF_TYPE_HARDWARE, Size: uapi.AttrSize, Config: uapi.PERF_COUNT_HW_CPU_CYCLES,
						ExcludeUser: ex[0], ExcludeKernel: ex[1], Disabled: true}
					fd, err := mc.k.PerfEventOpen(tk, &a, 0, -1, -1, 0)
					if err != nil {
						t.Fatal(err)
					}
					fds[i] = fd
				}
				for _, fd := range fds {
					mc.k.Ioctl(tk, fd, uapi.PERF_EVENT_IOC_ENABLE, 0)
				}
				tc.run(mc, tk)
				for _, fd := range fds {
					mc.k.Ioctl(tk, fd, uapi.PERF_EVENT_IOC_DISABLE, 0)
				}
				for i, fd := range fds {
					b, err := mc.k.Read(tk, fd)
					if err != nil {
						t.Fatal(err)
					}
					counts[i] = binary.LittleEndian.Uint64(b)
				}
			})
			// The ioctls and the read take no time: the counts are exact.
			if d := cmp.Diff(tc.want, counts); d != "" {
				t.Errorf("cycles :u, :k, both (-want +got):\n%s", d)
			}
		})
	}
}
