package sched_test

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// A thread spins on cpu1 while its creator joins it: pthread_join() sleeps
// in a futex wait on the thread's tid word until the thread's exit_mm()
// clears it and wakes it (CLONE_CHILD_CLEARTID), then returns.
func ExampleJoin() {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewReplay(nil))
	defer m.Close()
	s := sched.New(m, sched.DefaultConfig())
	var got []string
	s.Spawn("main", sched.MaskOf(0),
		sched.Fork("w", sched.ThreadFlags, sched.Migrate(1), sched.Compute(20*sim.Microsecond)),
		sched.Join("w"),
		sched.Call(func(t *sched.Task) { got = append(got, fmt.Sprintf("joined at %s", t.CPU().Now())) }))
	if err := m.Run(sim.Second); err != nil {
		fmt.Println(err)
		return
	}
	w := s.Tasks[1]
	fmt.Printf("%s exited at %s\n", w, w.Exited)
	fmt.Println(got[0])
	// Output:
	// main/102 exited at 20us
	// joined at 20us
}
