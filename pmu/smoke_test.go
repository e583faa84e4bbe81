package pmu_test

import (
	"testing"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// TestSmokeRawSyscalls: perf record -e 'raw_syscalls:*' of a task doing 10
// closes: 2 records per syscall reach the reader, then the task's
// PERF_RECORD_EXIT (the events have attr.comm and attr.task, as perf's
// first event does).
func TestSmokeRawSyscalls(t *testing.T) {
	mc := newMachine(t, 2, nil, pmu.Knobs{})
	attrs := tracepointAttrs(t, "raw_syscalls:*")
	work := mc.s.Spawn("work", sched.MaskOf(0), sched.Sleep(sim.Millisecond),
		sched.Call(func(t *sched.Task) { mc.k.EnableOnExec(t) }),
		sched.Loop(10, sched.Syscall("close"), sched.Compute(sim.Microsecond)))
	got := 0
	mc.s.Spawn("perf", sched.MaskOf(1), sched.Call(func(t *sched.Task) {
		var fds []int
		for _, a := range attrs {
			for c := 0; c < 2; c++ {
				a := a
				a.Inherit = false
				fd, err := mc.k.PerfEventOpen(t, &a, work.PID, c, -1, uapi.PERF_FLAG_FD_CLOEXEC)
				if err != nil {
					panic(err)
				}
				fds = append(fds, fd)
			}
		}
		// perf mmaps one buffer per CPU and redirects the other events there.
		var maps []*perftool.Mmap
		for c := 0; c < 2; c++ {
			m, err := mc.k.Mmap(t, fds[c], 0, 129*4096, pmu.ProtRead|pmu.ProtWrite)
			if err != nil {
				panic(err)
			}
			if _, err := mc.k.Ioctl(t, fds[2+c], uapi.PERF_EVENT_IOC_SET_OUTPUT, uint64(fds[c])); err != nil {
				panic(err)
			}
			mm, _ := perftool.NewMmap(m.RB, false)
			maps = append(maps, mm)
		}
		for {
			_, hup := mc.k.Poll(t, fds[:2])
			for _, mm := range maps {
				got += drain(mm, t, nil)
			}
			if len(hup) > 0 {
				break
			}
		}
	}))
	if err := mc.m.Run(sim.Second); err != nil {
		t.Fatal(err)
	}
	if got != 21 {
		t.Errorf("reader got %d records, want 21", got)
	}
}
