package sched_test

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// A cgroup v2 hierarchy: app and app/web below the root; a task placed in
// app/web at start forks a child there, a write to cgroup.procs moves the
// parent to the root's other child batch, and app/web cannot be removed
// while the child lives in it.
func ExampleSched_CgroupAttachTask() {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, sim.NewReplay(nil))
	defer m.Close()
	s := sched.New(m, sched.DefaultConfig())
	app, _ := s.CgroupMkdir("app", nil)
	web, _ := s.CgroupMkdir("web", app)
	batch, _ := s.CgroupMkdir("batch", nil)
	parent := s.Spawn("parent", sched.CPUMask{},
		sched.Fork("child", sched.ForkFlags, sched.Compute(50*sim.Microsecond)),
		sched.Call(func(t *sched.Task) {
			s.Syscall(t, "write", func(t *sched.Task) { _ = s.CgroupAttachTask(t, t, batch) })
			fmt.Println("rmdir app/web while the child runs:", s.CgroupRmdir(web))
		}))
	s.CgroupSetInitial(parent, web)
	if err := m.Run(sim.Second); err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range s.Tasks {
		fmt.Printf("%s in %s (id %d), below app: %v\n", t, t.Cgroup(), t.Cgroup().ID, t.Cgroup().IsDescendant(app))
	}
	fmt.Println("rmdir app/web after the child exited:", s.CgroupRmdir(web))
	// Output:
	// rmdir app/web while the child runs: Device or resource busy
	// parent/101 in /batch (id 1003), below app: false
	// parent/102 in /app/web (id 1002), below app: true
	// rmdir app/web after the child exited: <nil>
}
