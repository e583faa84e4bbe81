package explore

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
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
// the user CPU time per syscall (us-user/syscall: the process's, GC
// included; load on the machine does not inflate it as it does ns/op),
// and the memory the Go runtime holds at the end (MB-sys, an upper bound of
// the heap part of RSS) and the process's peak RSS (MB-maxrss: run one CPU
// count per process, -bench 'BenchmarkSyscallCPUs/cpus=64$', for its own).
func BenchmarkSyscallCPUs(b *testing.B) {
	for _, cpus := range scaleCPUs {
		b.Run(fmt.Sprintf("cpus=%d", cpus), func(b *testing.B) {
			calls := max(b.N/cpus, 1)
			f, err := scenarios.Parse("scale.sim", []byte(scaleScenario(cpus, calls)))
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			user0 := userCPU()
			b.ResetTimer()
			r, res, err := runner.RunOnce(f, runner.Options{Chooser: runner.ScheduleChooser(1, 0), MaxSteps: -1, MaxWall: -1, MaxMemory: -1, Limit: -1})
			b.StopTimer()
			user := userCPU() - user0
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
			// Like with like: a record written costs more than one refused
			// (perf_output_begin() fails early), and the cells refuse
			// different shares (perf's reader keeps up worse on 1 CPU,
			// which it shares with b0; its own syscalls are recorded too):
			// the records written per syscall, and the cost of each, say
			// how much of a difference between cells is that.
			b.ReportMetric(float64(v)/float64(calls*cpus), "written/syscall")
			b.ReportMetric(user.Seconds()*1e6/float64(max(v, 1)), "us-user/written")
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls*cpus), "ns/syscall")
			b.ReportMetric(user.Seconds()*1e6/float64(calls*cpus), "us-user/syscall")
			b.ReportMetric(float64(ms.Sys)/(1<<20), "MB-sys")
			b.ReportMetric(maxRSSMB(), "MB-maxrss")
			b.ReportMetric(float64(r.NumDecisions()), "decisions")
			// Each lane run resumes a CPU's thread: on one CPU the lane never
			// yields (nothing else is due).
			b.ReportMetric(float64(r.M.Eng.Runs)/float64(calls*cpus), "lane-runs/syscall")
			// Of those, the runs a yielding lane handed straight to the next
			// lane's thread (cpu's handoff): one switch, not two.
			b.ReportMetric(float64(r.M.Eng.Handoffs)/float64(calls*cpus), "handoffs/syscall")
			_ = sim.Never
		})
	}
}

// scaleCPUs are the CPU counts of BenchmarkSyscallCPUs and its table.
var scaleCPUs = []int{1, 2, 4, 8, 16, 32, 64}

