package sched

import (
	"testing"

	"perfsim/cpu"
	"perfsim/sim"
)

// BenchmarkContextSwitch: two tasks on one CPU yielding to each other; one op is
// one sched_yield syscall and one context switch.
func BenchmarkContextSwitch(b *testing.B) {
	m := cpu.NewMachine(cpu.Config{CPUs: 1}, sim.NewRandom(1))
	defer m.Close()
	s := New(m, DefaultConfig())
	n := b.N / 2
	s.Spawn("a", CPUMask{}, Loop(n, Yield()))
	s.Spawn("b", CPUMask{}, Loop(n, Yield()))
	b.ResetTimer()
	if err := m.Run(sim.Never); err != nil {
		b.Fatal(err)
	}
	if s.Switches < uint64(2*n) {
		b.Fatalf("%d switches for %d yields", s.Switches, 2*n)
	}
	b.ReportMetric(float64(s.Switches)/b.Elapsed().Seconds()/1e6, "Mswitches/s")
}
