package cpu

import (
	"testing"

	"perfsim/sim"
)

// BenchmarkStepNoChoice: a step point where nothing else can happen.
func BenchmarkStepNoChoice(b *testing.B) {
	m := NewMachine(Config{CPUs: 1}, sim.NewRandom(1))
	defer m.Close()
	th := m.NewThread("t", func(th *Thread) {
		c := th.CPU()
		for i := 0; i < b.N; i++ {
			c.Step("bench")
		}
		for {
			th.Idle()
		}
	})
	m.CPUs[0].Start(th)
	b.ResetTimer()
	if err := m.Run(sim.Never); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Msteps/s")
}

// BenchmarkStepChoice: two CPUs tied at the same instant, so every step point is
// a decision of the random strategy (and about half of them switch CPUs).
func BenchmarkStepChoice(b *testing.B) {
	m := NewMachine(Config{CPUs: 2}, sim.NewRandom(1))
	defer m.Close()
	n := b.N / 2
	for k := 0; k < 2; k++ {
		th := m.NewThread("t", func(th *Thread) {
			for i := 0; i < n; i++ {
				th.CPU().Step("bench")
			}
			for {
				th.Idle()
			}
		})
		m.CPUs[k].Start(th)
	}
	b.ResetTimer()
	if err := m.Run(sim.Never); err != nil {
		b.Fatal(err)
	}
	if m.Eng.Decisions < n {
		b.Fatalf("only %d decisions for %d steps", m.Eng.Decisions, 2*n)
	}
	b.ReportMetric(float64(2*n)/b.Elapsed().Seconds()/1e6, "Msteps/s")
}