// BenchmarkSyscallScaleTable prints issue 17's table: for 1e6 and 1e7
// simulated syscalls in all (PERFSIM_SCALE_EVENTS overrides, e.g. "1e6"),
// at each CPU count, the user CPU time per syscall and the process's peak
// RSS, each cell one BenchmarkSyscallCPUs run in a process of its own (this
// test binary re-executed), so that each RSS is that run's alone.
//
// The cells make the same syscalls, and their ring buffer invariant logs
// take about as many events (each buffer's log stops at 65,536 events and
// a run's logs at 262,144 in all: before, 64 buffers logged 64 times what
// one did, every record of the 1e6 run). They write about as many records
// per syscall (1.3 on 1 CPU, 1.4 on 64, perf's own syscalls included: on
// 1 CPU perf shares the CPU with b0, and more of b0's records are refused
// by a full ring, which costs little), so the cost per record written,
// which the table gives too, spreads about as the cost per syscall: what
// is left of the spread is the lane runs (the runs column). On one CPU the
// lane never yields (every time advance is TryAdvance's, no other lane is
// due); from 2 CPUs on the lanes are near each other in time, tied now and
// then (decisions: 1 per 14 syscalls at 8 CPUs, about 1 per syscall at
// 64), and nearly every time advance passes another lane's next, so the
// lane yields: 2.3 runs per syscall on 2 CPUs, about 4.8 from 8 CPUs on.
// A run the yielding lane hands straight to the next lane's thread (the
// direct column: cpu's handoff, where the engine's step is plain) is one
// coroutine switch; the others (a timer due on the next CPU, the yielding
// lane picked again) go back to the engine and from there on, two
// switches. What is left of the spread is the runs' own work (the lane
// heap, the switch) and the caches: 64 CPUs' state does not fit where 8
// CPUs' does.
//
//	go test ./explore -run '^$' -bench BenchmarkSyscallScaleTable -benchtime 1x
func BenchmarkSyscallScaleTable(b *testing.B) {
	events := []string{"1e6", "1e7"}
	if e := os.Getenv("PERFSIM_SCALE_EVENTS"); e != "" {
		events = strings.Split(e, ",")
	}
	type cell struct{ us, rss, written, usw, runs, direct float64 }
	cells := map[string]cell{}
	for range b.N {
		for _, ev := range events {
			n, err := strconv.ParseFloat(ev, 64)
			if err != nil || n < 1 {
				b.Fatalf("PERFSIM_SCALE_EVENTS: %q is not a count of syscalls", ev)
			}
			for _, cpus := range scaleCPUs {
				out, err := exec.Command(os.Args[0], "-test.run", "^$", "-test.benchmem=false",
					"-test.bench", fmt.Sprintf("^BenchmarkSyscallCPUs$/^cpus=%d$", cpus),
					"-test.benchtime", fmt.Sprintf("%dx", int64(n))).CombinedOutput()
				if err != nil {
					b.Fatalf("cpus=%d, %s syscalls: %v\n%s", cpus, ev, err, out)
				}
				us, ok1 := benchMetric(out, "us-user/syscall")
				rss, ok2 := benchMetric(out, "MB-maxrss")
				w, ok3 := benchMetric(out, "written/syscall")
				usw, ok4 := benchMetric(out, "us-user/written")
				runs, ok5 := benchMetric(out, "lane-runs/syscall")
				direct, ok6 := benchMetric(out, "handoffs/syscall")
				if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
					b.Fatalf("cpus=%d, %s syscalls: no us-user/syscall, MB-maxrss, written/syscall, us-user/written, lane-runs/syscall or handoffs/syscall in\n%s", cpus, ev, out)
				}
				cells[fmt.Sprintf("%s/%d", ev, cpus)] = cell{us, rss, w, usw, runs, direct}
			}
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "\nseed benchmark scaled (perf record -a -e 'raw_syscalls:*', a close(-1) loop pinned to each CPU): user CPU us per simulated syscall, peak RSS MB, records written per syscall (of 2), user CPU us per record written, lane runs per syscall, and of those the runs a lane handed straight to the next (one coroutine switch, not two)\n")
	fmt.Fprintf(&t, "%-6s", "CPUs")
	for _, ev := range events {
		fmt.Fprintf(&t, " | %5s us/syscall     MB written us/written  runs direct", ev)
	}
	fmt.Fprintf(&t, "\n")
	for _, cpus := range scaleCPUs {
		fmt.Fprintf(&t, "%-6d", cpus)
		for _, ev := range events {
			c := cells[fmt.Sprintf("%s/%d", ev, cpus)]
			fmt.Fprintf(&t, " | %16.2f %6.0f %7.2f %10.2f %5.2f %6.2f", c.us, c.rss, c.written, c.usw, c.runs, c.direct)
		}
		fmt.Fprintf(&t, "\n")
	}
	spread := func(ev string, f func(cell) float64) float64 {
		lo, hi := f(cells[ev+"/1"]), f(cells[ev+"/1"])
		for _, cpus := range scaleCPUs {
			v := f(cells[fmt.Sprintf("%s/%d", ev, cpus)])
			lo, hi = min(lo, v), max(hi, v)
		}
		return hi / lo
	}
	for _, ev := range events {
		fmt.Fprintf(&t, "%s syscalls: the most costly CPU count is %.2fx the least per syscall, %.2fx per record written\n",
			ev, spread(ev, func(c cell) float64 { return c.us }), spread(ev, func(c cell) float64 { return c.usw }))
	}
	fmt.Print(t.String()) // not b.Log: a benchmark's log is cut to its first lines
}

// benchMetric finds the value of unit in a benchmark's output line.
func benchMetric(out []byte, unit string) (float64, bool) {
	f := strings.Fields(string(out))
	for i := 1; i < len(f); i++ {
		if f[i] == unit {
			v, err := strconv.ParseFloat(f[i-1], 64)
			return v, err == nil
		}
	}
	return 0, false
}
