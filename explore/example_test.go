package explore_test

import (
	"fmt"

	"perfsim/explore"
	"perfsim/runner"
	"perfsim/scenarios"
)

// A scenario of your own, explored with a kernel knob: the NMI's aux_pause
// lands inside a task's aux_resume when the rb->aux_in_pause_resume guard is
// off (the code before 18d92bb57c39), and explore shrinks the schedule that
// shows it to the one decision that matters.
func Example() {
	src := &scenarios.Source{Name: "mine.sim", Src: []byte(`
scenario mine
cpus 1
pmu intel_pt rate=1000 region=4K
kernel cost-model=free
task uname cpu0
  repeat 30
    syscall newuname
    compute 700ns
record -e '{intel_pt/aux-action=start-paused/k,syscalls:sys_enter_newuname/aux-action=resume/,cycles/period=1500,aux-action=pause/}' -m 8,8 -- uname
always perf.error == 0
always aux.pause_resume.overlaps == 0
`)}
	f, err := runner.Load(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	ex, err := explore.Explore(f, explore.Options{Runs: 200, Jobs: 1, Knobs: map[string]string{"aux-pause-guard": "off"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if ex.Found == nil {
		fmt.Println("no violation in", ex.Schedules, "schedules")
		return
	}
	fmt.Println("schedule:", ex.Found.Schedule)
	fmt.Println("violation:", ex.Found.Violation)
	fmt.Println("disturbing decisions:", len(ex.Found.Lines))
	// Output:
	// schedule: 29
	// violation: invariant pmu-pause-resume-exclusive at 11.25us: ring buffer of event 1 (cpu 0): PERF_EF_PAUSE of event 1 entered on cpu0 while its PERF_EF_RESUME (cpu0) was in flight
	// disturbing decisions: 1
}

// A shard of a sharded search is "i/n", 0-based; PCT's guarantee for a
// scenario of n agents and k decisions at depth d is 1/(n*k^(d-1)).
func ExampleParseShard() {
	i, n, err := explore.ParseShard("2/8")
	fmt.Println(i, n, err)
	_, _, err = explore.ParseShard("8/8")
	fmt.Println(err)
	fmt.Printf("%.3g\n", explore.PCTGuarantee(2, 92, 3))
	// Output:
	// 2 8 <nil>
	// "8/8": expected i/n, a shard 0..n-1 of n >= 1 (like 0/4)
	// 5.91e-05
}
