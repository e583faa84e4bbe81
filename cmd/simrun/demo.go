package main

import (
	"fmt"
	"io"

	"perfsim/cpu"
	"perfsim/sched"
	"perfsim/sim"
)

// demo runs seed 004's schedule (one task through CPU0, CPU3, CPU1, CPU2, CPU1)
// and prints its per-CPU timeline and replay token.
func demo(w io.Writer) int {
	rec := &sim.Recorder{Inner: sim.NewRandom(1)}
	m := cpu.NewMachine(cpu.Config{CPUs: 4}, rec)
	defer m.Close()
	m.Trace().Keep = true
	s := sched.New(m, sched.DefaultConfig())
	period := 10 * sim.Millisecond
	s.Spawn("dd", sched.MaskOf(0),
		sched.Compute(period), sched.Migrate(3), sched.Compute(period), sched.Migrate(1),
		sched.Compute(period), sched.Migrate(2), sched.Compute(period), sched.Migrate(1), sched.Compute(period))
	if err := m.Run(sim.Second); err != nil {
		fmt.Fprintln(w, err)
		return 1
	}
	fmt.Fprint(w, s.Timeline(60))
	fmt.Fprintln(w, "replay token:", sim.EncodeToken(rec.Decisions))
	return 0
}
