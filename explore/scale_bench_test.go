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
//
// perf starts b0 only after evlist__enable() has enabled its events on every
// CPU (with -a perf enables before evlist__start_workload()), but b1 and up
// are the file's own tasks and start at 0: left alone they would make most
// of their calls while perf is still moving itself from CPU to CPU to enable
// (each move a sched_setaffinity() and a stopper run: sched/stopper.go),
// unrecorded, so the records per syscall would fall with the CPU count and
// the cells would not measure the same thing. So they wait on a futex b0
// wakes first thing: every counted close() is made with perf's events
// enabled on every CPU (the futex calls' own records are a few per CPU).
func scaleScenario(cpus, calls int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario scale\ncpus %d\n", cpus)
	for c := range cpus {
		fmt.Fprintf(&b, "task b%d cpu%d\n", c, c)
		switch {
		case cpus == 1:
		case c == 0:
			fmt.Fprintf(&b, "  futex wake go %d\n", cpus-1)
		default:
			fmt.Fprintf(&b, "  futex wait go\n")
		}
		fmt.Fprintf(&b, "  repeat %d\n    syscall close\n", calls)
	}
	// -a: a buffer per CPU; the session lasts as long as b0 runs.
	fmt.Fprintf(&b, "record -a -e 'raw_syscalls:*' -o /dev/null -- b0\nalways perf.error == 0\n")
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
// The records written and lost per syscall (written/syscall, lost/syscall)
// say whether two cells did the same work: every close() is made with
// perf's events enabled on every CPU (scaleScenario), so its two records
// are written or lost, a lost one costing less. The timed part includes
// the machine's and perf's start (evlist__enable() moving perf over every
// CPU) and end: some 30 ms of user CPU time at 64 CPUs (a run of 64
// syscalls), about 1% of the run at 1e6 syscalls, 0.1% at 1e7.
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
			b.ReportMetric(float64(lost)/float64(calls*cpus), "lost/syscall")
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
// RSS (getrusage's ru_maxrss, VmHWM), each cell one BenchmarkSyscallCPUs
// run in a process of its own (this test binary re-executed, with
// -test.cpu 1), so that each RSS is that run's alone. Each cell is run
// PERFSIM_SCALE_RUNS times (3 by default), the runs of a size one after
// the other, and its cost and RSS given as the range over them: the
// machine may be shared, and user CPU time is less inflated by load than
// the wall clock, not immune (caches, frequency).
//
// The runs are the same simulated run (seed 1's schedule), so the records
// written and refused (lost) per syscall are one number per cell: every
// syscall is made with perf's events enabled on every CPU (scaleScenario),
// its sys_enter and sys_exit are written or lost, and the columns show how
// the ring buffers' refusals (a lost record costs less than a written one)
// differ between cells.
//
// It takes about half an hour (past go test's default timeout):
//
//	go test ./explore -run '^$' -bench BenchmarkSyscallScaleTable -benchtime 1x -timeout 90m
func BenchmarkSyscallScaleTable(b *testing.B) {
	events := []string{"1e6", "1e7"}
	if e := os.Getenv("PERFSIM_SCALE_EVENTS"); e != "" {
		events = strings.Split(e, ",")
	}
	runs := 3
	if e := os.Getenv("PERFSIM_SCALE_RUNS"); e != "" {
		n, err := strconv.Atoi(e)
		if err != nil || n < 1 {
			b.Fatalf("PERFSIM_SCALE_RUNS: %q is not a count of runs", e)
		}
		runs = n
	}
	// rng is a range of a cell's values over its runs.
	type rng struct{ lo, hi float64 }
	add := func(r *rng, v float64, first bool) {
		if first {
			*r = rng{v, v}
		}
		r.lo, r.hi = min(r.lo, v), max(r.hi, v)
	}
	type cell struct {
		us, rss, usw            rng
		written, lost, runs, ds float64
	}
	cells := map[string]*cell{}
	metrics := []string{"us-user/syscall", "MB-maxrss", "us-user/written", "written/syscall", "lost/syscall", "lane-runs/syscall", "decisions"}
	for range b.N {
		for _, ev := range events {
			n, err := strconv.ParseFloat(ev, 64)
			if err != nil || n < 1 {
				b.Fatalf("PERFSIM_SCALE_EVENTS: %q is not a count of syscalls", ev)
			}
			for run := range runs {
				for _, cpus := range scaleCPUs {
					out, err := exec.Command(os.Args[0], "-test.run", "^$", "-test.benchmem=false", "-test.cpu", "1",
						"-test.bench", fmt.Sprintf("^BenchmarkSyscallCPUs$/^cpus=%d$", cpus),
						"-test.benchtime", fmt.Sprintf("%dx", int64(n))).CombinedOutput()
					if err != nil {
						b.Fatalf("cpus=%d, %s syscalls: %v\n%s", cpus, ev, err, out)
					}
					m := map[string]float64{}
					for _, unit := range metrics {
						v, ok := benchMetric(out, unit)
						if !ok {
							b.Fatalf("cpus=%d, %s syscalls: no %s in\n%s", cpus, ev, unit, out)
						}
						m[unit] = v
					}
					key := fmt.Sprintf("%s/%d", ev, cpus)
					c := cells[key]
					if c == nil {
						c = &cell{}
						cells[key] = c
					}
					add(&c.us, m["us-user/syscall"], run == 0)
					add(&c.rss, m["MB-maxrss"], run == 0)
					add(&c.usw, m["us-user/written"], run == 0)
					c.written, c.lost, c.runs = m["written/syscall"], m["lost/syscall"], m["lane-runs/syscall"]
					c.ds = m["decisions"] / n
				}
			}
		}
	}
	var t strings.Builder
	fmt.Fprintf(&t, "\nseed benchmark scaled (perf record -a -e 'raw_syscalls:*', a close(-1) loop pinned to each CPU, all started once perf is enabled): over %d runs, the range of user CPU us per simulated syscall, of peak RSS MB (ru_maxrss, a process per run) and of user CPU us per record written; records written and lost per syscall (of 2, perf's own syscalls' included), lane runs and decisions per syscall\n", runs)
	fmt.Fprintf(&t, "%-5s", "CPUs")
	for _, ev := range events {
		fmt.Fprintf(&t, " | %5s us/syscall        MB   us/written written  lost  runs decisions", ev)
	}
	fmt.Fprintf(&t, "\n")
	for _, cpus := range scaleCPUs {
		fmt.Fprintf(&t, "%-5d", cpus)
		for _, ev := range events {
			c := cells[fmt.Sprintf("%s/%d", ev, cpus)]
			fmt.Fprintf(&t, " | %7.2f-%-8.2f %4.0f-%-4.0f %5.2f-%-5.2f %7.2f %5.2f %5.2f %9.2f", c.us.lo, c.us.hi, c.rss.lo, c.rss.hi, c.usw.lo, c.usw.hi, c.written, c.lost, c.runs, c.ds)
		}
		fmt.Fprintf(&t, "\n")
	}
	// spread is the most costly cell's cost over the least's, of the
	// runs' lowest costs (the least disturbed) and of their highest.
	spread := func(ev string, f func(*cell) rng) (lo, hi float64) {
		r1 := f(cells[ev+"/1"])
		minLo, maxLo, minHi, maxHi := r1.lo, r1.lo, r1.hi, r1.hi
		for _, cpus := range scaleCPUs {
			r := f(cells[fmt.Sprintf("%s/%d", ev, cpus)])
			minLo, maxLo = min(minLo, r.lo), max(maxLo, r.lo)
			minHi, maxHi = min(minHi, r.hi), max(maxHi, r.hi)
		}
		return maxLo / minLo, maxHi / minHi
	}
	for _, ev := range events {
		lo, hi := spread(ev, func(c *cell) rng { return c.us })
		wlo, whi := spread(ev, func(c *cell) rng { return c.usw })
		fmt.Fprintf(&t, "%s syscalls: the most costly CPU count is %.2fx the least per syscall (%.2fx of the runs' highest), %.2fx (%.2fx) per record written; 64 CPUs are %.2fx 1 CPU\n",
			ev, lo, hi, wlo, whi, cells[ev+"/64"].us.lo/cells[ev+"/1"].us.lo)
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
