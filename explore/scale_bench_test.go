package explore

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"perfsim/runner"
	"perfsim/scenarios"
	"perfsim/sim"
)

// scaleScenario is seed 002's benchmark (seed-close-benchmark) spread over
// cpus CPUs: a task pinned to each, each doing calls close(-1) in lock step,
// all recorded with perf record -a -e 'raw_syscalls:*' -o /dev/null -- b0.
func scaleScenario(cpus, calls int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario scale\ncpus %d\n", cpus)
	var names []string
	for c := range cpus {
		fmt.Fprintf(&b, "task b%d cpu%d\n  repeat %d\n    syscall close\n", c, c, calls)
		names = append(names, fmt.Sprintf("b%d", c))
	}
	// -a: a buffer per CPU; the session lasts as long as b0 runs.
	fmt.Fprintf(&b, "record -a -e 'raw_syscalls:*' -o /dev/null -- b0\nalways perf.error == 0\n")
	_ = names
	return b.String()
}

// BenchmarkSyscallCPUs is the cost of a simulated syscall (ns/syscall) as
// CPUs are added, at b.N syscalls in all (run it with -benchtime=1000000x and
// 10000000x for 1e6 and 1e7 calls, 2e6 and 2e7 events), on the random
// schedule of seed 1 (every step point where CPUs are tied is a decision),
// and the memory the Go runtime holds at the end (MB-sys, an upper bound of
// the heap part of RSS) and the process's peak RSS (MB-maxrss: run one CPU
// count per process, -bench 'BenchmarkSyscallCPUs/cpus=64$', for its own).
func BenchmarkSyscallCPUs(b *testing.B) {
	for _, cpus := range []int{1, 2, 8, 32, 64} {
		b.Run(fmt.Sprintf("cpus=%d", cpus), func(b *testing.B) {
			calls := max(b.N/cpus, 1)
			f, err := scenarios.Parse("scale.sim", []byte(scaleScenario(cpus, calls)))
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			b.ResetTimer()
			r, res, err := runner.RunOnce(f, runner.Options{Chooser: runner.ScheduleChooser(1, 0), MaxSteps: -1, MaxWall: -1, MaxMemory: -1, Limit: -1})
			b.StopTimer()
			if err != nil {
				b.Fatal(err)
			}
			if !res.AllExited || res.Failed {
				b.Fatalf("the run did not finish: all exited %v, failed %v, ended at %s", res.AllExited, res.Failed, res.End)
			}
			// b0's sys_enter and sys_exit (2 per call) were written or, on a
			// ring perf did not read in time, counted lost.
			v, _ := r.Observe("samples")
			lost, _ := r.Observe("rb.lost")
			if v+lost < int64(calls) {
				b.Fatalf("%d samples and %d lost for %d calls", v, lost, calls*cpus)
			}
			b.ReportMetric(float64(lost), "lost")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls*cpus), "ns/syscall")
			b.ReportMetric(float64(ms.Sys)/(1<<20), "MB-sys")
			b.ReportMetric(maxRSSMB(), "MB-maxrss")
			b.ReportMetric(float64(r.NumDecisions()), "decisions")
			_ = sim.Never
		})
	}
}
