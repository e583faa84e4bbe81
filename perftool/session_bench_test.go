package perftool

import (
	"testing"

	"perfsim/cpu"
	"perfsim/pmu"
	"perfsim/sched"
	"perfsim/sim"
)

// closeLoopExit runs seed 002's workload (a loop of close syscalls) alone or
// under `perf record -e 'raw_syscalls:*' -o /dev/null` with perf on perfCPU,
// and returns when the workload exited (simulated time).
func closeLoopExit(b *testing.B, n, perfCPU int, withPerf bool) sim.Time {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	defer m.Close()
	s := sched.New(m, sched.DefaultConfig())
	ko := pmu.DefaultOptions(2)
	ko.Tracepoints = KernelTracepoints()
	k := pmu.NewKernel(s, ko)
	w := s.Spawn("closes", sched.MaskOf(0), sched.Loop(n, sched.Syscall("close")))
	if withPerf {
		r, err := Parse([]string{"-e", "raw_syscalls:*", "--", "closes"}, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		so := DefaultSessionOptions()
		so.CPU, so.WritePerKiB = perfCPU, 0 // -o /dev/null: no copy
		if _, err := NewSession(r, k, s, w, so); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Run(10 * sim.Second); err != nil {
		b.Fatal(err)
	}
	return w.Exited
}

// BenchmarkSessionCloseLoop is seed 002's measurement (Wang Nan, 2016: 3M
// close(-1) take 0.80 s alone and 2.25 s under perf record -e raw_syscalls:*)
// in the simulator: it reports the simulated ns per close syscall alone, with
// perf on the other CPU, and with perf sharing the workload's CPU, plus the
// wall time the simulation takes.
func BenchmarkSessionCloseLoop(b *testing.B) {
	const n = 3000
	for _, c := range []struct {
		name     string
		perfCPU  int
		withPerf bool
	}{{"base", 0, false}, {"perf-other-cpu", 1, true}, {"perf-same-cpu", 0, true}} {
		b.Run(c.name, func(b *testing.B) {
			var end sim.Time
			for i := 0; i < b.N; i++ {
				end = closeLoopExit(b, n, c.perfCPU, c.withPerf)
			}
			b.ReportMetric(float64(end)/n, "sim-ns/close")
		})
	}
}
