package sched_test

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// A process forks a child that writes to a pipe its parent reads, then the
// parent reaps the child with wait4: the child has its own pid and mm, the
// read blocks until the write wakes it.
func ExampleFork() {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewReplay(nil))
	defer m.Close()
	s := sched.New(m, sched.DefaultConfig())
	var got []string
	parent := s.Spawn("parent", sched.CPUMask{},
		sched.Fork("child", sched.ForkFlags,
			sched.Compute(10*sim.Microsecond),
			sched.PipeWrite("p", 1)),
		sched.PipeRead("p", 1),
		sched.Call(func(t *sched.Task) { got = append(got, fmt.Sprintf("read returned at %s", t.CPU().Now())) }),
		sched.Wait4())
	if err := m.Run(sim.Second); err != nil {
		fmt.Println(err)
		return
	}
	child := parent.Children()
	fmt.Println(got[0])
	fmt.Printf("children left after wait4: %d\n", len(child))
	for _, t := range s.Tasks {
		fmt.Printf("%s pid=%d tid=%d ppid=%d own-mm=%v reaped=%v\n", t, t.PID, t.TID, t.PPID, t.MM != parent.MM || t == parent, t.Reaped())
	}
	// Output:
	// read returned at 10us
	// children left after wait4: 0
	// parent/101 pid=101 tid=101 ppid=0 own-mm=true reaped=true
	// parent/102 pid=102 tid=102 ppid=101 own-mm=true reaped=true
}
