package cpu_test

import (
	"fmt"

	"perfsim/cpu"
	"perfsim/sim"
)

// A pin count incremented under a lock on cpu0 and decremented under it on
// cpu1 is ordered; cpu1's decrement without the lock and cpu0's increment
// without it are not (one report per pair of functions and operations).
func ExampleRaceDetector() {
	m := cpu.NewMachine(cpu.Config{CPUs: 2}, sim.NewRandom(1))
	defer m.Close()
	d := cpu.NewRaceDetector(m)
	d.Name = func(any) string { return "the context of victim" }
	d.Report = func(r cpu.Race) { fmt.Println(r) }
	ctx, lock := new(struct{ pinCount int }), new(int)
	c0, c1 := m.CPUs[0], m.CPUs[1]

	c0.Acquire(lock) // raw_spin_lock(&ctx->lock)
	c0.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "find_get_context")
	c0.Release(lock) // raw_spin_unlock(&ctx->lock)

	c1.Acquire(lock)
	c1.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "perf_unpin_context") // ordered after cpu0's
	c1.Release(lock)
	c1.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "perf_unpin_context") // no lock

	c0.Access(ctx, "ctx->pin_count", cpu.PlainRMW, "find_get_context") // without the lock, after cpu1's: nothing orders them
	fmt.Println(d.Reports, "report")
	// Output:
	// BUG: KCSAN: data-race in find_get_context / perf_unpin_context: read-write to ctx->pin_count of the context of victim in perf_unpin_context on cpu1 at 0; read-write to ctx->pin_count of the context of victim in find_get_context on cpu0 at 0
	// 1 report
}
