package pmu_test

import (
	"testing"

	"perfsim/perftool"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
	"perfsim/uapi"
)

// BenchmarkSeedClose models seed 002's measurement: `perf record -o /dev/null
// -e 'raw_syscalls:*'` of a task doing close(-1) in a loop. One op is one
// close: two samples (sys_enter, sys_exit) into the task's forward buffer of
// 128+1 pages on its CPU, drained by a reader task at each poll wakeup. Run
// it with -benchtime=3000000x for the seed's 3M calls.
func BenchmarkSeedClose(b *testing.B) { benchSeedClose(b, pmu.Knobs{}) }

func benchSeedClose(b *testing.B, kn pmu.Knobs) {
	mc := newMachine(b, 2, nil, kn)
	attrs := tracepointAttrs(b, "raw_syscalls:*")
	n := b.N
	var work *sched.Task
	var records int
	work = mc.s.Spawn("work", sched.MaskOf(0), sched.Sleep(sim.Microsecond),
		sched.Call(func(t *sched.Task) {
			mc.k.EnableOnExec(t)
			b.ReportAllocs()
			b.ResetTimer()
		}),
		sched.Loop(n, sched.Syscall("close")))
	mc.s.Spawn("perf", sched.MaskOf(1), sched.Call(func(t *sched.Task) {
		var fds []int
		for _, a := range attrs {
			a := a
			a.Inherit = false // one CPU-bound event per tracepoint; see below
			fd, err := mc.k.PerfEventOpen(t, &a, work.PID, 0, -1, uapi.PERF_FLAG_FD_CLOEXEC)
			if err != nil {
				b.Fatal(err)
			}
			fds = append(fds, fd)
		}
		m, err := mc.k.Mmap(t, fds[0], 0, 129*4096, pmu.ProtRead|pmu.ProtWrite)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := mc.k.Ioctl(t, fds[1], uapi.PERF_EVENT_IOC_SET_OUTPUT, uint64(fds[0])); err != nil {
			b.Fatal(err)
		}
		mm, _ := perftool.NewMmap(m.RB, false)
		for {
			_, hup := mc.k.Poll(t, fds[:1])
			records += drain(mm, t, nil)
			if len(hup) > 0 {
				break
			}
		}
	}))
	if err := mc.m.Run(sim.Never - 1); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if records != 2*n+1 { // and the task's PERF_RECORD_EXIT
		lost, _ := mc.k.Observe("rb.lost")
		b.Fatalf("reader got %d records for %d closes (rb.lost %d)", records, n, lost)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
