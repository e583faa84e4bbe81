package cpu_test

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sim"
)

// A syscall's body nobody annotated, entered from a fragment declared
// complete, is marked: a footprint listener hears the mark as an access to
// an object with no stable key, so a walk cannot find the fragment
// independent of anything.
func ExampleCPU_Unaudited() {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, sim.NewRandom(1))
	defer m.Close()
	m.OnFootprint(func(_ *cpu.CPU, f cpu.Footprint) {
		_, keyed := cpu.FootprintKey(f.Obj)
		fmt.Printf("%v %s (%T, stable key %v)\n", f.Obj, f.Field, f.Obj, keyed)
	})
	c := m.CPUs[0]
	c.AccessMarkedOnly(cpu.KeyName("perf_event_id"), "perf_event_id", cpu.MarkedWrite, "perf_event_alloc")
	c.Unaudited("sys_perf_event_open")
	// Output:
	// perf_event_id perf_event_id (cpu.KeyName, stable key true)
	// sys_perf_event_open (code not annotated) (cpu.Unaudited, stable key false)
}
